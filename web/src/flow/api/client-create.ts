import { z } from "zod";

import { api } from "@/shared/lib/http";

const clientSchema = z.object({ id: z.number(), email: z.string() });

export type ClientPayload = Record<string, unknown>;

/** Create client (billing submit, and the B2B placeholder client). */
export async function clientCreate(payload: ClientPayload) {
  return clientSchema.parse(await api("clients/", { json: payload }));
}
