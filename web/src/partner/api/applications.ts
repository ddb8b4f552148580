/** Quota applications of the partner area: list, detail, filters, bulk moves, CSV (docs/partner-api.md). */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { z } from "zod";

import { partnerApi, partnerUrl } from "./client";

const ref = z.object({ id: z.number(), name: z.string() }).nullable();

export const applicationRowSchema = z.object({
  id: z.number(),
  sequence: z.number(),
  legislation_year: z.number(),
  status: z.string(),
  status_label: z.string(),
  created_at: z.string(),
  updated_at: z.string().optional(),
  vin: z.string().nullable(),
  vehicle_class: z.string().nullable(),
  owner_name: z.string(),
  owner_type: z.string().nullable().optional(),
  sub_partner: ref.optional().default(null),
  single_deal: ref.optional().default(null),
  fee_gross: z.string().nullable().optional(),
});
export type ApplicationRow = z.infer<typeof applicationRowSchema>;

export const applicationPageSchema = z.object({
  count: z.number(),
  /** false: `count` is the database's estimate (a large match, docs/partner-api.md). */
  count_exact: z.boolean().optional().default(true),
  page: z.number().optional(),
  page_size: z.number().optional(),
  results: z.array(applicationRowSchema),
});
export type ApplicationPage = z.infer<typeof applicationPageSchema>;

const move = z.object({ status: z.string(), status_label: z.string() });

export const readingFieldSchema = z.object({
  code: z.string(),
  name: z.string(),
  value: z.string().nullable(),
  confidence: z.number().nullable(),
  unread: z.boolean(),
  source: z.enum(["reader", "corrected"]),
  corrected_by: z.string().nullable().optional(),
  corrected_at: z.string().nullable().optional(),
});
export type ReadingField = z.infer<typeof readingFieldSchema>;

const correctionSchema = z.object({
  code: z.string(),
  before: z.string(),
  after: z.string(),
  actor: z.string(),
  /** The reader's rule that had decided the field when it was corrected (empty: none recorded). */
  rule: z.string().optional().default(""),
  created_at: z.string(),
});

/** [x0, y0, x1, y1]: where a field's value lies, as shares of the display picture's size. */
export const fieldBoxSchema = z.tuple([z.number(), z.number(), z.number(), z.number()]);
export type FieldBox = z.infer<typeof fieldBoxSchema>;

export const agreementSchema = z.object({
  legislation_year: z.number(),
  agreed_at: z.string(),
  /** SHA-256 of the text shown (the checkbox and the terms behind it). */
  text_version: z.string(),
  text: z.string(),
  channel: z.string(),
  channel_label: z.string(),
});
export type Agreement = z.infer<typeof agreementSchema>;

