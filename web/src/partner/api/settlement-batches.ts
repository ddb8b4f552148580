/** Settlement batches with SEPA XML (docs/partner-api.md, "Settlement batches", partner admins only). */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Schemas } from "@/shared/api/typed";

import { APPLICATIONS_KEY } from "./applications";
import { ApiError, partner, partnerUrl } from "./client";

// The shapes are the server's (operations/schemas.py), generated into shared/api/schema.d.ts.
export type Sum = Schemas["TotalOut"];
/** A batch in the list; the SEPA file once built and kept (its ids, and the server's warning
 * once the batch is paid); four eyes: above the partner's threshold a second admin approves. */
export type Batch = Schemas["BatchSummaryOut"];
/** An erased owner's item (GDPR Art. 17): no application any more, no name, no owner type. */
export type SettlementItem = Schemas["SettlementItemOut"];
export type BatchDetail = Schemas["BatchDetailOut"];
export type Skipped = Schemas["SkippedOut"][];

export const SETTLEMENT_KEY = ["partner", "settlement_batches"] as const;

export async function batchList(query: URLSearchParams, signal?: AbortSignal) {
  return partner.get("/api/partner/settlement_batches/", { query, signal });
}

export const useBatchList = (query: URLSearchParams, enabled = true) =>
  useQuery({
    enabled,
    queryKey: [...SETTLEMENT_KEY, "list", query.toString()],
    queryFn: ({ signal }) => batchList(query, signal),
    placeholderData: keepPreviousData,
  });

export async function batchDetail(id: number, signal?: AbortSignal): Promise<BatchDetail> {
  return partner.get("/api/partner/settlement_batches/{batch_id}/", { path: { batch_id: id }, signal });
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
    mutationFn: (values: BatchCreate) => partner.post("/api/partner/settlement_batches/", { json: values }),
    onSuccess: () => invalidate(client),
  });
}

export function useBatchApprove(id: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => partner.post("/api/partner/settlement_batches/{batch_id}/approve/", { path: { batch_id: id } }),
    onSuccess: (batch) => {
      client.setQueryData([...SETTLEMENT_KEY, "detail", id], batch);
      invalidate(client);
    },
  });
}

export function useMarkPaid(id: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => partner.post("/api/partner/settlement_batches/{batch_id}/mark_paid/", { path: { batch_id: id } }),
    onSuccess: (answer) => {
      client.setQueryData([...SETTLEMENT_KEY, "detail", id], answer.batch);
      invalidate(client);
    },
  });
}

export function useItemFail(batchId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ itemId, reason }: { itemId: number; reason: string }) =>
      partner.post("/api/partner/settlement_batches/{batch_id}/items/{item_id}/fail/", {
        path: { batch_id: batchId, item_id: itemId },
        json: { reason },
      }),
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
      partner.post("/api/partner/settlement_batches/{batch_id}/items/{item_id}/iban/", {
        path: { batch_id: batchId, item_id: itemId },
        json: { account_iban, account_name },
      }),
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

export const useSepaDownload = () => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ batch, version }: { batch: { id: number; reference: string }; version: "09" | "03" }) =>
      sepaDownload(batch, version),
    // The first download builds and keeps the file: the batch shows it from then on.
    onSuccess: () => client.invalidateQueries({ queryKey: SETTLEMENT_KEY }),
  });
};
