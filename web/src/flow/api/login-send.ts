import { useMutation } from "@tanstack/react-query";

import { apiClient } from "@/shared/lib/http";

export type LoginSendInput = { email: string; partner: string; verify_email_url: string; flow: "otp" | "link" };

/** Login by code or by link (plain calls): the server mails a code or a magic link. */
export function loginSend({ flow, ...payload }: LoginSendInput): Promise<unknown> {
  return flow === "otp"
    ? apiClient.post("/api/auth/registration/otp/", { json: payload, plain: true })
    : apiClient.post("/api/auth/registration/email/", { json: payload, plain: true });
}

export function useLoginSend() {
  return useMutation({ mutationFn: loginSend });
}
