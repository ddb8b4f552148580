/** The payout documents and bank return answers of the tests and stories (issue 46), in the API's shapes. */
import type { PayoutDocument, ReturnResult } from "../api/payout-documents";

export function payoutDocument(id: number, change: Partial<PayoutDocument> = {}): PayoutDocument {
  return {
    id,
    kind: "payout_statement",
    kind_label: "Auszahlungsbeleg",
    number: `AB-AUTOHAUS-${String(id).padStart(6, "0")}`,
    issue_date: "2026-03-31",
    vat_mode: "private",
    net: "85.00",
    vat: "0.00",
    gross: "85.00",
    application_id: 17,
    has_einvoice: false,
    ...change,
  };
}

/** The paid batch's (BATCH_PAID) documents: a private owner's statement, a business owner's credit note. */
export const PAID_DOCUMENTS: PayoutDocument[] = [
  payoutDocument(1, { application_id: 17 }),
  payoutDocument(2, {
    kind: "credit_note",
    kind_label: "Gutschrift",
    number: "GS-AUTOHAUS-000001",
    vat_mode: "standard",
    net: "120.00",
    vat: "22.80",
    gross: "142.80",
    application_id: 18,
    has_einvoice: true,
  }),
  payoutDocument(3, { number: "AB-AUTOHAUS-000002", application_id: 20 }),
];

/** A camt.054 naming one returned transfer of batch 2, one failed before and one of nobody here. */
export const RETURN_RESULT: ReturnResult = {
  kind: "camt.054",
  returned: 3,
  failed: [
    {
      item: 3,
      batch: 2,
      application: 19,
      end_to_end_id: "THG2-100019-2026",
      code: "AC04",
      reason: "Rückmeldung der Bank AC04: Konto erloschen",
    },
  ],
  paid: [],
  already_failed: ["THG2-100017-2026"],
  unknown: ["FREMD-4711"],
};
