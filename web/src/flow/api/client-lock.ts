import { api } from "@/shared/lib/http";

/** Lock client: the quota applications are created. */
export function clientLock(id: number): Promise<unknown> {
  return api(`clients/${id}/lock/`, { method: "POST" });
}
