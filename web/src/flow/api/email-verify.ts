import { apiClient } from "@/shared/lib/http";

/** Verify e-mail link (plain): the link's key gives the tokens. */
export async function emailVerify(key: string) {
  return apiClient.post("/api/auth/registration/email/verify/", { json: { key }, plain: true });
}
