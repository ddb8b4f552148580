/** The erasure forms' rules (the messages are keys of the partner area's texts). */
import { z } from "zod";

export const erasureLookupSchema = z.object({
  email: z.string().trim().email("privacy.emailInvalid").max(254, "privacy.emailInvalid"),
});
export type ErasureLookupForm = z.infer<typeof erasureLookupSchema>;

export const erasureConfirmSchema = z.object({
  reference: z.string().trim().min(3, "privacy.referenceShort").max(200, "privacy.referenceShort"),
  identity: z.boolean().refine((ticked) => ticked, "privacy.identityRequired"),
});
export type ErasureConfirmForm = z.infer<typeof erasureConfirmSchema>;
