/** Test and story data for the partner area, in the API's shapes (docs/partner-api.md). */
import type { ApplicationDetail, ApplicationRow, FilterOptions, ReadingField } from "../api/applications";
import type { Me, Role } from "../api/auth";
import type { SingleDeal, SubPartner } from "../api/operations";
import type { Stats } from "../api/admin";

export function member(role: Role = "partner_admin", change: Partial<Me> = {}): Me {
  return { id: 1, email: "anna@autohaus.example", name: "Anna Admin", role, language: "de", ...change };
}

const STATUSES: [string, string][] = [
  ["qa_created", "Registrierung eingegangen"],
  ["qa_entered", "Erfasst"],
  ["qa_picked_up", "In Prüfung"],
  ["qa_sent_to_uba", "An das Umweltbundesamt übermittelt"],
  ["qa_accepted", "Vom Umweltbundesamt bestätigt"],
  ["qa_rejected_by_partner", "Vom Partner abgelehnt"],
  ["qa_to_pay", "Zur Auszahlung freigegeben"],
  ["qa_paid", "Ausgezahlt"],
];
const LABEL = Object.fromEntries(STATUSES);

export const FILTER_OPTIONS: FilterOptions = {
  statuses: STATUSES.map(([value, label]) => ({ value, label })),
  years: [2025, 2026],
  vehicle_classes: ["M1", "N1"],
  sub_partners: [
    { id: 1, name: "Elektro Meier" },
    { id: 2, name: "Wallbox-Service Süd" },
  ],
  single_deals: [{ id: 1, name: "Flotte Stadtwerke" }],
};

const OWNERS = ["Erika Mustermann", "Max Müller", "Aylin Yılmaz", "Jonas Becker", "Sophie Wagner", "Lukas Schmidt"];

export function row(id: number, change: Partial<ApplicationRow> = {}): ApplicationRow {
  const [status, label] = STATUSES[id % STATUSES.length];
  return {
    id,
    sequence: 100000 + id,
    legislation_year: 2026,
    status,
    status_label: label,
    created_at: `2026-03-${String((id % 27) + 1).padStart(2, "0")}T10:${String(id % 60).padStart(2, "0")}:00+01:00`,
    updated_at: "2026-03-28T09:00:00+01:00",
    vin: `WVWZZZ1KZAW${String(100000 + id).slice(-6)}`,
    vehicle_class: id % 5 === 0 ? "N1" : "M1",
    owner_name: OWNERS[id % OWNERS.length],
    owner_type: "private",
    sub_partner: id % 3 === 0 ? FILTER_OPTIONS.sub_partners[0] : null,
    single_deal: id % 7 === 0 ? FILTER_OPTIONS.single_deals[0] : null,
    fee_gross: "101.15",
    ...change,
  };
}

export function rows(count: number, start = 1): ApplicationRow[] {
  return Array.from({ length: count }, (_, index) => row(start + index));
}

/** What the reader found on the fixture's document: each field with its confidence. */
export function readingFields(vin: string | null): ReadingField[] {
  const read = (code: string, name: string, value: string | null, confidence: number | null): ReadingField => ({
    code,
    name,
    value,
    confidence,
    unread: false,
    source: "reader",
    corrected_by: null,
    corrected_at: null,
  });
  return [
    read("E", "vin", vin, 0.93),
    read("B", "first_registration", "2023-05-17", 0.88),
    read("I", "registration_date", "2024-01-09", 0.9),
    read("J", "vehicle_class", "M1", 0.97),
    read("10", "energy_code", "0004", 0.95),
    read("P.3", "fuel", "ELEKTRO", 0.91),
    read("D.1", "make", "VOLKSWAGEN", 0.86),
    read("D.3", "model", "ID.3", 0.74),
    { ...read("A", "plate", null, null), unread: true },
    read("2.1", "maker_key", "0603", 0.9),
  ];
}

export function detail(id: number, change: Partial<ApplicationDetail> = {}): ApplicationDetail {
  const base = row(id, { status: "qa_picked_up", status_label: LABEL.qa_picked_up });
  return {
    ...base,
    registration: {
      uuid: "00000000-0000-4000-8000-000000000001",
      scan_url: "/story-scan.svg",
      resized_url: "/story-scan.svg",
      source: "web",
      vin: base.vin,
      first_registration: "2023-05-17",
      vehicle_class: "M1",
      energy_code: "0004",
      is_electric: true,
      needs_review: false,
      classifier_skipped: false,
      registration_date: "2024-01-09",
      make: "VOLKSWAGEN",
      model: "ID.3",
      fuel: "ELEKTRO",
      plate: "",
      maker_key: "0603",
      fields: readingFields(base.vin),
      unread: [],
      corrections: [],
      decided_by: {},
      field_boxes: {},
      check_digit: "",
      holder_name: "",
      holder_first_names: "",
      holder_mismatch: false,
    },
    agreement: {
      legislation_year: base.legislation_year,
      agreed_at: "2026-03-01T09:58:12+01:00",
      text_version: "3f5e9c1a7b2d4e6f8a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f",
      text: "Ich akzeptiere die Allgemeinen Geschäftsbedingungen.",
      channel: "web",
      channel_label: "Registrierung",
    },
    client: {
      name: "Erika Mustermann",
      address: "Hauptstraße 12a, 10115 Berlin",
      email: "erika@example.de",
      owner_type: "private",
      business_name: "",
      iban_masked: "DE89 **** **** **** **30 00",
    },
    history: [
      {
        status: "qa_created",
        status_label: LABEL.qa_created,
        reason: "",
        actor: "Kunde",
        created_at: "2026-03-01T10:00:00+01:00",
      },
      {
        status: "qa_entered",
        status_label: LABEL.qa_entered,
        reason: "",
        actor: "System",
        created_at: "2026-03-01T10:05:00+01:00",
      },
      {
        status: "qa_picked_up",
        status_label: LABEL.qa_picked_up,
        reason: "Prüfung begonnen",
        actor: "Anna Admin",
        created_at: "2026-03-03T08:30:00+01:00",
      },
    ],
    allowed_moves: [
      { status: "qa_sent_to_uba", status_label: LABEL.qa_sent_to_uba },
      { status: "qa_rejected_by_partner", status_label: LABEL.qa_rejected_by_partner },
    ],
    ...change,
  };
}

