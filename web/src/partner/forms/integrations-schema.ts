/** The forms of the interfaces page (API keys, webhooks), with the server's rules. */
import { z } from "zod";

import { EVENTS, SCOPES } from "../api/integrations";

export const apiKeyFormSchema = z.object({
  name: z.string().trim().min(1, "integrations.nameRequired").max(100, "integrations.nameRequired"),
  scope: z.enum(SCOPES),
});
export type ApiKeyForm = z.infer<typeof apiKeyFormSchema>;

export const webhookFormSchema = z.object({
  url: z
    .string()
    .trim()
    .max(500, "integrations.urlInvalid")
    .regex(/^https?:\/\/[^\s/]+/, "integrations.urlInvalid"),
  events: z.array(z.enum(EVENTS)).min(1, "integrations.eventsRequired"),
});
export type WebhookForm = z.infer<typeof webhookFormSchema>;
