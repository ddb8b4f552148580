/** Staff sessions: login, second factor, enrolment, invites, me, logout (docs/partner-api.md, Auth). */
import { useMutation, useQuery } from "@tanstack/react-query";
import type { Schemas } from "@/shared/api/typed";

import { partner } from "./client";

export const ROLES = ["partner_admin", "back_office", "viewer"] as const;
export type Role = (typeof ROLES)[number];

// The shapes are the server's (staff/schemas.py), generated into shared/api/schema.d.ts.
export type Me = Schemas["MeOut"];
export type Enrolment = Schemas["EnrolmentOut"];

/** The next step after the password: the code, or the enrolment with its QR code. */
export type LoginAnswer = { step: "otp" } | { step: "enrol"; enrolment: Enrolment };

/** The server's step as the screens read it: an enrolment step always carries its enrolment. */
function loginStep(answer: Schemas["StepOut"]): LoginAnswer {
  if (answer.step === "otp") return { step: "otp" };
  if (!answer.enrolment) throw new Error("enrolment step without its enrolment");
  return { step: "enrol", enrolment: answer.enrolment };
}

export const ME_KEY = ["partner", "me"] as const;

export async function me(): Promise<Me> {
  return partner.get("/api/partner/me/");
}

export const useMe = () => useQuery({ queryKey: ME_KEY, queryFn: me, retry: false, staleTime: 60_000 });

export async function login(payload: { username: string; password: string }): Promise<LoginAnswer> {
  return loginStep(
    await partner.post("/api/partner/auth/login/", {
      json: { username: payload.username.trim(), password: payload.password },
    }),
  );
}

export const useLogin = () => useMutation({ mutationFn: login });

export async function otpVerify(token: string): Promise<Me> {
  return partner.post("/api/partner/auth/otp/", { json: { token: token.replace(/\s+/g, "") } });
}

export const useOtpVerify = () => useMutation({ mutationFn: otpVerify });

export async function enrol(token: string) {
  return partner.post("/api/partner/auth/enrol/", { json: { token: token.replace(/\s+/g, "") } });
}

export const useEnrol = () => useMutation({ mutationFn: enrol });

export async function logout(): Promise<void> {
  await partner.post("/api/partner/auth/logout/");
}

export async function inviteGet(key: string) {
  return partner.get("/api/partner/auth/invite/{key}/", { path: { key } });
}

export async function inviteAccept(payload: { key: string; password: string }): Promise<LoginAnswer> {
  return loginStep(
    await partner.post("/api/partner/auth/invite/{key}/", {
      path: { key: payload.key },
      json: { password: payload.password },
    }),
  );
}

export const useInviteAccept = () => useMutation({ mutationFn: inviteAccept });

/** What each role may do (the server decides; the UI only hides what would be refused). */
export const can = {
  move: (role: Role | undefined) => role === "partner_admin" || role === "back_office",
  export: (role: Role | undefined) => role === "partner_admin" || role === "back_office",
  edit: (role: Role | undefined) => role === "partner_admin" || role === "back_office",
  admin: (role: Role | undefined) => role === "partner_admin",
};
