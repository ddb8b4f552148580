/** Erasure on a request received by mail (partner admins; docs/partner-api.md, "Data protection"). */
import { useMutation } from "@tanstack/react-query";
import { z } from "zod";

import { partnerApi } from "./client";

export const erasurePreviewSchema = z.object({
  registrations: z.number(),
  applications: z.number(),
  payout_records_kept: z.number(),
  settlement_items_kept: z.number(),
});
export type ErasurePreview = z.infer<typeof erasurePreviewSchema>;

export const erasureResultSchema = z.object({ detail: z.string(), counts: z.record(z.string(), z.number()) });
export type ErasureResult = z.infer<typeof erasureResultSchema>;

export async function erasurePreview(email: string): Promise<ErasurePreview> {
  return erasurePreviewSchema.parse(await partnerApi("privacy/erasure/preview/", { json: { email } }));
}

export async function erasure(values: { email: string; reference: string }): Promise<ErasureResult> {
  return erasureResultSchema.parse(await partnerApi("privacy/erasure/", { json: values }));
}

export const useErasurePreview = () => useMutation({ mutationFn: erasurePreview });

export const useErasure = () => useMutation({ mutationFn: erasure });