export function subPartner(id: number, change: Partial<SubPartner> = {}): SubPartner {
  return {
    id,
    name: id === 1 ? "Elektro Meier" : `Installateur ${id}`,
    contact_name: "Karl Meier",
    contact_email: "karl@meier.example",
    contact_phone: "+49 30 123456",
    referral_key: `meier-${id}`,
    fee_share_percent: "10.00",
    is_active: true,
    application_count: 12 * id,
    created_at: "2026-01-10T09:00:00+01:00",
    ...change,
  };
}

export function singleDeal(id: number, change: Partial<SingleDeal> = {}): SingleDeal {
  return {
    id,
    name: id === 1 ? "Flotte Stadtwerke" : `Flottenvertrag ${id}`,
    customer: "Stadtwerke Musterstadt GmbH",
    deal_key: `flotte-${id}`,
    price_net: "70.00",
    vat_percent: "19.00",
    price_gross: "83.30",
    legislation_years: [2026],
    vehicle_cap: 50,
    vehicles_used: 12,
    is_active: true,
    created_at: "2026-02-01T09:00:00+01:00",
    ...change,
  };
}

export const STATS: Stats = {
  period: { from: "2026-03-01", to: "2026-03-14", days: 14 },
  previous_period: { from: "2026-02-15", to: "2026-02-28", days: 14 },
  // the change shown against each (none for "paid": its previous period was empty)
  tiles: [
    { key: "new", status: null, value: 118, previous: 97 },
    { key: "in_review", status: "qa_picked_up", value: 96, previous: 101 },
    { key: "submitted", status: "qa_sent_to_uba", value: 80, previous: 80 },
    { key: "certified", status: "qa_accepted", value: 61, previous: 48 },
    { key: "paid", status: "qa_paid", value: 45, previous: 0 },
    { key: "payout_sum", status: null, value: "3825.00", previous: "2970.50" },
  ],
  per_day: Array.from({ length: 14 }, (_, index) => ({
    date: `2026-03-${String(index + 1).padStart(2, "0")}`,
    count: [4, 7, 5, 9, 12, 8, 3, 6, 10, 14, 11, 9, 7, 13][index],
  })),
  funnel: { flow_started: 420, code_verified: 310, scan_accepted: 260, billing_locked: 218 },
  status_distribution: STATUSES.map(([status, label], index) => ({
    status,
    label,
    count: [18, 40, 35, 60, 45, 7, 12, 24][index],
  })),
  payouts: { owed_gross: "4521.30", paid_gross: "12876.45" },
  per_sub_partner: [
    { id: 1, name: "Elektro Meier", count: 54, fee_share_percent: "10.00", fee_share_gross: "546.21" },
    { id: 2, name: "Wallbox-Service Süd", count: 31, fee_share_percent: "10.00", fee_share_gross: "313.57" },
  ],
};

export const EMPTY_STATS: Stats = {
  period: null,
  previous_period: null,
  tiles: [
    { key: "new", status: null, value: 0, previous: null },
    { key: "in_review", status: "qa_picked_up", value: 0, previous: null },
    { key: "submitted", status: "qa_sent_to_uba", value: 0, previous: null },
    { key: "certified", status: "qa_accepted", value: 0, previous: null },
    { key: "paid", status: "qa_paid", value: 0, previous: null },
    { key: "payout_sum", status: null, value: "0.00", previous: null },
  ],
  per_day: [],
  funnel: { flow_started: 0, code_verified: 0, scan_accepted: 0, billing_locked: 0 },
  status_distribution: [],
  payouts: { owed_gross: "0.00", paid_gross: "0.00" },
  per_sub_partner: [],
};

export const ENROLMENT = {
  qr_svg:
    "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAxMCAxMCI+PHJlY3Qgd2lkdGg9IjEwIiBoZWlnaHQ9IjEwIiBmaWxsPSIjZmZmIi8+PHJlY3Qgd2lkdGg9IjQiIGhlaWdodD0iNCIvPjxyZWN0IHg9IjYiIHdpZHRoPSI0IiBoZWlnaHQ9IjQiLz48cmVjdCB5PSI2IiB3aWR0aD0iNCIgaGVpZ2h0PSI0Ii8+PC9zdmc+",
  secret: "JBSWY3DPEHPK3PXP",
  otpauth_uri: "otpauth://totp/Autohaus:anna%40autohaus.example?secret=JBSWY3DPEHPK3PXP&issuer=Autohaus",
};

export const BACKUP_CODES = [
  "k3p9x2mq",
  "t7w4b8zr",
  "h2n6c5vd",
  "q8f3j7ks",
  "m5r2y9gt",
  "w4d8p3xn",
  "b9v6k2hc",
  "z3t7q5fm",
  "c6j2w8rp",
  "x7g4n3bd",
];
