/** Test and story data of the bulk upload and settlement screens, in the API's shapes (docs/partner-api.md). */
import type { BulkDetail, BulkItem, BulkUpload } from "../api/bulk-uploads";
import type { BatchDetail, SettlementItem } from "../api/settlement-batches";

const NONE = { pending: 0, accepted: 0, refused: 0, duplicate: 0 };

export function bulkUpload(id: number, change: Partial<BulkUpload> = {}): BulkUpload {
  return {
    id,
    status: "bevRegistration_bulk_created",
    status_label: "Alle Registrierungen angelegt",
    file_name: `flotte-${id}.zip`,
    size: 5_120_000,
    file_count: 3,
    has_csv: true,
    csv_encoding: "utf-8-sig",
    registration_years: [2026],
    counts: { ...NONE, accepted: 3 },
    progress: 1,
    created_at: "2026-03-28T09:15:00+01:00",
    finished_at: "2026-03-28T09:16:10+01:00",
    rolled_back_at: null,
    can_roll_back: true,
    ...change,
  };
}

export function bulkItem(position: number, change: Partial<BulkItem> = {}): BulkItem {
  return {
    id: 100 + position,
    position,
    file_name: `scan-${position + 1}.jpg`,
    size: 695_179,
    status: "accepted",
    status_label: "Angenommen",
    error_code: null,
    details: {},
    registration: {
      id: 10 + position,
      sequence: 100_010 + position,
      vin: `WBAG8B14AZRRG06${30 + position}`,
      needs_review: false,
    },
    has_owner: true,
    applications: [{ id: 20 + position, legislation_year: 2026, status: "qa_created" }],
    ...change,
  };
}

const refused = (position: number, code: string, details: Record<string, unknown> = {}): Partial<BulkItem> => ({
  status: "refused",
  status_label: "Abgelehnt",
  error_code: code,
  details,
  registration: null,
  has_owner: false,
  applications: [],
  file_name: `urlaub-${position}.jpg`,
});

/** A finished upload with the file states: accepted, refused (IMGC002), duplicate (BULK032, BULK033). */
export const BULK_READY: BulkDetail = {
  ...bulkUpload(4, {
    status: "ready",
    status_label: "Fertig (mit Ablehnungen)",
    file_count: 5,
    counts: { pending: 0, accepted: 2, refused: 1, duplicate: 2 },
  }),
  items: [
    bulkItem(0, { file_name: "a.jpg" }),
    bulkItem(1, { file_name: "b.pdf" }),
    bulkItem(2, refused(2, "IMGC002")),
    bulkItem(3, {
      ...refused(3, "BULK032", { same_as: "b.pdf" }),
      status: "duplicate",
      status_label: "Doppelt",
      file_name: "b-kopie.pdf",
    }),
    bulkItem(4, {
      ...refused(4, "BULK033", { sequence: 100010 }),
      status: "duplicate",
      status_label: "Doppelt",
      file_name: "a-nochmal.png",
    }),
  ],
};

/** Still running: 2 of 5 done. */
export const BULK_RUNNING: BulkDetail = {
  ...BULK_READY,
  id: 5,
  status: "bevRegistration_bulk_creation_in_progress",
  status_label: "Wird verarbeitet",
  counts: { pending: 3, accepted: 1, refused: 1, duplicate: 0 },
  progress: 0.4,
  finished_at: null,
  can_roll_back: false,
  items: BULK_READY.items.map((item, index) =>
    index === 0 || index === 2
      ? item
      : {
          ...item,
          status: "pending",
          status_label: "Wartet",
          error_code: null,
          details: {},
          registration: null,
          applications: [],
        },
  ),
};

/** Without CSV: the scans are in, their owners not yet (one has one). */
export const BULK_WITHOUT_CSV: BulkDetail = {
  ...bulkUpload(6, { has_csv: false, csv_encoding: "", file_count: 2, counts: { ...NONE, accepted: 2 } }),
  items: [bulkItem(0, { has_owner: false, applications: [] }), bulkItem(1, { has_owner: true })],
};

export const BULK_LIST: BulkUpload[] = [
  bulkUpload(5, {
    status: "bevRegistration_bulk_creation_in_progress",
    status_label: "Wird verarbeitet",
    progress: 0.4,
    file_count: 5,
    counts: { pending: 3, accepted: 1, refused: 1, duplicate: 0 },
    can_roll_back: false,
  }),
  bulkUpload(4, {
    status: "ready",
    status_label: "Fertig (mit Ablehnungen)",
    file_count: 5,
    counts: { pending: 0, accepted: 2, refused: 1, duplicate: 2 },
  }),
  bulkUpload(3),
  bulkUpload(2, {
    status: "bevRegistration_bulk_rejected",
    status_label: "Keine Registrierung angelegt",
    counts: { ...NONE, refused: 3 },
  }),
  bulkUpload(1, {
    status: "bevRegistration_bulk_is_rolled_back",
    status_label: "Zurückgenommen",
    can_roll_back: false,
    rolled_back_at: "2026-03-20T10:00:00+01:00",
  }),
];

