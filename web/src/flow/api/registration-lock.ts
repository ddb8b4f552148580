import { apiClient } from "@/shared/lib/http";

/** Lock image: the registration is complete (query update_related=True). */
export function registrationLock(id: number): Promise<unknown> {
  return apiClient.post("/api/bev_registrations/{registration_id}/lock/", {
    path: { registration_id: id },
    query: { update_related: "True" },
  });
}
