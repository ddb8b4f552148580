import { useMutation } from "@tanstack/react-query";
import { api } from "@/shared/lib/http";
import { tokensSchema } from "@/shared/lib/tokens";

/** Verify code (plain): the six digits from the mail give the tokens. */
export async function codeVerify(payload: { otp_code: string; email: string }) {
  return tokensSchema.parse(await api("auth/registration/otp/verify/", { json: payload, plain: true }));
}

export function useCodeVerify() {
  return useMutation({ mutationFn: codeVerify });
}
