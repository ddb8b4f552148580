import { apiClient } from "@/shared/lib/http";

/** Lock client: the quota applications are created. */
export function clientLock(id: number): Promise<unknown> {
  return apiClient.post("/api/clients/{client_id}/lock/", { path: { client_id: id } });
}
