/** Quota applications of the partner area: list, detail, filters, bulk moves, CSV (docs/partner-api.md). */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Schemas } from "@/shared/api/typed";

import { partner, partnerUrl } from "./client";

// The shapes are the server's (operations/application_api.py, quota/schemas.py), generated into
// shared/api/schema.d.ts.
export type ApplicationRow = Schemas["ApplicationRowOut"];
/** `count_exact` false: `count` is the database's estimate (a large match, docs/partner-api.md). */
export type ApplicationPage = Schemas["ApplicationPageOut"];
/** Each field of the reader: value, confidence 0..1, seen but not read, who corrected it. */
export type ReadingField = Schemas["ReadingFieldOut"];
/** [x0, y0, x1, y1]: where a field's value lies, as shares of the display picture's size. */
export type FieldBox = number[];
/** The owner's agreement in text form naming the partner as third party ("Dritter", 38. BImSchV
 * § 5) for the application's year; null where none is recorded (a B2B upload). */
export type Agreement = Schemas["ThirdPartyAgreementOut"];
export type FilterOptions = Schemas["PartnerFiltersOut"];
export type MoveResult = Schemas["MovesOut"];

/** The owner's name, address and business in one line each, beside the server's parts. */
export type ApplicationClient = Partial<Schemas["ApplicationClientOut"]> & {
  name: string;
  address: string;
  business_name: string;
};
export type ApplicationDetail = Omit<Schemas["ApplicationDetailOut"], "client"> & {
  client: ApplicationClient | null;
};

/** The detail as the drawer reads it: the owner's name, address and business in one shape,
 * whether the answer has them whole or in parts. */
function withClient(answer: Schemas["ApplicationDetailOut"]): ApplicationDetail {
  const client = answer.client as Partial<ApplicationClient> | null;
  if (client === null) return { ...answer, client: null };
  return {
    ...answer,
    client: {
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
  };
}

export const APPLICATIONS_KEY = ["partner", "applications"] as const;

export async function applicationList(query: URLSearchParams, signal?: AbortSignal): Promise<ApplicationPage> {
  return partner.get("/api/partner/quota_applications/", { query, signal });
}

export const useApplications = (query: URLSearchParams) =>
  useQuery({
    queryKey: [...APPLICATIONS_KEY, "list", query.toString()],
    queryFn: ({ signal }) => applicationList(query, signal),
    placeholderData: keepPreviousData,
  });

export async function applicationGet(id: number): Promise<ApplicationDetail> {
  return withClient(
    await partner.get("/api/partner/quota_applications/{application_id}/", { path: { application_id: id } }),
  );
}

export const useApplication = (id: number | null) =>
  useQuery({
    queryKey: [...APPLICATIONS_KEY, "detail", id],
    queryFn: () => applicationGet(id as number),
    enabled: id !== null,
  });

export async function filterOptions(): Promise<FilterOptions> {
  return partner.get("/api/partner/quota_applications/filters/");
}

export const useFilterOptions = () =>
  useQuery({ queryKey: [...APPLICATIONS_KEY, "filters"], queryFn: filterOptions, staleTime: 60_000 });

export async function applicationsMove(payload: {
  ids: number[];
  status: string;
  reason: string;
}): Promise<MoveResult> {
  // a status the server offered (the detail's allowed moves, the filters); it checks it again
  return partner.post("/api/partner/quota_applications/moves/", {
    json: { ...payload, status: payload.status as Schemas["MoveIn"]["status"] },
  });
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
  return withClient(
    await partner.post("/api/partner/quota_applications/{application_id}/corrections/", {
      path: { application_id: id },
      json: payload,
    }),
  );
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
export type ReviewField = Schemas["ReviewFieldOut"];
export type ReviewRow = Schemas["ReviewRowOut"];
export type ReviewPage = Schemas["ReviewPageOut"];
/** Per field and rule: how many values were stored and how many the back office corrected. */
export type ReviewReportRow = Schemas["ReviewReportRowOut"];

export const REVIEW_KEY = [...APPLICATIONS_KEY, "review"] as const;

/** The applications whose fields the reader left unread or was unsure of, oldest first. */
export const useReviewQueue = (query: URLSearchParams, enabled = true) =>
  useQuery({
    queryKey: [...REVIEW_KEY, "queue", query.toString()],
    queryFn: ({ signal }) => partner.get("/api/partner/quota_applications/review/", { query, signal }),
    placeholderData: keepPreviousData,
    enabled,
    retry: false,
  });

/** Per field and rule: how many values were stored and how many the back office corrected. */
export const useReviewReport = () =>
  useQuery({
    queryKey: [...REVIEW_KEY, "report"],
    queryFn: ({ signal }) => partner.get("/api/partner/quota_applications/review/report/", { signal }),
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
