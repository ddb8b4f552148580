/**
 * MSW answers for the bulk upload and settlement stories, in the API's shapes
 * (docs/partner-api.md); the screens parse them with their zod schemas.
 */
import { delay, http, HttpResponse } from "msw";

import type { Role } from "../api/auth";
import {
  BATCH_LIST,
  BATCH_NEW,
  BATCH_PAID,
  BULK_LIST,
  BULK_READY,
  BULK_RUNNING,
  BULK_WITHOUT_CSV,
  SEPA_XML,
} from "./money-fixtures";
import { partnerHandlers } from "./partner-handlers";
import { payoutHandlers } from "./payout-handlers";

const API = "/api/partner";
const pageOf = <T>(items: T[]) => ({ count: items.length, page: 1, page_size: 25, results: items });
const UPLOADS = { 4: BULK_READY, 5: BULK_RUNNING, 6: BULK_WITHOUT_CSV } as Record<string, typeof BULK_READY>;
const BATCHES = { 3: BATCH_NEW, 2: { ...BATCH_PAID, id: 2 } } as Record<string, typeof BATCH_NEW>;

/** Everything the money screens read, for a staff member of the role; the refusals as the server gives them. */
export function moneyHandlers({ role = "partner_admin" as Role, empty = false, returnRefused = false } = {}) {
  return [
    ...payoutHandlers({ returnRefused }),
    http.get(`${API}/bulk_uploads/`, () => HttpResponse.json(pageOf(empty ? [] : BULK_LIST))),
    http.get(`${API}/bulk_uploads/:id/`, ({ params }) => {
      const upload = UPLOADS[String(params.id)];
      return upload ? HttpResponse.json(upload) : HttpResponse.json({ detail: "Nicht gefunden." }, { status: 404 });
    }),
    http.post(`${API}/bulk_uploads/`, () =>
      HttpResponse.json(
        {
          status: "unstructured_data_upload_failed",
          owners_csv: {
            error_code: "BULK022",
            message: "Einige Zeilen der CSV-Datei enthalten Fehler.",
            details: {
              rows: [
                { row: 2, file_name: "a.jpg", errors: { account_iban: { error_code: "IBAN001" } } },
                { row: 4, file_name: "c.pdf", errors: { email: ["Bitte geben Sie eine gültige E-Mail-Adresse ein."] } },
              ],
            },
          },
        },
        { status: 400 },
      ),
    ),
    http.post(`${API}/bulk_uploads/:id/rollback/`, () =>
      HttpResponse.json(
        {
          detail: "Zurücknehmen geht nicht mehr: Anträge dieses Uploads sind schon weiter als „Erfasst“.",
          error_code: "BULK041",
          applications: [{ id: 20, status: "qa_picked_up" }],
        },
        { status: 409 },
      ),
    ),
    http.post(`${API}/bulk_uploads/:id/items/:item/owner/`, () =>
      HttpResponse.json(
        { account_iban: { error_code: "IBAN001" }, email: ["Bitte geben Sie eine gültige E-Mail-Adresse ein."] },
        { status: 400 },
      ),
    ),
    http.get(`${API}/settlement_batches/`, () =>
      role === "partner_admin"
        ? HttpResponse.json(pageOf(empty ? [] : BATCH_LIST))
        : HttpResponse.json({ detail: "Dafür fehlt Ihnen die Berechtigung." }, { status: 403 }),
    ),
    http.get(`${API}/settlement_batches/:id/`, ({ params }) => {
      const batch = BATCHES[String(params.id)];
      return batch ? HttpResponse.json(batch) : HttpResponse.json({ detail: "Nicht gefunden." }, { status: 404 });
    }),
    http.get(`${API}/settlement_batches/:id/sepa.xml`, async () => {
      await delay(200);
      return new HttpResponse(SEPA_XML, { headers: { "Content-Type": "application/xml" } });
    }),
    http.post(`${API}/settlement_batches/:id/mark_paid/`, ({ params }) =>
      String(params.id) === "3"
        ? HttpResponse.json({ detail: "Successfully updated to status PAID", batch: { ...BATCH_PAID, id: 3 } })
        : HttpResponse.json(
            { detail: 'Settlement batch status must be "NEW"', error_code: "SETTLE001" },
            { status: 400 },
          ),
    ),
    http.post(`${API}/settlement_batches/`, () =>
      HttpResponse.json(
        {
          detail:
            "Keine der gewählten Anträge ist zur Auszahlung freigegeben und hat einen Preis und eine Bankverbindung.",
          error_code: "SETTLE002",
          skipped: [{ id: 41, sequence: 100041, detail: "Für Jahr und Fahrzeugklasse ist kein Preis hinterlegt." }],
        },
        { status: 400 },
      ),
    ),
    ...partnerHandlers({ role }),
  ];
}
