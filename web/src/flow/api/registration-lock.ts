import { api } from "@/shared/lib/http";

/** Lock image: the registration is complete (query update_related=True). */
export function registrationLock(id: number): Promise<unknown> {
  return api(`bev_registrations/${id}/lock/`, { method: "POST", query: { update_related: "True" } });
}
