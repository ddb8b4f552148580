import { useMutation } from "@tanstack/react-query";

import { apiClient } from "@/shared/lib/http";

/** Verify code (plain): the six digits from the mail give the tokens. */
export async function codeVerify(payload: { otp_code: string; email: string }) {
  return apiClient.post("/api/auth/registration/otp/verify/", { json: payload, plain: true });
}

export function useCodeVerify() {
  return useMutation({ mutationFn: codeVerify });
}
