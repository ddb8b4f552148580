/** The portal's privacy calls: data export (Art. 15/20) and erasure (Art. 17) of the account. */
import { useMutation } from "@tanstack/react-query";
import { z } from "zod";

import { portalApi } from "../lib/portal-api";

const detailSchema = z.object({ detail: z.string() });

export async function dataExportRequest() {
  return detailSchema.parse(await portalApi("end_user_portal/data_export/", { method: "POST" }));
}

export const useDataExport = () => useMutation({ mutationFn: dataExportRequest });

export async function erasureRequest() {
  return detailSchema.parse(await portalApi("end_user_portal/erasure/", { method: "POST" }));
}

export const useErasureRequest = () => useMutation({ mutationFn: erasureRequest });

export async function erasureConfirm(code: string) {
  return detailSchema.parse(await portalApi("end_user_portal/erasure/confirm/", { json: { code } }));
}

export const useErasureConfirm = () => useMutation({ mutationFn: erasureConfirm });
