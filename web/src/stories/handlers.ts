/**
 * MSW answers for the stories, in the real API's shapes: the app parses every answer with its
 * zod schemas, so a mock that drifts from the contract breaks its story, not a user.
 */
import { delay, http, HttpResponse } from "msw";

import type { RegistrationItem } from "@/portal/api/quota-applications";

export const TOKENS = { access: "story-access", refresh: "story-refresh" };
const YEAR = new Date().getFullYear();

export function registration(sequence: number, change: Partial<RegistrationItem> = {}): RegistrationItem {
  return {
    id: sequence,
    sequence,
    legislation_year: YEAR,
    status: "qa_sent_to_uba",
    status_timeline: [
      { status: "qa_created", position: "past", details: { title: "Registrierung eingegangen", subtitles: [] } },
      { status: "qa_entered", position: "past", details: { title: "Erfasst", subtitles: [] } },
      { status: "qa_picked_up", position: "past", details: { title: "In Prüfung", subtitles: [] } },
      {
        status: "qa_sent_to_uba",
        position: "current",
        details: {
          title: "An das Umweltbundesamt übermittelt",
          subtitles: ["Das Umweltbundesamt prüft Ihre Quote.", "12.03.2026"],
        },
      },
      { status: "qa_accepted", position: "future", details: { title: "Vom Umweltbundesamt bestätigt", subtitles: [] } },
      { status: "qa_to_pay", position: "future", details: { title: "Zur Auszahlung freigegeben", subtitles: [] } },
      { status: "qa_paid", position: "future", details: { title: "Ausgezahlt", subtitles: [] } },
    ],
    client_fee: "85.00",
    display_vat: true,
    vat_details: { client_fee_after_vat: "101.15", vat_percentage: "19", vat_amount: "16.15" },
    next_year_client_fee: null,
    next_year_client_fee_year: YEAR + 1,
    next_year_client_fee_for_m1: null,
    allowed_resubmit_years: [YEAR + 1],
    payout_documents: [],
    registration: {
      id: sequence,
      uuid: `00000000-0000-4000-8000-${String(sequence).padStart(12, "0")}`,
      vehicle_type: "M1",
      zlb_scan: "/story-scan.svg",
      resized_image: "/story-scan.svg",
      scan_placeholder: false,
      width: 1600,
      height: 1100,
      source: "B2C-FE",
      created_at: `${YEAR}-03-01T10:00:00+01:00`,
      client: {
        gender: "woman",
        first_name: "Erika",
        last_name: "Mustermann",
        email: "erika@example.de",
        street_name: "Hauptstraße",
        street_number: "12a",
        postal_code: "10115",
        city: "Berlin",
        vehicle_owner_type: "private",
        name_of_business: "",
        is_vat_mandatory: null,
        vat_number: "",
        account_name: "Erika Mustermann",
        account_iban: "DE89 **** **** **** **30 00",
        charge_card: "",
      },
    },
    ...change,
  };
}

export const REJECTED = registration(100002, {
  status: "qa_rejected_by_partner",
  allowed_resubmit_years: [],
  status_timeline: [
    { status: "qa_created", position: "past", details: { title: "Registrierung eingegangen", subtitles: [] } },
    { status: "qa_entered", position: "past", details: { title: "Erfasst", subtitles: [] } },
    {
      status: "qa_rejected_by_partner",
      position: "current",
      details: { title: "Vom Partner abgelehnt", subtitles: ["Der Fahrzeugschein ist abgelaufen."] },
    },
  ],
});

const profile = http.get("/api/auth/user/profile/end-user-portal/", () =>
  HttpResponse.json([
    {
      email: "erika@example.de",
      first_name: "Erika",
      last_name: "Mustermann",
      username: "erika@example.de",
      partner: { subdomain: "autohaus", name: "Autohaus", is_eon_partner: false },
    },
  ]),
);

