/** Bulk uploads (docs/partner-api.md, "Bulk uploads"): list, upload, live progress, rollback, owner data. */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Schemas } from "@/shared/api/typed";

import { APPLICATIONS_KEY } from "./applications";
import { partner } from "./client";

/** The upload statuses of spec/customer-portal.md section 4 (plus `ready`: some files refused). */
export const BULK_STATUSES = [
  "new",
  "unstructured_data_upload_successful",
  "unstructured_data_upload_failed",
  "bevRegistration_bulk_creation_in_progress",
  "ready",
  "bevRegistration_bulk_created",
  "bevRegistration_bulk_rejected",
  "bevRegistration_bulk_is_rolled_back",
] as const;
export type BulkStatus = (typeof BULK_STATUSES)[number];

/** While an upload is in one of these its files are still being read: the screen polls. */
export const RUNNING: readonly string[] = [
  "new",
  "unstructured_data_upload_successful",
  "bevRegistration_bulk_creation_in_progress",
];
export const POLL_MS = 2000;
/** Every file read: a rollback and (without CSV) owner data are possible. */
export const FINISHED: readonly string[] = ["ready", "bevRegistration_bulk_created", "bevRegistration_bulk_rejected"];

// The shapes are the server's (operations/schemas.py), generated into shared/api/schema.d.ts.
export type BulkUpload = Schemas["BulkSummaryOut"];
export type BulkItem = Schemas["BulkItemOut"];
export type BulkDetail = Schemas["BulkDetailOut"];

export const BULK_KEY = ["partner", "bulk_uploads"] as const;

export async function bulkUploadList(query: URLSearchParams, signal?: AbortSignal) {
  return partner.get("/api/partner/bulk_uploads/", { query, signal });
}

export const useBulkUploadList = (query: URLSearchParams) =>
  useQuery({
    queryKey: [...BULK_KEY, "list", query.toString()],
    queryFn: ({ signal }) => bulkUploadList(query, signal),
    placeholderData: keepPreviousData,
    // A running upload on the page: its counts move, so the page follows.
    refetchInterval: (current) =>
      current.state.data?.results.some((upload) => RUNNING.includes(upload.status)) ? POLL_MS : false,
  });

export async function bulkUploadDetail(id: number, signal?: AbortSignal): Promise<BulkDetail> {
  return partner.get("/api/partner/bulk_uploads/{upload_id}/", { path: { upload_id: id }, signal });
}

/** The upload with its files; polled every 2 s while it runs (docs: "poll it for live progress"). */
export const useBulkUpload = (id: number) =>
  useQuery({
    queryKey: [...BULK_KEY, "detail", id],
    queryFn: ({ signal }) => bulkUploadDetail(id, signal),
    refetchInterval: (current) => (RUNNING.includes(current.state.data?.status ?? "") ? POLL_MS : false),
  });

export async function bulkUploadCreate(values: {
  archive: File;
  owners_csv?: File | null;
  /** The quota year of the upload's applications (one of the open years); the server's default if none. */
  registration_year?: number | null;
}): Promise<BulkUpload> {
  const form = new FormData();
  form.append("archive", values.archive, values.archive.name);
  if (values.owners_csv) form.append("owners_csv", values.owners_csv, values.owners_csv.name);
  if (values.registration_year) form.append("registration_years", String(values.registration_year));
  return partner.post("/api/partner/bulk_uploads/", { form });
}

export function useBulkUploadCreate() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: bulkUploadCreate,
    onSuccess: () => client.invalidateQueries({ queryKey: BULK_KEY }),
  });
}

export function useBulkUploadRollback(id: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => partner.post("/api/partner/bulk_uploads/{upload_id}/rollback/", { path: { upload_id: id } }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: BULK_KEY });
      void client.invalidateQueries({ queryKey: APPLICATIONS_KEY });
    },
  });
}

export type OwnerPayload = {
  email: string;
  gender: string;
  first_name: string;
  last_name: string;
  street_name: string;
  street_number: string;
  postal_code: string;
  city: string;
  account_iban: string;
  account_name: string;
  vehicle_owner_type: "private" | "business";
  name_of_business: string;
  is_vat_mandatory: boolean | null;
  vat_number: string;
};

export function useBulkItemOwner(uploadId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ itemId, values }: { itemId: number; values: OwnerPayload }) =>
      partner.post("/api/partner/bulk_uploads/{upload_id}/items/{item_id}/owner/", {
        path: { upload_id: uploadId, item_id: itemId },
        json: values,
      }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: [...BULK_KEY, "detail", uploadId] });
      void client.invalidateQueries({ queryKey: APPLICATIONS_KEY });
    },
  });
}
