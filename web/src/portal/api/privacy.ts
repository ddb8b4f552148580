/** The portal's privacy calls: data export (Art. 15/20) and erasure (Art. 17) of the account. */
import { useMutation } from "@tanstack/react-query";

import { portal } from "../lib/portal-api";

export async function dataExportRequest() {
  return portal.post("/api/end_user_portal/data_export/");
}

export const useDataExport = () => useMutation({ mutationFn: dataExportRequest });

export async function erasureRequest() {
  return portal.post("/api/end_user_portal/erasure/");
}

export const useErasureRequest = () => useMutation({ mutationFn: erasureRequest });

export async function erasureConfirm(code: string) {
  return portal.post("/api/end_user_portal/erasure/confirm/", { json: { code } });
}

export const useErasureConfirm = () => useMutation({ mutationFn: erasureConfirm });
