/** Dashboard figures, staff and audit (docs/partner-api.md, "Dashboard", "Staff and audit"). */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { z } from "zod";

import { ROLES } from "./auth";
import { partnerApi } from "./client";

const statsPeriodSchema = z.object({ from: z.string(), to: z.string(), days: z.number() });

/** The tiles in their order (operations/dashboard.py TILE_STEPS); `payout_sum` in euros. */
export const TILE_KEYS = ["new", "in_review", "submitted", "certified", "paid", "payout_sum"] as const;
export const statsTileSchema = z.object({
  key: z.enum(TILE_KEYS),
  status: z.string().nullable(),
  value: z.union([z.number(), z.string()]),
  previous: z.union([z.number(), z.string()]).nullable(),
});
export type StatsTile = z.infer<typeof statsTileSchema>;

export const statsSchema = z.object({
  // the chosen period and the one of the same length before it; null without a first day
  period: statsPeriodSchema.nullable(),
  previous_period: statsPeriodSchema.nullable(),
  tiles: z.array(statsTileSchema),
  per_day: z.array(z.object({ date: z.string(), count: z.number() })),
  // people per step, each counting everyone who reached at least it; with a sub-partner only
  // the last step is known (the others null)
  funnel: z.object({
    flow_started: z.number().nullable(),
    code_verified: z.number().nullable(),
    scan_accepted: z.number().nullable(),
    billing_locked: z.number().nullable(),
  }),
  status_distribution: z.array(z.object({ status: z.string(), label: z.string(), count: z.number() })),
  payouts: z.object({ owed_gross: z.string(), paid_gross: z.string() }),
  per_sub_partner: z.array(
    z.object({
      id: z.number().nullable(),
      name: z.string(),
      count: z.number(),
      fee_share_gross: z.string().nullable(),
    }),
  ),
});
export type Stats = z.infer<typeof statsSchema>;

export async function stats(query: URLSearchParams, signal?: AbortSignal): Promise<Stats> {
  return statsSchema.parse(await partnerApi("stats/", { query, signal }));
}

export const useStats = (query: URLSearchParams) =>
  useQuery({
    queryKey: ["partner", "stats", query.toString()],
    queryFn: ({ signal }) => stats(query, signal),
    placeholderData: keepPreviousData,
  });

export const staffSchema = z.object({
  id: z.number(),
  email: z.string(),
  name: z.string(),
  role: z.enum(ROLES),
  is_active: z.boolean(),
  created_at: z.string().optional(),
  pending: z.boolean().optional(),
});
export type StaffMember = z.infer<typeof staffSchema>;

const inviteSchema = z.object({
  id: z.number(),
  email: z.string(),
  name: z.string(),
  role: z.enum(ROLES),
  created_at: z.string(),
  expires_at: z.string().optional(),
});

/** Members, then the invites not yet accepted (shown as "invited"; their ids are the invite's). */
const staffList = z
  .object({ results: z.array(staffSchema), invites: z.array(inviteSchema).default([]) })
  .transform((answer) => [
    ...answer.results,
    ...answer.invites.map((invite) => ({ ...invite, id: -invite.id, is_active: true, pending: true })),
  ]);

export const STAFF_KEY = ["partner", "staff"] as const;

export async function staff(): Promise<StaffMember[]> {
  return staffList.parse(await partnerApi("staff/"));
}

export const useStaff = () => useQuery({ queryKey: STAFF_KEY, queryFn: staff });

export function useStaffInvite() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (values: { email: string; name: string; role: string }) => partnerApi("staff/", { json: values }),
    onSuccess: () => client.invalidateQueries({ queryKey: STAFF_KEY }),
  });
}

export function useStaffChange() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, change }: { id: number; change: { role: string } | { is_active: boolean } }) =>
      partnerApi(`staff/${id}/`, { method: "PATCH", json: change }),
    onSuccess: () => client.invalidateQueries({ queryKey: STAFF_KEY }),
  });
}

/** Withdraws an open invite (its id as the server gives it, not the list's negative one). */
export function useInviteRevoke() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (inviteId: number) => partnerApi(`staff/invites/${inviteId}/`, { method: "DELETE" }),
    onSuccess: () => client.invalidateQueries({ queryKey: STAFF_KEY }),
  });
}

export const auditEntrySchema = z.object({
  id: z.number(),
  actor: z.string().nullable(),
  action: z.string(),
  object_type: z.string(),
  object_id: z
    .union([z.string(), z.number()])
    .nullable()
    .transform((value) => (value === null ? "" : String(value))),
  before: z.unknown().nullable().optional(),
  after: z.unknown().nullable().optional(),
  created_at: z.string(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

export async function audit(query: URLSearchParams, signal?: AbortSignal) {
  return z
    .object({ count: z.number(), results: z.array(auditEntrySchema) })
    .parse(await partnerApi("audit/", { query, signal }));
}

export const useAudit = (query: URLSearchParams) =>
  useQuery({
    queryKey: ["partner", "audit", query.toString()],
    queryFn: ({ signal }) => audit(query, signal),
    placeholderData: keepPreviousData,
  });
