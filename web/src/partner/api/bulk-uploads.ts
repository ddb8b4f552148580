/** Bulk uploads (docs/partner-api.md, "Bulk uploads"): list, upload, live progress, rollback, owner data. */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { z } from "zod";

import { APPLICATIONS_KEY } from "./applications";
import { partnerApi } from "./client";

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

const countsSchema = z.object({
  pending: z.number(),
  accepted: z.number(),
  refused: z.number(),
  duplicate: z.number(),
});

export const bulkUploadSchema = z.object({
  id: z.number(),
  status: z.string(),
  status_label: z.string(),
  file_name: z.string(),
  size: z.number(),
  file_count: z.number(),
  has_csv: z.boolean(),
  csv_encoding: z.string().default(""),
  registration_years: z.array(z.number()),
  counts: countsSchema,
  progress: z.number(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
  rolled_back_at: z.string().nullable(),
  can_roll_back: z.boolean(),
});
export type BulkUpload = z.infer<typeof bulkUploadSchema>;

export const bulkItemSchema = z.object({
  id: z.number(),
  position: z.number(),
  file_name: z.string(),
  size: z.number(),
  status: z.enum(["pending", "accepted", "refused", "duplicate"]),
  status_label: z.string(),
  error_code: z.string().nullable(),
  details: z.record(z.unknown()).default({}),
  registration: z
    .object({ id: z.number(), sequence: z.number(), vin: z.string().nullable(), needs_review: z.boolean() })
    .nullable(),
  has_owner: z.boolean().default(false),
  applications: z.array(z.object({ id: z.number(), legislation_year: z.number(), status: z.string() })),
});
export type BulkItem = z.infer<typeof bulkItemSchema>;

export const bulkDetailSchema = bulkUploadSchema.extend({ items: z.array(bulkItemSchema) });
export type BulkDetail = z.infer<typeof bulkDetailSchema>;

const pageSchema = z.object({ count: z.number(), results: z.array(bulkUploadSchema) });

export const BULK_KEY = ["partner", "bulk_uploads"] as const;

export async function bulkUploadList(query: URLSearchParams, signal?: AbortSignal) {
  return pageSchema.parse(await partnerApi("bulk_uploads/", { query, signal }));
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
  return bulkDetailSchema.parse(await partnerApi(`bulk_uploads/${id}/`, { signal }));
}

/** The upload with its files; polled every 2 s while it runs (docs: "poll it for live progress"). */
export const useBulkUpload = (id: number) =>
  useQuery({
    queryKey: [...BULK_KEY, "detail", id],
    queryFn: ({ signal }) => bulkUploadDetail(id, signal),
    refetchInterval: (current) => (RUNNING.includes(current.state.data?.status ?? "") ? POLL_MS : false),
  });

export async function bulkUploadCreate(values: { archive: File; owners_csv?: File | null }): Promise<BulkUpload> {
  const form = new FormData();
  form.append("archive", values.archive, values.archive.name);
  if (values.owners_csv) form.append("owners_csv", values.owners_csv, values.owners_csv.name);
  return bulkUploadSchema.parse(await partnerApi("bulk_uploads/", { form }));
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
    mutationFn: async () =>
      bulkUploadSchema
        .extend({ removed: z.record(z.number()) })
        .parse(await partnerApi(`bulk_uploads/${id}/rollback/`, { method: "POST" })),
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
    mutationFn: async ({ itemId, values }: { itemId: number; values: OwnerPayload }) =>
      bulkItemSchema.parse(await partnerApi(`bulk_uploads/${uploadId}/items/${itemId}/owner/`, { json: values })),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: [...BULK_KEY, "detail", uploadId] });
      void client.invalidateQueries({ queryKey: APPLICATIONS_KEY });
    },
  });
}