export const applicationDetailSchema = applicationRowSchema.extend({
  registration: z.object({
    uuid: z.string().optional(),
    scan_url: z.string().nullable(),
    vin: z.string().nullable().optional(),
    first_registration: z.string().nullable().optional(),
    vehicle_class: z.string().nullable().optional(),
    energy_code: z.string().nullable().optional(),
    needs_review: z.boolean().optional(),
    // Each field of the reader: value, confidence 0..1, seen but not read, who corrected it.
    fields: z.array(readingFieldSchema).optional().default([]),
    unread: z.array(z.string()).optional().default([]),
    corrections: z.array(correctionSchema).optional().default([]),
    // Per field code the reader's rule that decided it, or why it was left unread.
    decided_by: z.record(z.string(), z.string()).optional().default({}),
    field_boxes: z.record(z.string(), fieldBoxSchema).optional().default({}),
    check_digit: z.string().optional().default(""),
    holder_name: z.string().optional().default(""),
    holder_first_names: z.string().optional().default(""),
    // The holder on the document against the billing name: true differs (review), null not compared.
    holder_mismatch: z.boolean().nullable().optional().default(null),
  }),
  // The owner's agreement in text form naming the partner as third party ("Dritter", 38. BImSchV
  // § 5) for the application's year; null where none is recorded (a B2B upload).
  agreement: agreementSchema.nullable().optional().default(null),
  client: z
    .object({
      name: z.string().optional(),
      first_name: z.string().optional(),
      last_name: z.string().optional(),
      address: z.string().optional(),
      street_name: z.string().optional(),
      street_number: z.string().optional(),
      postal_code: z.string().optional(),
      city: z.string().optional(),
      email: z.string().optional(),
      owner_type: z.string().nullable().optional(),
      business_name: z.string().nullable().optional(),
      name_of_business: z.string().nullable().optional(),
      account_name: z.string().nullable().optional(),
      iban_masked: z.string().nullable().optional(),
    })
    .nullable()
    // The owner's name, address and business in one shape, whether the server sends them whole or in parts.
    .transform((client) =>
      client === null
        ? null
        : {
            ...client,
            name: client.name ?? [client.first_name, client.last_name].filter(Boolean).join(" "),
            address:
              client.address ??
              [
                [client.street_name, client.street_number].filter(Boolean).join(" "),
                [client.postal_code, client.city].filter(Boolean).join(" "),
              ]
                .filter(Boolean)
                .join(", "),
            business_name: client.business_name ?? client.name_of_business ?? "",
          },
    ),
  history: z.array(
    z.object({
      status: z.string(),
      status_label: z.string(),
      reason: z.string().nullable().optional(),
      actor: z.string().nullable().optional(),
      created_at: z.string(),
    }),
  ),
  allowed_moves: z.array(move),
});
export type ApplicationDetail = z.infer<typeof applicationDetailSchema>;

export const filterOptionsSchema = z.object({
  statuses: z.array(z.object({ value: z.string(), label: z.string() })),
  years: z.array(z.number()),
  vehicle_classes: z.array(z.string()),
  sub_partners: z.array(z.object({ id: z.number(), name: z.string() })),
  single_deals: z.array(z.object({ id: z.number(), name: z.string() })),
});
export type FilterOptions = z.infer<typeof filterOptionsSchema>;

export const moveResultSchema = z.object({
  results: z.array(
    z.object({
      id: z.number(),
      ok: z.boolean(),
      detail: z.string().nullable().optional(),
      // set after a move past review that found a possible double registration (issue 47)
      notice: z.string().nullable().optional(),
    }),
  ),
});
export type MoveResult = z.infer<typeof moveResultSchema>;

export const APPLICATIONS_KEY = ["partner", "applications"] as const;

export async function applicationList(query: URLSearchParams, signal?: AbortSignal): Promise<ApplicationPage> {
  return applicationPageSchema.parse(await partnerApi("quota_applications/", { query, signal }));
}

export const useApplications = (query: URLSearchParams) =>
  useQuery({
    queryKey: [...APPLICATIONS_KEY, "list", query.toString()],
    queryFn: ({ signal }) => applicationList(query, signal),
    placeholderData: keepPreviousData,
  });

export async function applicationGet(id: number): Promise<ApplicationDetail> {
  return applicationDetailSchema.parse(await partnerApi(`quota_applications/${id}/`));
}

export const useApplication = (id: number | null) =>
  useQuery({
    queryKey: [...APPLICATIONS_KEY, "detail", id],
    queryFn: () => applicationGet(id as number),
    enabled: id !== null,
  });

export async function filterOptions(): Promise<FilterOptions> {
  return filterOptionsSchema.parse(await partnerApi("quota_applications/filters/"));
}

export const useFilterOptions = () =>
  useQuery({ queryKey: [...APPLICATIONS_KEY, "filters"], queryFn: filterOptions, staleTime: 60_000 });

export async function applicationsMove(payload: {
  ids: number[];
  status: string;
  reason: string;
}): Promise<MoveResult> {
  return moveResultSchema.parse(await partnerApi("quota_applications/moves/", { json: payload }));
}

