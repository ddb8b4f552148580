import { api } from "@/shared/lib/http";
import { tokensSchema } from "@/shared/lib/tokens";

/** Verify e-mail link (plain): the link's key gives the tokens. */
export async function emailVerify(key: string) {
  return tokensSchema.parse(await api("auth/registration/email/verify/", { json: { key }, plain: true }));
}
