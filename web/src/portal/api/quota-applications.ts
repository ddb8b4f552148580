/** The portal's registrations calls: the list, resubmit, advertisement clicks. */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Schemas } from "@/shared/api/typed";

import { portal } from "../lib/portal-api";

export const PAGE_SIZE = 5;

// The shapes are the server's (the portal's quota application cards), generated into
// shared/api/schema.d.ts.
export type RegistrationItem = Schemas["ApplicationCardOut"];
export type TimelineEntry = Schemas["TimelineEntryOut"];
/** The owner's credit note or payout statement (issue 46), with a short-lived download link bound to the owner. */
export type PayoutDocumentLink = Schemas["CardDocumentOut"];

export async function quotaApplications(page: number) {
  return portal.get("/api/end_user_portal/quota_applications/", { query: { page: String(page), page_size: String(PAGE_SIZE) } });
}

export function useQuotaApplications(page: number) {
  return useQuery({ queryKey: ["quota-applications", page], queryFn: () => quotaApplications(page), placeholderData: keepPreviousData, retry: false });
}

export type ResubmitPayload = { id: number; period: number; email_promotion_opt_in: boolean; free_text: string };

export async function resubmit({ id, ...form }: ResubmitPayload) {
  const body = new URLSearchParams({ period: String(form.period), email_promotion_opt_in: String(form.email_promotion_opt_in), free_text: form.free_text });
  return portal.put("/api/end_user_portal/quota_applications/{application_id}/duplicate_for_new_period/", {
    path: { application_id: id },
    form: body,
  });
}

export function useResubmit() {
  const queries = useQueryClient();
  return useMutation({ mutationFn: resubmit, onSuccess: () => queries.invalidateQueries({ queryKey: ["quota-applications"] }) });
}

/** A click on the advertisement; failures are only logged (section 8). */
export function advertisementCount(id: number): void {
  portal.post("/api/end_user_portal/advertisement_count/", { json: { partner_advertisement: id } }).catch((error: unknown) => console.warn("advertisement count", error));
}
