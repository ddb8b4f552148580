/** Exports and notices (issue 49): the download addresses (CSV and XLSX from one column list on
 * the server), the upload dialog's open quota years, a sub-partner's link, the own digest switch. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Schemas } from "@/shared/api/typed";

import { ME_KEY } from "./auth";
import { partner, partnerUrl } from "./client";

export type FileKind = "csv" | "xlsx";

const withoutPaging = (query?: URLSearchParams): URLSearchParams => {
  const filter = new URLSearchParams(query);
  filter.delete("page");
  filter.delete("page_size");
  return filter;
};

export const EXPORTS = {
  /** The applications of the current filter, as the CSV beside it. */
  applicationsXlsx: (query: URLSearchParams) => partnerUrl("quota_applications/export.xlsx", withoutPaging(query)),
  audit: (kind: FileKind, query?: URLSearchParams) => partnerUrl(`audit/export.${kind}`, withoutPaging(query)),
  bulkResults: (id: number, kind: FileKind) => partnerUrl(`bulk_uploads/${id}/results.${kind}`),
  batchXlsx: (id: number) => partnerUrl(`settlement_batches/${id}/statement.xlsx`),
  ownerTemplate: () => partnerUrl("bulk_uploads/template.csv"),
  qr: (id: number, kind: "png" | "svg") => partnerUrl(`sub_partners/${id}/qr.${kind}`),
};

export type UploadYears = Schemas["BulkUploadYearsOut"];

export const useUploadYears = () =>
  useQuery({
    queryKey: ["partner", "bulk_upload_years"],
    queryFn: ({ signal }) => partner.get("/api/partner/bulk_upload_years/", { signal }),
    staleTime: 60_000,
  });

export const useSubPartnerLink = (id: number | null) =>
  useQuery({
    queryKey: ["partner", "sub_partners", id, "link"],
    queryFn: ({ signal }) =>
      partner.get("/api/partner/sub_partners/{sub_partner_id}/link/", { path: { sub_partner_id: id ?? 0 }, signal }),
    enabled: id !== null,
  });

const DIGEST_KEY = [...ME_KEY, "digest"] as const;

export const useDigest = () =>
  useQuery({
    queryKey: DIGEST_KEY,
    queryFn: async ({ signal }) => (await partner.get("/api/partner/me/", { signal })).digest_enabled,
  });

export function useDigestSwitch() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (enabled: boolean) =>
      (await partner.patch("/api/partner/me/", { json: { digest_enabled: enabled } })).digest_enabled,
    onSuccess: (enabled) => client.setQueryData(DIGEST_KEY, enabled),
  });
}
