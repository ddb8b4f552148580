/** The e-mail of LoginCA and LoginB2B: mandatory, a valid address, no emojis. */
import { z } from "zod";

import { containsEmoji, isEmail, MESSAGES } from "@/shared/lib/validation";

export const loginSchema = z.object({
  email: z
    .string()
    .transform((value) => value.trim())
    .superRefine((value, context) => {
      const message = !value ? MESSAGES.required : containsEmoji(value) ? MESSAGES.noEmojis : !isEmail(value) ? MESSAGES.invalidEmail : null;
      if (message) context.addIssue({ code: z.ZodIssueCode.custom, message });
    }),
});

export type LoginValues = z.input<typeof loginSchema>;