export function useApplicationsMove() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: applicationsMove,
    onSuccess: () => client.invalidateQueries({ queryKey: APPLICATIONS_KEY }),
  });
}

/** The back office corrects one field the reader read; answers the detail again. */
export async function fieldCorrect(id: number, payload: { field: string; value: string }): Promise<ApplicationDetail> {
  return applicationDetailSchema.parse(await partnerApi(`quota_applications/${id}/corrections/`, { json: payload }));
}

export function useFieldCorrect(id: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (payload: { field: string; value: string }) => fieldCorrect(id, payload),
    onSuccess: (detail) => {
      client.setQueryData([...APPLICATIONS_KEY, "detail", id], detail);
      void client.invalidateQueries({ queryKey: [...APPLICATIONS_KEY, "list"] });
    },
  });
}

/** The CSV of the current filter: the same query, without paging. */
export function exportUrl(query: URLSearchParams): string {
  const filter = new URLSearchParams(query);
  filter.delete("page");
  filter.delete("page_size");
  return partnerUrl("quota_applications/export.csv", filter);
}

/** A field of the review queue: read unsure or not read (docs/partner-api.md, "review"). */
export const reviewFieldSchema = z.object({
  code: z.string(),
  value: z.string().nullable(),
  confidence: z.number().nullable(),
  unread: z.boolean(),
  decided_by: z.string(),
  box: fieldBoxSchema.nullable(),
});
export type ReviewField = z.infer<typeof reviewFieldSchema>;

export const reviewRowSchema = z.object({
  id: z.number(),
  sequence: z.number(),
  status: z.string(),
  status_label: z.string(),
  created_at: z.string(),
  owner_name: z.string(),
  vin: z.string(),
  image_url: z.string(),
  fields: z.array(reviewFieldSchema),
});
export type ReviewRow = z.infer<typeof reviewRowSchema>;

export const reviewPageSchema = z.object({
  count: z.number(),
  page: z.number(),
  page_size: z.number(),
  results: z.array(reviewRowSchema),
});
export type ReviewPage = z.infer<typeof reviewPageSchema>;

export const reviewReportSchema = z.object({
  results: z.array(
    z.object({
      code: z.string(),
      rule: z.string(),
      stored: z.number(),
      corrected: z.number(),
      share: z.number().nullable(),
    }),
  ),
});
export type ReviewReportRow = z.infer<typeof reviewReportSchema>["results"][number];

export const REVIEW_KEY = [...APPLICATIONS_KEY, "review"] as const;

/** The applications whose fields the reader left unread or was unsure of, oldest first. */
export const useReviewQueue = (query: URLSearchParams, enabled = true) =>
  useQuery({
    queryKey: [...REVIEW_KEY, "queue", query.toString()],
    queryFn: async ({ signal }) =>
      reviewPageSchema.parse(await partnerApi("quota_applications/review/", { query, signal })),
    placeholderData: keepPreviousData,
    enabled,
    retry: false,
  });

/** Per field and rule: how many values were stored and how many the back office corrected. */
export const useReviewReport = () =>
  useQuery({
    queryKey: [...REVIEW_KEY, "report"],
    queryFn: async ({ signal }) =>
      reviewReportSchema.parse(await partnerApi("quota_applications/review/report/", { signal })),
  });

/** One correction from the review: the queue stays as shown (the person works through it), the
 * detail and the report follow. */
export function useReviewCorrect() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, field, value }: { id: number; field: string; value: string }) =>
      fieldCorrect(id, { field, value }),
    onSuccess: (detail) => {
      client.setQueryData([...APPLICATIONS_KEY, "detail", detail.id], detail);
      void client.invalidateQueries({ queryKey: [...APPLICATIONS_KEY, "list"] });
      void client.invalidateQueries({ queryKey: [...REVIEW_KEY, "report"] });
    },
  });
}
