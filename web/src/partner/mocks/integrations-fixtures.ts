/** Keys, webhooks and deliveries of the interfaces page, in the API's shapes (stories, tests). */
import type { ApiKey, Delivery, Webhook } from "../api/integrations";

export const API_KEYS: ApiKey[] = [
  {
    id: 1,
    name: "Flottensystem",
    scope: "write",
    key_hint: "thg_k3v9x2m1qa_…",
    state: "active",
    created_by: "Anna Admin",
    created_at: "2026-03-01T09:00:00+01:00",
    rotated_at: null,
    revoked_at: null,
    last_used_at: "2026-03-28T07:45:00+01:00",
  },
  {
    id: 2,
    name: "Controlling (Export)",
    scope: "read",
    key_hint: "thg_p0w8e7r6t5_…",
    state: "dormant",
    created_by: "Bernd Früher",
    created_at: "2026-01-10T10:00:00+01:00",
    rotated_at: null,
    revoked_at: null,
    last_used_at: null,
  },
  {
    id: 3,
    name: "Alter Zugang",
    scope: "read",
    key_hint: "thg_a1b2c3d4e5_…",
    state: "revoked",
    created_by: "Anna Admin",
    created_at: "2025-11-02T10:00:00+01:00",
    rotated_at: "2026-01-05T10:00:00+01:00",
    revoked_at: "2026-02-01T10:00:00+01:00",
    last_used_at: "2026-01-31T18:00:00+01:00",
  },
];

export const NEW_KEY = "thg_n3wk3y0001_Zx8Qm2Lr5Tp9Vw1Yb4Nc7Hd0Jf3Kg6Ms9Pq2Rt5Uv8W";
export const NEW_SECRET = "whsec_Fq7Lm2Nx9Pw4Rz1Tb6Vc3Yd8Hk5Js0Gu7Ea2Qo9Ws4";

export const WEBHOOKS: Webhook[] = [
  {
    id: 7,
    url: "https://flotte.example.com/thg/webhooks",
    events: ["application.status_changed", "payout.paid", "payout.failed"],
    is_active: true,
    created_by: "Anna Admin",
    created_at: "2026-03-02T09:00:00+01:00",
    last_delivery_status: "failed",
    last_delivery_at: "2026-03-28T07:46:00+01:00",
  },
];

const attempt = (at: string, status_code: number | null, error = "", manual = false) => ({
  at,
  manual,
  status_code,
  error,
  duration_ms: 180,
});

export const DELIVERIES: Delivery[] = [
  {
    id: 31,
    uuid: "4f1c1b9e-2a3d-4e5f-8a9b-0c1d2e3f4a5b",
    endpoint_id: 7,
    event_id: "7d2e0c4a-1b2c-4d3e-9f8a-7b6c5d4e3f2a",
    event_type: "application.status_changed",
    occurred_at: "2026-03-28T07:45:10+01:00",
    status: "pending",
    tries: 2,
    next_attempt_at: "2026-03-28T08:16:00+01:00",
    delivered_at: null,
    created_at: "2026-03-28T07:46:00+01:00",
    payload: { type: "application.status_changed" },
    attempts: [
      attempt("2026-03-28T07:46:00+01:00", 500, "HTTP 500"),
      attempt("2026-03-28T07:47:00+01:00", null, "Zeitüberschreitung"),
    ],
  },
  {
    id: 30,
    uuid: "0a9b8c7d-6e5f-4a3b-2c1d-0e9f8a7b6c5d",
    endpoint_id: 7,
    event_id: "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d",
    event_type: "payout.paid",
    occurred_at: "2026-03-27T16:00:00+01:00",
    status: "delivered",
    tries: 1,
    next_attempt_at: null,
    delivered_at: "2026-03-27T16:01:00+01:00",
    created_at: "2026-03-27T16:01:00+01:00",
    payload: { type: "payout.paid" },
    attempts: [attempt("2026-03-27T16:01:00+01:00", 200)],
  },
];
