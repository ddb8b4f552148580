/**
 * MSW answers for the payout documents, the batch statements, the bank's return files and the
 * failed items' actions (issue 46), in the API's shapes; part of the money stories' handlers.
 */
import { http, HttpResponse } from "msw";

import { BATCH_PAID, settlementItem } from "./money-fixtures";
import { PAID_DOCUMENTS, RETURN_RESULT } from "./payout-fixtures";

const API = "/api/partner";
const PDF = "%PDF-1.7\n%story\n";

export function payoutHandlers({ returnRefused = false } = {}) {
  const failed = BATCH_PAID.items.find((item) => item.status === "failed") ?? settlementItem(3);
  return [
    http.get(`${API}/settlement_batches/:id/documents/`, ({ params }) =>
      HttpResponse.json({ batch: Number(params.id), results: String(params.id) === "2" ? PAID_DOCUMENTS : [] }),
    ),
    http.get(`${API}/settlement_batches/:id/documents.zip`, () =>
      HttpResponse.arrayBuffer(new ArrayBuffer(4), { headers: { "Content-Type": "application/zip" } }),
    ),
    http.get(`${API}/payout_documents/:id/document.pdf`, () =>
      HttpResponse.text(PDF, { headers: { "Content-Type": "application/pdf" } }),
    ),
    http.get(`${API}/quota_applications/:id/payout_documents/`, ({ params }) =>
      HttpResponse.json({
        application: Number(params.id),
        results: PAID_DOCUMENTS.filter((document) => document.application_id === Number(params.id)),
      }),
    ),
    http.post(`${API}/settlement_returns/`, () =>
      returnRefused
        ? HttpResponse.json(
            {
              file: {
                error_code: "RETURN001",
                message: "Bitte laden Sie eine Rückmeldung der Bank als camt.054 oder pain.002 (XML) hoch.",
              },
            },
            { status: 400 },
          )
        : HttpResponse.json(RETURN_RESULT),
    ),
    http.post(`${API}/settlement_batches/:id/items/:item/requeue/`, () =>
      HttpResponse.json({
        ...failed,
        application: { ...failed.application, status: "qa_to_pay", status_label: "Zur Auszahlung freigegeben" },
      }),
    ),
    http.post(`${API}/settlement_batches/:id/items/:item/paid/`, () =>
      HttpResponse.json({
        ...failed,
        status: "paid",
        failure_reason: "",
        application: { ...failed.application, status: "qa_paid", status_label: "Ausgezahlt" },
      }),
    ),
  ];
}
