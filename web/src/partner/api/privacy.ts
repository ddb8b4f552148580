/** Erasure on a request received by mail (partner admins; docs/partner-api.md, "Data protection"). */
import { useMutation } from "@tanstack/react-query";
import type { Schemas } from "@/shared/api/typed";

import { partner } from "./client";

export type ErasurePreview = Schemas["PartnerErasureOwnerOut"];
export type ErasureResult = Schemas["PartnerErasureOut"];

export async function erasurePreview(email: string): Promise<ErasurePreview> {
  return partner.post("/api/partner/privacy/erasure/preview/", { json: { email } });
}

export async function erasure(values: { email: string; reference: string }): Promise<ErasureResult> {
  return partner.post("/api/partner/privacy/erasure/", { json: values });
}

export const useErasurePreview = () => useMutation({ mutationFn: erasurePreview });

export const useErasure = () => useMutation({ mutationFn: erasure });
