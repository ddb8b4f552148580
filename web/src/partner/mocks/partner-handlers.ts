/**
 * MSW answers for the partner area's stories, in the API's shapes (docs/partner-api.md); the
 * screens parse them with their zod schemas, so a drifting mock breaks its story.
 */
import { delay, http, HttpResponse } from "msw";

import type { Role } from "../api/auth";
import {
  BACKUP_CODES,
  detail,
  EMPTY_STATS,
  ENROLMENT,
  FILTER_OPTIONS,
  member,
  rows,
  singleDeal,
  STATS,
  subPartner,
} from "./fixtures";
import { exportsHandlers } from "./exports-handlers";

const API = "/api/partner";
const FORBIDDEN = { detail: "Dafür fehlt Ihnen die Berechtigung." };

const pageOf = <T>(items: T[], count = items.length) => ({ count, page: 1, page_size: 25, results: items });

const STAFF = {
  count: 3,
  results: [
    {
      ...member(),
      is_active: true,
      created_at: "2026-01-01T09:00:00+01:00",
      last_login: "2026-03-28T08:00:00+01:00",
      invited_by: null,
      has_second_factor: true,
    },
    {
      id: 2,
      email: "ben@autohaus.example",
      name: "Ben Backoffice",
      role: "back_office",
      is_active: true,
      created_at: "2026-01-05T09:00:00+01:00",
      last_login: null,
      invited_by: 1,
      has_second_factor: true,
    },
    {
      id: 3,
      email: "clara@autohaus.example",
      name: "Clara Controlling",
      role: "viewer",
      is_active: false,
      created_at: "2026-01-09T09:00:00+01:00",
      last_login: null,
      invited_by: 1,
      has_second_factor: true,
    },
  ],
  invites: [
    {
      id: 4,
      email: "dana@autohaus.example",
      name: "Dana",
      role: "back_office",
      created_at: "2026-03-27T09:00:00+01:00",
      expires_at: "2026-03-30T09:00:00+01:00",
      invited_by: 1,
    },
  ],
};

const AUDIT = pageOf([
  {
    id: 3,
    actor: "Anna Admin",
    actor_id: 1,
    action: "quota_application.move",
    object_type: "quota.quotaapplication",
    object_id: "2",
    before: { status: "qa_entered" },
    after: { status: "qa_picked_up", reason: "Prüfung begonnen" },
    created_at: "2026-03-28T09:12:00+01:00",
  },
  {
    id: 2,
    actor: "Anna Admin",
    actor_id: 1,
    action: "sub_partner.update",
    object_type: "operations.subpartner",
    object_id: "1",
    before: { fee_share_percent: "10.00" },
    after: { fee_share_percent: "12.00" },
    created_at: "2026-03-27T16:40:00+01:00",
  },
  {
    id: 1,
    actor: "System",
    actor_id: null,
    action: "staff.invite",
    object_type: "staff.staffinvite",
    object_id: "4",
    before: null,
    after: { email: "dana@autohaus.example", role: "back_office" },
    created_at: "2026-03-27T09:00:00+01:00",
  },
]);

