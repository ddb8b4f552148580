/** Settlement batches with SEPA XML (docs/partner-api.md, "Settlement batches", partner admins only). */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { z } from "zod";

import { APPLICATIONS_KEY } from "./applications";
import { ApiError, partnerApi, partnerUrl } from "./client";

const sumSchema = z.object({ count: z.number(), net: z.string(), vat: z.string(), gross: z.string() });
export type Sum = z.infer<typeof sumSchema>;

export const batchSchema = z.object({
  id: z.number(),
  reference: z.string(),
  status: z.enum(["new", "settled"]),
  status_label: z.string(),
  execution_date: z.string(),
  created_at: z.string(),
  paid_at: z.string().nullable(),
  totals: z.object({ all: sumSchema, sepa: sumSchema, charge_card: sumSchema, failed: sumSchema }),
});
export type Batch = z.infer<typeof batchSchema>;

export const settlementItemSchema = z.object({
  id: z.number(),
  // An erased owner's item (GDPR Art. 17): no application any more, no name, no owner type.
  application: z.object({
    id: z.number().nullable(),
    sequence: z.number(),
    legislation_year: z.number(),
    status: z.string().nullable(),
    status_label: z.string(),
  }),
  erased: z.boolean().optional(),
  payee_name: z.string(),
  owner_type: z.enum(["private", "business"]).nullable(),
  method: z.enum(["sepa", "charge_card"]),
  status: z.enum(["open", "paid", "failed"]),
  net: z.string(),
  vat_percent: z.string(),
  vat: z.string(),
  gross: z.string(),
  iban_masked: z.string(),
  charge_card: z.string(),
  end_to_end_id: z.string(),
  failure_reason: z.string(),
  failed_at: z.string().nullable(),
});
export type SettlementItem = z.infer<typeof settlementItemSchema>;

export const batchDetailSchema = batchSchema.extend({
  items: z.array(settlementItemSchema),
  charge_card_items: z.array(settlementItemSchema),
});
export type BatchDetail = z.infer<typeof batchDetailSchema>;

const skippedSchema = z.array(z.object({ id: z.number(), detail: z.string() }));
export const createdSchema = batchDetailSchema.extend({ skipped: skippedSchema });
export type Skipped = z.infer<typeof skippedSchema>;

export const SETTLEMENT_KEY = ["partner", "settlement_batches"] as const;

export async function batchList(query: URLSearchParams, signal?: AbortSignal) {
  return z
    .object({ count: z.number(), results: z.array(batchSchema) })
    .parse(await partnerApi("settlement_batches/", { query, signal }));
}

export const useBatchList = (query: URLSearchParams, enabled = true) =>
  useQuery({
    enabled,
    queryKey: [...SETTLEMENT_KEY, "list", query.toString()],
    queryFn: ({ signal }) => batchList(query, signal),
    placeholderData: keepPreviousData,
  });

export async function batchDetail(id: number, signal?: AbortSignal): Promise<BatchDetail> {
  return batchDetailSchema.parse(await partnerApi(`settlement_batches/${id}/`, { signal }));
}

export const useBatch = (id: number, enabled = true) =>
  useQuery({
    enabled,
    queryKey: [...SETTLEMENT_KEY, "detail", id],
    queryFn: ({ signal }) => batchDetail(id, signal),
  });

/** By filters, or by the ids selected in the applications grid (both: the rows matching both). */
export type BatchCreate = {
  ids?: number[];
  filters?: {
    legislation_year?: number;
    vehicle_class?: string;
    sub_partner?: number;
    single_deal?: number;
    created_from?: string;
    created_to?: string;
  };
  execution_date?: string;
};

function invalidate(client: ReturnType<typeof useQueryClient>) {
  void client.invalidateQueries({ queryKey: SETTLEMENT_KEY });
  void client.invalidateQueries({ queryKey: APPLICATIONS_KEY });
}

export function useBatchCreate() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (values: BatchCreate) =>
      createdSchema.parse(await partnerApi("settlement_batches/", { json: values })),
    onSuccess: () => invalidate(client),
  });
}

export function useMarkPaid(id: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async () =>
      z
        .object({ detail: z.string(), batch: batchDetailSchema })
        .parse(await partnerApi(`settlement_batches/${id}/mark_paid/`, { method: "POST" })),
    onSuccess: (answer) => {
      client.setQueryData([...SETTLEMENT_KEY, "detail", id], answer.batch);
      invalidate(client);
    },
  });
}

export function useItemFail(batchId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ itemId, reason }: { itemId: number; reason: string }) =>
      settlementItemSchema.parse(
        await partnerApi(`settlement_batches/${batchId}/items/${itemId}/fail/`, { json: { reason } }),
      ),
    onSuccess: () => invalidate(client),
  });
}

export function useItemIban(batchId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({
      itemId,
      account_iban,
      account_name,
    }: {
      itemId: number;
      account_iban: string;
      account_name: string;
    }) =>
      settlementItemSchema.parse(
        await partnerApi(`settlement_batches/${batchId}/items/${itemId}/iban/`, {
          json: { account_iban, account_name },
        }),
      ),
    onSuccess: () => invalidate(client),
  });
}

/**
 * The SEPA file as a download: fetched first (the session cookie), so that a refusal (no
 * payout account, nothing to transfer) is shown as the server's message instead of being saved.
 */
export async function sepaDownload(batch: { id: number; reference: string }, version: "09" | "03"): Promise<void> {
  const response = await fetch(partnerUrl(`settlement_batches/${batch.id}/sepa.xml`, { version }), {
    credentials: "same-origin",
    headers: { Accept: "application/xml, application/json" },
  });
  if (!response.ok) {
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: the text is the body
    }
    throw new ApiError(response.status, body);
  }
  const blob = await response.blob();
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = `${batch.reference}-pain.001.001.${version}.xml`;
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export const useSepaDownload = () =>
  useMutation({
    mutationFn: ({ batch, version }: { batch: { id: number; reference: string }; version: "09" | "03" }) =>
      sepaDownload(batch, version),
  });
