/** The portal's form rules (spec/customer-portal.md section 5); messages are text keys. */
import { z } from "zod";

export const PASSWORD_SPECIALS = "~!@#$%^&*()_+{}\":;'[]";
const escaped = PASSWORD_SPECIALS.replace(/[\\\]^-]/g, "\\$&");
const ALLOWED = new RegExp(`^[A-Za-z0-9${escaped}]*$`);

export function passwordProblem(password: string): string | null {
  if (!password) return "password.new_password_required_msg";
  if (password.length < 8) return "password.new_password_eight_characters_msg";
  const special = [...password].some((char) => PASSWORD_SPECIALS.includes(char));
  if (!ALLOWED.test(password) || !/[a-z]/.test(password) || !/[A-Z]/.test(password) || !/[0-9]/.test(password) || !special) {
    return "password.new_password_pattern_msg";
  }
  return null;
}

export const passwordSchema = z
  .object({ password: z.string(), password_again: z.string() })
  .superRefine((value, context) => {
    const problem = passwordProblem(value.password);
    if (problem) context.addIssue({ code: "custom", path: ["password"], message: problem });
    if (!value.password_again) context.addIssue({ code: "custom", path: ["password_again"], message: "password.retype_new_required_msg" });
    else if (value.password_again !== value.password) {
      context.addIssue({ code: "custom", path: ["password_again"], message: "password.retype_new_match_msg" });
    }
  });

export const loginSchema = z.object({
  username: z.string().trim().min(1, "login.required"),
  password: z.string().min(1, "login.required"),
});

const SIMPLE_EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/;

export const emailSchema = z.object({
  email: z
    .string()
    .trim()
    .min(1, "verify.invalidEmail")
    .refine((value) => SIMPLE_EMAIL.test(value), "verify.invalidEmail"),
});

export const otpSchema = z.object({ code: z.string().regex(/^\d{6}$/, "otp.otp_verify_fail") });
