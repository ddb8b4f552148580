/**
 * Issue 46's partner calls: the payout documents (credit notes, payout statements, their
 * e-invoices) per batch and per application, the batch's statements, the bank's return files
 * (camt.054 / pain.002) and the failed items' re-queue and confirmed payment.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Schemas } from "@/shared/api/typed";

import { APPLICATIONS_KEY } from "./applications";
import { partner, partnerUrl } from "./client";
import { SETTLEMENT_KEY } from "./settlement-batches";

export type PayoutDocument = Schemas["DocumentOut"];

const DOCUMENTS_KEY = ["partner", "payout_documents"] as const;

export async function batchDocuments(batchId: number, signal?: AbortSignal) {
  return partner.get("/api/partner/settlement_batches/{batch_id}/documents/", { path: { batch_id: batchId }, signal });
}

export const useBatchDocuments = (batchId: number, enabled = true) =>
  useQuery({
    enabled,
    queryKey: [...SETTLEMENT_KEY, "documents", batchId],
    queryFn: ({ signal }) => batchDocuments(batchId, signal),
  });

export async function applicationDocuments(applicationId: number, signal?: AbortSignal) {
  return partner.get("/api/partner/quota_applications/{application_id}/payout_documents/", {
    path: { application_id: applicationId },
    signal,
  });
}

export const useApplicationDocuments = (applicationId: number, enabled = true) =>
  useQuery({
    enabled,
    queryKey: [...DOCUMENTS_KEY, "application", applicationId],
    queryFn: ({ signal }) => applicationDocuments(applicationId, signal),
    retry: false,
  });

/** The download addresses (the session cookie authenticates a plain link). */
export const DOWNLOADS = {
  pdf: (document: { id: number }) => partnerUrl(`payout_documents/${document.id}/document.pdf`),
  xml: (document: { id: number }) => partnerUrl(`payout_documents/${document.id}/einvoice.xml`),
  zip: (batchId: number) => partnerUrl(`settlement_batches/${batchId}/documents.zip`),
  statementCsv: (batchId: number) => partnerUrl(`settlement_batches/${batchId}/statement.csv`),
  statementPdf: (batchId: number) => partnerUrl(`settlement_batches/${batchId}/statement.pdf`),
  commissionCsv: (month: string) => partnerUrl("reports/sub_partner_commissions.csv", { month }),
  commissionPdf: (month: string) => partnerUrl("reports/sub_partner_commissions.pdf", { month }),
};

/** A return file's outcome; `paid`: failed transfers a pain.002 reports settled (ACSC, ACCC),
 * confirmed paid after all. */
export type ReturnResult = Schemas["ReturnFileOut"];

function invalidate(client: ReturnType<typeof useQueryClient>) {
  void client.invalidateQueries({ queryKey: SETTLEMENT_KEY });
  void client.invalidateQueries({ queryKey: APPLICATIONS_KEY });
  void client.invalidateQueries({ queryKey: DOCUMENTS_KEY });
}

/** The bank's return file: the named transfers' items move to payment failure. */
export function useReturnUpload() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (file: File) => {
      const form = new FormData();
      form.append("file", file);
      return partner.post("/api/partner/settlement_returns/", { form });
    },
    onSuccess: () => invalidate(client),
  });
}

/** A failed payout back to "released for payout" as it is, for the next batch. */
export function useItemRequeue(batchId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (itemId: number) =>
      partner.post("/api/partner/settlement_batches/{batch_id}/items/{item_id}/requeue/", {
        path: { batch_id: batchId, item_id: itemId },
      }),
    onSuccess: () => invalidate(client),
  });
}

/** A payout recorded as failed that the bank paid after all: the application to "paid". */
export function useItemPaid(batchId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ itemId, note }: { itemId: number; note: string }) =>
      partner.post("/api/partner/settlement_batches/{batch_id}/items/{item_id}/paid/", {
        path: { batch_id: batchId, item_id: itemId },
        json: { note },
      }),
    onSuccess: () => invalidate(client),
  });
}
