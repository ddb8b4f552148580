/** The portal's registrations calls: the list, resubmit, advertisement clicks. */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { z } from "zod";

import { portalApi } from "../lib/portal-api";

export const PAGE_SIZE = 5;

const timelineEntrySchema = z.object({
  status: z.string(),
  position: z.enum(["past", "current", "future"]),
  details: z.object({ title: z.string(), subtitles: z.array(z.string()) }),
});

const clientSchema = z.object({
  gender: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  email: z.string(),
  street_name: z.string(),
  street_number: z.string(),
  postal_code: z.string(),
  city: z.string(),
  vehicle_owner_type: z.string(),
  name_of_business: z.string(),
  is_vat_mandatory: z.boolean().nullable(),
  vat_number: z.string(),
  account_name: z.string(),
  account_iban: z.string(),
  charge_card: z.string(),
});

/** The owner's credit note or payout statement (issue 46), with a short-lived download link bound to the owner. */
const payoutDocumentSchema = z.object({
  kind: z.enum(["credit_note", "payout_statement"]),
  kind_label: z.string(),
  number: z.string(),
  issue_date: z.string(),
  url: z.string(),
});

export const registrationItemSchema = z.object({
  id: z.number(),
  sequence: z.number(),
  legislation_year: z.number(),
  status: z.string(),
  status_timeline: z.array(timelineEntrySchema),
  client_fee: z.string().nullable(),
  display_vat: z.boolean(),
  vat_details: z.object({ client_fee_after_vat: z.string(), vat_percentage: z.string(), vat_amount: z.string() }).nullable(),
  next_year_client_fee: z.string().nullable(),
  next_year_client_fee_year: z.number(),
  next_year_client_fee_for_m1: z.string().nullable(),
  allowed_resubmit_years: z.array(z.number()),
  payout_documents: z.array(payoutDocumentSchema).default([]),
  registration: z.object({
    id: z.number(),
    uuid: z.string(),
    vehicle_type: z.string(),
    zlb_scan: z.string(),
    resized_image: z.string(),
    // the display copy is the neutral card "Dokument eingegangen" (the form was not located)
    scan_placeholder: z.boolean().default(false),
    width: z.number(),
    height: z.number(),
    source: z.string(),
    created_at: z.string(),
    client: clientSchema,
  }),
});

export type RegistrationItem = z.infer<typeof registrationItemSchema>;
export type TimelineEntry = z.infer<typeof timelineEntrySchema>;
export type PayoutDocumentLink = z.infer<typeof payoutDocumentSchema>;

const listSchema = z.object({ count: z.number(), results: z.array(registrationItemSchema) });

export async function quotaApplications(page: number) {
  const answer = await portalApi("end_user_portal/quota_applications/", { query: { page: String(page), page_size: String(PAGE_SIZE) } });
  return listSchema.parse(answer);
}

export function useQuotaApplications(page: number) {
  return useQuery({ queryKey: ["quota-applications", page], queryFn: () => quotaApplications(page), placeholderData: keepPreviousData, retry: false });
}

export type ResubmitPayload = { id: number; period: number; email_promotion_opt_in: boolean; free_text: string };

export async function resubmit({ id, ...form }: ResubmitPayload) {
  const body = new URLSearchParams({ period: String(form.period), email_promotion_opt_in: String(form.email_promotion_opt_in), free_text: form.free_text });
  return registrationItemSchema.parse(await portalApi(`end_user_portal/quota_applications/${id}/duplicate_for_new_period/`, { method: "PUT", form: body }));
}

export function useResubmit() {
  const queries = useQueryClient();
  return useMutation({ mutationFn: resubmit, onSuccess: () => queries.invalidateQueries({ queryKey: ["quota-applications"] }) });
}

/** A click on the advertisement; failures are only logged (section 8). */
export function advertisementCount(id: number): void {
  portalApi("end_user_portal/advertisement_count/", { json: { partner_advertisement: id } }).catch((error: unknown) => console.warn("advertisement count", error));
}