export function portalHandlers(items: RegistrationItem[], count = items.length) {
  return [
    profile,
    http.get("/api/end_user_portal/quota_applications/", () => HttpResponse.json({ count, results: items })),
    http.post("/api/end_user_portal/advertisement_count/", () => HttpResponse.json({ id: 1 }, { status: 201 })),
    http.put("/api/end_user_portal/quota_applications/:id/duplicate_for_new_period/", () =>
      HttpResponse.json({ detail: "Vehicle id already exist for this period", error_code: "QA001" }, { status: 400 }),
    ),
  ];
}

export const loadingForever = [
  profile,
  http.get("/api/end_user_portal/quota_applications/", async () => {
    await delay("infinite");
    return HttpResponse.json({});
  }),
];

/** The session-expiry flow: the list says 401 once, the refresh gives new tokens. */
export function expiringSession(items: RegistrationItem[]) {
  let refreshed = false;
  return [
    http.post("/api/auth/user/token/refresh/", () => {
      refreshed = true;
      return HttpResponse.json({ access: "story-access-2", refresh: "story-refresh-2" });
    }),
    http.get("/api/auth/user/profile/end-user-portal/", () =>
      refreshed
        ? HttpResponse.json([{ email: "erika@example.de", first_name: "Erika", last_name: "Mustermann" }])
        : new HttpResponse(null, { status: 401 }),
    ),
    http.get("/api/end_user_portal/quota_applications/", () =>
      refreshed ? HttpResponse.json({ count: items.length, results: items }) : new HttpResponse(null, { status: 401 }),
    ),
  ];
}

export const resetLink = [
  http.get("/api/auth/user/password-reset/verify/:token/:id/", () =>
    HttpResponse.json({ detail: "ok", email: "erika@example.de", is_user_creation: false }),
  ),
];

export const invalidResetLink = [
  http.get("/api/auth/user/password-reset/verify/:token/:id/", () =>
    HttpResponse.json({ detail: "invalid", error_code: "RESET001" }, { status: 400 }),
  ),
];

export const signupKey = [
  http.post("/api/end_user_portal/verify_token/", () =>
    HttpResponse.json({ email_address: "erika@example.de", token: TOKENS, is_unknown_user: true }),
  ),
];

export const wrongCode = [
  http.post("/api/auth/registration/otp/verify/", () =>
    HttpResponse.json({ detail: "Ungültiger Code", error_code: "OTP001" }, { status: 400 }),
  ),
];

/** The scan limits as the server's default configuration has them (SCAN_MIN_SIZE, SCAN_MAX_PIXELS). */
export const SCAN_LIMITS = { min_size: 500, max_pixels: 25_000_000 };

export const systemConstraints = [
  http.get("/api/system_constraints/", () =>
    HttpResponse.json({ bev_registration: { zlb_scan_constraints: SCAN_LIMITS } }),
  ),
];

/** The server's answer to a refused scan (registrations/intake.py): IMGC001 names the size and both limits. */
export type ScanErrorCode =
  "IMGC001" | "IMGC002" | "IMGC003" | "IMGC004" | "IMGC005" | "IMGC007" | "IMGC008" | "IMGC009";

/** What the server names beside a code: the size and limits, the value read that refused it. */
const SCAN_ERROR_DETAILS: Partial<Record<ScanErrorCode, Record<string, unknown>>> = {
  IMGC001: { given_width: 320, given_height: 240, ...SCAN_LIMITS },
  IMGC008: { energy_code: "0001", fuel: "Benzin" },
  IMGC009: { vehicle_class: "L1e" },
};

export function scanErrorBody(code: ScanErrorCode) {
  return {
    zlb_scan: {
      error_code: code,
      details: SCAN_ERROR_DETAILS[code] ?? {},
    },
  };
}

export function scanError(code: ScanErrorCode) {
  return [
    ...systemConstraints,
    http.post("/api/bev_registrations/", () => HttpResponse.json(scanErrorBody(code), { status: 400 })),
  ];
}

export const verifyingForever = [
  http.post("/api/auth/registration/email/verify/", async () => {
    await delay("infinite");
    return HttpResponse.json({});
  }),
];
