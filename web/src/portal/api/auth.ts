/** The portal's account calls (spec/customer-portal.md section 7). */
import { useMutation } from "@tanstack/react-query";

import { solveBotCheck } from "../lib/bot-check";
import { portal } from "../lib/portal-api";

/** Login: the username lower-cased, the bot check solved first; excluded from the restore. */
export async function login(payload: { username: string; password: string }) {
  const recaptcha = await solveBotCheck();
  const body = { username: payload.username.trim().toLowerCase(), password: payload.password, recaptcha };
  return portal.post("/api/auth/user/login/", { json: body, noRestore: true });
}

export const useLogin = () => useMutation({ mutationFn: login });

export async function otpVerify(payload: { user_id: number; otp_code: string }) {
  return (await portal.post("/api/auth/2fa/otp/verify/", { json: payload, plain: true, noRestore: true })).tokens;
}

export const useOtpVerify = () => useMutation({ mutationFn: otpVerify });

export async function otpResend(payload: { user_id: number }) {
  return portal.post("/api/auth/2fa/otp/resend/", { json: payload, noRestore: true });
}

export const useOtpResend = () => useMutation({ mutationFn: otpResend });

export async function resetRequest(email: string) {
  return portal.post("/api/auth/user/password-reset/verify-email/", { json: { email: email.trim().toLowerCase() }, noRestore: true });
}

export const useResetRequest = () => useMutation({ mutationFn: resetRequest });

export async function resetVerify(token: string, id: string) {
  return portal.get("/api/auth/user/password-reset/verify/{token}/{uidb64}/", { path: { token, uidb64: id }, noRestore: true });
}

export async function resetComplete(payload: { password: string; password_again: string; token: string; uidb64: string }) {
  const recaptcha = await solveBotCheck();
  return portal.patch("/api/auth/user/password-reset/complete/", { json: { ...payload, recaptcha }, noRestore: true });
}

export const useResetComplete = () => useMutation({ mutationFn: resetComplete });

export async function signupSend(payload: { email: string; partner: string; verify_email_url: string }) {
  return portal.post("/api/end_user_portal/email_register/", { json: { ...payload, email: payload.email.trim().toLowerCase() }, noRestore: true });
}

export const useSignupSend = () => useMutation({ mutationFn: signupSend });

export async function signupVerify(key: string) {
  return portal.post("/api/end_user_portal/verify_token/", { json: { key }, noRestore: true });
}

export async function accountCreate(payload: { password: string; password_again: string; subdomain: string }) {
  const recaptcha = await solveBotCheck();
  return (await portal.post("/api/end_user_portal/create_account/", { json: { ...payload, recaptcha } })).tokens;
}

export const useAccountCreate = () => useMutation({ mutationFn: accountCreate });

export async function profile() {
  return portal.get("/api/auth/user/profile/end-user-portal/");
}

export async function logout(refresh: string) {
  return portal.post("/api/auth/user/logout/", { json: { refresh }, noRestore: true });
}
