/** Dashboard figures, staff and audit (docs/partner-api.md, "Dashboard", "Staff and audit"). */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Schemas } from "@/shared/api/typed";

import { partner } from "./client";

// The shapes are the server's (operations/api.py, staff/schemas.py), generated into
// shared/api/schema.d.ts.

/** The tiles in their order (operations/dashboard.py TILE_STEPS); `payout_sum` in euros. */
export const TILE_KEYS = ["new", "in_review", "submitted", "certified", "paid", "payout_sum"] as const;
export type StatsTile = Schemas["StatsTile"];
/** The chosen period and the one of the same length before it (null without a first day); the
 * funnel counts people per step, each everyone who reached at least it (with a sub-partner only
 * the last step is known, the others null). */
export type Stats = Schemas["StatsOut"];

export async function stats(query: URLSearchParams, signal?: AbortSignal): Promise<Stats> {
  return partner.get("/api/partner/stats/", { query, signal });
}

export const useStats = (query: URLSearchParams) =>
  useQuery({
    queryKey: ["partner", "stats", query.toString()],
    queryFn: ({ signal }) => stats(query, signal),
    placeholderData: keepPreviousData,
  });

/** A member, or an invite not yet accepted (`pending`; its id the invite's, negated). */
export type StaffMember = Pick<Schemas["MemberOut"], "id" | "email" | "name" | "role" | "is_active" | "created_at"> & {
  pending?: boolean;
};

/** Members, then the invites not yet accepted (shown as "invited"; their ids are the invite's). */
function staffRows(answer: Schemas["StaffListOut"]): StaffMember[] {
  return [
    ...answer.results,
    ...answer.invites.map((invite) => ({ ...invite, id: -invite.id, is_active: true, pending: true })),
  ];
}

export const STAFF_KEY = ["partner", "staff"] as const;

export async function staff(): Promise<StaffMember[]> {
  return staffRows(await partner.get("/api/partner/staff/"));
}

export const useStaff = () => useQuery({ queryKey: STAFF_KEY, queryFn: staff });

export function useStaffInvite() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (values: Schemas["StaffInviteIn"]) => partner.post("/api/partner/staff/", { json: values }),
    onSuccess: () => client.invalidateQueries({ queryKey: STAFF_KEY }),
  });
}

export function useStaffChange() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, change }: { id: number; change: Schemas["StaffPatchIn"] }) =>
      partner.patch("/api/partner/staff/{member_id}/", { path: { member_id: id }, json: change }),
    onSuccess: () => client.invalidateQueries({ queryKey: STAFF_KEY }),
  });
}

/** Withdraws an open invite (its id as the server gives it, not the list's negative one). */
export function useInviteRevoke() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (inviteId: number) =>
      partner.delete("/api/partner/staff/invites/{invite_id}/", { path: { invite_id: inviteId } }),
    onSuccess: () => client.invalidateQueries({ queryKey: STAFF_KEY }),
  });
}

export type AuditEntry = Schemas["AuditOut"];

export async function audit(query: URLSearchParams, signal?: AbortSignal) {
  return partner.get("/api/partner/audit/", { query, signal });
}

export const useAudit = (query: URLSearchParams) =>
  useQuery({
    queryKey: ["partner", "audit", query.toString()],
    queryFn: ({ signal }) => audit(query, signal),
    placeholderData: keepPreviousData,
  });
