/** Staff sessions: login, second factor, enrolment, invites, me, logout (docs/partner-api.md, Auth). */
import { useMutation, useQuery } from "@tanstack/react-query";
import { z } from "zod";

import { partnerApi } from "./client";

export const ROLES = ["partner_admin", "back_office", "viewer"] as const;
export type Role = (typeof ROLES)[number];

export const meSchema = z.object({
  id: z.number(),
  email: z.string(),
  name: z.string(),
  role: z.enum(ROLES),
  language: z.string().nullable().optional(),
});
export type Me = z.infer<typeof meSchema>;

export const enrolmentSchema = z.object({ qr_svg: z.string(), secret: z.string(), otpauth_uri: z.string() });
export type Enrolment = z.infer<typeof enrolmentSchema>;

export const loginAnswerSchema = z.union([
  z.object({ step: z.literal("otp") }),
  z.object({ step: z.literal("enrol"), enrolment: enrolmentSchema }),
]);
export type LoginAnswer = z.infer<typeof loginAnswerSchema>;

export const ME_KEY = ["partner", "me"] as const;

export async function me(): Promise<Me> {
  return meSchema.parse(await partnerApi("me/"));
}

export const useMe = () => useQuery({ queryKey: ME_KEY, queryFn: me, retry: false, staleTime: 60_000 });

export async function login(payload: { username: string; password: string }): Promise<LoginAnswer> {
  return loginAnswerSchema.parse(
    await partnerApi("auth/login/", { json: { username: payload.username.trim(), password: payload.password } }),
  );
}

export const useLogin = () => useMutation({ mutationFn: login });

export async function otpVerify(token: string): Promise<Me> {
  return meSchema.parse(await partnerApi("auth/otp/", { json: { token: token.replace(/\s+/g, "") } }));
}

export const useOtpVerify = () => useMutation({ mutationFn: otpVerify });

export const enrolAnswerSchema = z.object({ backup_codes: z.array(z.string()), me: meSchema });

export async function enrol(token: string) {
  return enrolAnswerSchema.parse(await partnerApi("auth/enrol/", { json: { token: token.replace(/\s+/g, "") } }));
}

export const useEnrol = () => useMutation({ mutationFn: enrol });

export async function logout(): Promise<void> {
  await partnerApi("auth/logout/", { method: "POST" });
}

export const inviteSchema = z.object({ email: z.string(), partner_name: z.string() });

export async function inviteGet(key: string) {
  return inviteSchema.parse(await partnerApi(`auth/invite/${encodeURIComponent(key)}/`));
}

export async function inviteAccept(payload: { key: string; password: string }): Promise<LoginAnswer> {
  return loginAnswerSchema.parse(
    await partnerApi(`auth/invite/${encodeURIComponent(payload.key)}/`, { json: { password: payload.password } }),
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
