/** The portal's account calls (spec/customer-portal.md section 7). */
import { useMutation } from "@tanstack/react-query";
import { z } from "zod";

import { tokensSchema } from "@/shared/lib/tokens";

import { solveBotCheck } from "../lib/bot-check";
import { portalApi } from "../lib/portal-api";

export const loginAnswerSchema = z.object({
  tokens: tokensSchema.nullable(),
  recaptcha_extra_check: z.boolean(),
  user_id: z.number().nullable(),
});

/** Login: the username lower-cased, the bot check solved first; excluded from the restore. */
export async function login(payload: { username: string; password: string }) {
  const recaptcha = await solveBotCheck();
  const body = { username: payload.username.trim().toLowerCase(), password: payload.password, recaptcha };
  return loginAnswerSchema.parse(await portalApi("auth/user/login/", { json: body, noRestore: true }));
}

export const useLogin = () => useMutation({ mutationFn: login });

export async function otpVerify(payload: { user_id: number; otp_code: string }) {
  const answer = await portalApi("auth/2fa/otp/verify/", { json: payload, plain: true, noRestore: true });
  return z.object({ tokens: tokensSchema }).parse(answer).tokens;
}

export const useOtpVerify = () => useMutation({ mutationFn: otpVerify });

export async function otpResend(payload: { user_id: number }) {
  return portalApi("auth/2fa/otp/resend/", { json: payload, noRestore: true });
}

export const useOtpResend = () => useMutation({ mutationFn: otpResend });

export async function resetRequest(email: string) {
  return portalApi("auth/user/password-reset/verify-email/", { json: { email: email.trim().toLowerCase() }, noRestore: true });
}

export const useResetRequest = () => useMutation({ mutationFn: resetRequest });

export const resetVerifySchema = z.object({ email: z.string(), is_user_creation: z.boolean() });

export async function resetVerify(token: string, id: string) {
  return resetVerifySchema.parse(
    await portalApi(`auth/user/password-reset/verify/${encodeURIComponent(token)}/${encodeURIComponent(id)}/`, { noRestore: true }),
  );
}

export async function resetComplete(payload: { password: string; password_again: string; token: string; uidb64: string }) {
  const recaptcha = await solveBotCheck();
  return portalApi("auth/user/password-reset/complete/", { method: "PATCH", json: { ...payload, recaptcha }, noRestore: true });
}

export const useResetComplete = () => useMutation({ mutationFn: resetComplete });

export async function signupSend(payload: { email: string; partner: string; verify_email_url: string }) {
  return portalApi("end_user_portal/email_register/", { json: { ...payload, email: payload.email.trim().toLowerCase() }, noRestore: true });
}

export const useSignupSend = () => useMutation({ mutationFn: signupSend });

export const signupVerifySchema = z.object({ email_address: z.string(), token: tokensSchema, is_unknown_user: z.boolean() });

export async function signupVerify(key: string) {
  return signupVerifySchema.parse(await portalApi("end_user_portal/verify_token/", { json: { key }, noRestore: true }));
}

export async function accountCreate(payload: { password: string; password_again: string; subdomain: string }) {
  const recaptcha = await solveBotCheck();
  const answer = await portalApi("end_user_portal/create_account/", { json: { ...payload, recaptcha } });
  return z.object({ tokens: tokensSchema }).parse(answer).tokens;
}

export const useAccountCreate = () => useMutation({ mutationFn: accountCreate });

export const profileSchema = z.array(z.object({ email: z.string(), first_name: z.string(), last_name: z.string() }));

export async function profile() {
  return profileSchema.parse(await portalApi("auth/user/profile/end-user-portal/"));
}

export async function logout(refresh: string) {
  return portalApi("auth/user/logout/", { json: { refresh }, noRestore: true });
}