/** A logged-in staff member of the given role and everything the screens read. */
export function partnerHandlers({
  role = "partner_admin" as Role,
  list = rows(25),
  count = 312,
  countExact = true,
  stats = STATS,
} = {}) {
  return [
    ...exportsHandlers(role),
    http.get(`${API}/auth/csrf/`, () => new HttpResponse(null, { status: 204 })),
    http.get(`${API}/me/`, () => HttpResponse.json(member(role))),
    http.post(`${API}/auth/logout/`, () => new HttpResponse(null, { status: 204 })),
    http.get(`${API}/quota_applications/filters/`, () => HttpResponse.json(FILTER_OPTIONS)),
    http.get(`${API}/quota_applications/`, () =>
      HttpResponse.json({ ...pageOf(list, count), count_exact: countExact, page_size: 25 }),
    ),
    // The review queue (nothing to review in the stories: its menu entry stays hidden).
    http.get(`${API}/quota_applications/review/`, () =>
      HttpResponse.json({ count: 0, page: 1, page_size: 25, results: [] }),
    ),
    http.get(`${API}/quota_applications/review/report/`, () => HttpResponse.json({ results: [] })),
    http.get(`${API}/quota_applications/:id/`, ({ params }) => HttpResponse.json(detail(Number(params.id)))),
    http.post(`${API}/quota_applications/:id/corrections/`, async ({ params, request }) => {
      const { field, value } = (await request.json()) as { field: string; value: string };
      const answer = detail(Number(params.id));
      answer.registration.fields = answer.registration.fields.map((item) =>
        item.code === field
          ? { ...item, value, confidence: 1, unread: false, source: "corrected", corrected_by: member(role).name }
          : item,
      );
      return HttpResponse.json(answer);
    }),
    http.post(`${API}/quota_applications/moves/`, async ({ request }) => {
      const { ids } = (await request.json()) as { ids: number[] };
      return HttpResponse.json({
        results: ids.map((id, index) =>
          index % 2 === 0
            ? { id, ok: true }
            : {
                id,
                ok: false,
                detail: "Von „Erfasst“ ist kein Wechsel nach „Zur Auszahlung freigegeben“ möglich.",
                error_code: "QA010",
              },
        ),
      });
    }),
    http.get(`${API}/stats/`, () => HttpResponse.json(stats)),
    http.get(`${API}/sub_partners/`, () =>
      HttpResponse.json(
        pageOf([
          subPartner(1),
          subPartner(2, { name: "Wallbox-Service Süd", referral_key: "sued", is_active: false }),
          subPartner(3),
        ]),
      ),
    ),
    http.post(`${API}/sub_partners/`, () =>
      HttpResponse.json(
        { referral_key: { error_code: "SUB002", message: "Dieser Empfehlungsschlüssel ist schon vergeben." } },
        { status: 400 },
      ),
    ),
    http.get(`${API}/single_deals/`, () =>
      HttpResponse.json(
        pageOf([
          singleDeal(1),
          singleDeal(2, { vehicle_cap: null, vehicles_used: 3, legislation_years: [2025, 2026] }),
        ]),
      ),
    ),
    http.get(`${API}/staff/`, () => HttpResponse.json(STAFF)),
    http.get(`${API}/audit/`, () => HttpResponse.json(AUDIT)),
    // every payable application priced: no warning (prices-handlers.ts has the other states)
    http.get(`${API}/fees/missing/`, () => HttpResponse.json({ count: 0, groups: [] })),
  ];
}

export const emptyHandlers = [
  http.get(`${API}/sub_partners/`, () => HttpResponse.json(pageOf([]))),
  http.get(`${API}/audit/`, () => HttpResponse.json(pageOf([]))),
  ...partnerHandlers({ list: [], count: 0, stats: EMPTY_STATS }),
];

/** Every list call waits for ever (the loading state). */
export const loadingHandlers = [
  ...["quota_applications/", "stats/"].map((path) =>
    http.get(`${API}/${path}`, async () => {
      await delay("infinite");
      return HttpResponse.json({});
    }),
  ),
  ...partnerHandlers(),
];

/** The list and the figures fail: 403 (the role) and 500. */
export const errorHandlers = [
  http.get(`${API}/quota_applications/`, () => HttpResponse.json(FORBIDDEN, { status: 403 })),
  http.get(`${API}/stats/`, () => HttpResponse.json({ detail: "Interner Fehler." }, { status: 500 })),
  ...partnerHandlers(),
];

export const loginHandlers = (step: "otp" | "enrol" = "otp") => [
  http.get(`${API}/auth/csrf/`, () => new HttpResponse(null, { status: 204 })),
  http.get(`${API}/me/`, () => HttpResponse.json({ detail: "Bitte melden Sie sich an." }, { status: 401 })),
  http.post(`${API}/auth/login/`, async ({ request }) => {
    const { password } = (await request.json()) as { password: string };
    if (password === "falsch")
      return HttpResponse.json({ detail: "Benutzername oder Passwort ist falsch." }, { status: 400 });
    return HttpResponse.json(step === "otp" ? { step } : { step, enrolment: ENROLMENT });
  }),
  http.post(`${API}/auth/otp/`, () =>
    HttpResponse.json({ token: { error_code: "OTP001", message: "Der Code ist falsch." } }, { status: 400 }),
  ),
  http.post(`${API}/auth/enrol/`, () => HttpResponse.json({ backup_codes: BACKUP_CODES, me: member() })),
];

export const inviteHandlers = (valid = true) => [
  http.get(`${API}/auth/csrf/`, () => new HttpResponse(null, { status: 204 })),
  http.get(`${API}/auth/invite/:key/`, () =>
    valid
      ? HttpResponse.json({ email: "dana@autohaus.example", partner_name: "Autohaus Muster" })
      : HttpResponse.json({ detail: "Nicht gefunden." }, { status: 404 }),
  ),
  http.post(`${API}/auth/invite/:key/`, () => HttpResponse.json({ step: "enrol", enrolment: ENROLMENT })),
];