export function settlementItem(id: number, change: Partial<SettlementItem> = {}): SettlementItem {
  return {
    id,
    application: {
      id: 16 + id,
      sequence: 100_016 + id,
      legislation_year: 2026,
      status: "qa_to_settle",
      status_label: "Auszahlung in Vorbereitung",
    },
    erased: false,
    payee_name: "Anna Muster",
    owner_type: "private",
    method: "sepa",
    status: "open",
    net: "85.00",
    vat_percent: "0.00",
    vat: "0.00",
    gross: "85.00",
    iban_masked: "DE89 **** **** **** **30 00",
    charge_card: "",
    end_to_end_id: `THG3-${100_016 + id}-2026`,
    failure_reason: "",
    failed_at: null,
    ...change,
  };
}

const sum = (count: number, net: string, vat: string, gross: string) => ({ count, net, vat, gross });

export const BATCH_NEW: BatchDetail = {
  id: 3,
  reference: "THG-20260328-3",
  status: "new",
  status_label: "NEW",
  execution_date: "2026-03-30",
  created_at: "2026-03-28T10:00:00+01:00",
  paid_at: null,
  totals: {
    all: sum(4, "375.00", "22.80", "397.80"),
    sepa: sum(3, "290.00", "22.80", "312.80"),
    charge_card: sum(1, "85.00", "0.00", "85.00"),
    failed: sum(0, "0.00", "0.00", "0.00"),
  },
  // not built yet; below the four-eyes threshold
  sepa_file: null,
  approval: { required: false, approved: false, approved_at: null, approved_by: null, created_by: "admin@autohaus.de" },
  items: [
    settlementItem(1),
    settlementItem(2, {
      payee_name: "Muster Logistik GmbH",
      owner_type: "business",
      net: "120.00",
      vat_percent: "19.00",
      vat: "22.80",
      gross: "142.80",
    }),
    settlementItem(3, { payee_name: "Jörg Weiß" }),
  ],
  charge_card_items: [
    settlementItem(4, {
      method: "charge_card",
      iban_masked: "",
      charge_card: "LK-1234",
      end_to_end_id: "",
      payee_name: "Eva Lade",
    }),
  ],
};

export const BATCH_PAID: BatchDetail = {
  ...BATCH_NEW,
  status: "settled",
  status_label: "PAID",
  paid_at: "2026-03-31T09:00:00+02:00",
  totals: {
    ...BATCH_NEW.totals,
    all: sum(3, "290.00", "22.80", "312.80"),
    sepa: sum(2, "205.00", "22.80", "227.80"),
    failed: sum(1, "85.00", "0.00", "85.00"),
  },
  items: [
    settlementItem(1, {
      status: "paid",
      application: { ...settlementItem(1).application, status: "qa_paid", status_label: "Ausgezahlt" },
    }),
    settlementItem(2, {
      status: "paid",
      payee_name: "Muster Logistik GmbH",
      owner_type: "business",
      net: "120.00",
      vat_percent: "19.00",
      vat: "22.80",
      gross: "142.80",
      application: { ...settlementItem(2).application, status: "qa_paid", status_label: "Ausgezahlt" },
    }),
    settlementItem(3, {
      status: "failed",
      payee_name: "Jörg Weiß",
      failure_reason: "Konto erloschen (AC04)",
      failed_at: "2026-04-02T09:00:00+02:00",
      application: {
        ...settlementItem(3).application,
        status: "qa_payment_failure",
        status_label: "Auszahlung fehlgeschlagen",
      },
    }),
  ],
  charge_card_items: [
    settlementItem(4, {
      method: "charge_card",
      status: "paid",
      iban_masked: "",
      charge_card: "LK-1234",
      end_to_end_id: "",
      payee_name: "Eva Lade",
      application: { ...settlementItem(4).application, status: "qa_paid", status_label: "Ausgezahlt" },
    }),
  ],
};

/** A paid batch with one owner erased since (GDPR Art. 17): the item keeps its number, year,
 * amounts and masked IBAN, no application, no name, no owner type. */
export const BATCH_PAID_ERASED: BatchDetail = {
  ...BATCH_PAID,
  items: BATCH_PAID.items.map((item) =>
    item.id === 1
      ? {
          ...item,
          erased: true,
          payee_name: "",
          owner_type: null,
          application: { ...item.application, id: null, status: null, status_label: "Gelöscht" },
        }
      : item,
  ),
};

const summary = ({ items: _items, charge_card_items: _cards, ...batch }: BatchDetail) => batch;
export const BATCH_LIST = [summary(BATCH_NEW), { ...summary(BATCH_PAID), id: 2, reference: "THG-20260301-2" }];

export const SEPA_XML =
  '<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"></Document>';
