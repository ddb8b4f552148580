import { apiClient } from "@/shared/lib/http";

export type ClientPayload = Record<string, unknown>;

/** Create client (billing submit, and the B2B placeholder client). */
export async function clientCreate(payload: ClientPayload) {
  return apiClient.post("/api/clients/", { json: payload });
}
