/**
 * The application list's state lives in the URL query (shareable, back button) and is
 * mirrored to localStorage `filter-values`, so the list opens again as it was left.
 */
import { localGet, localSet } from "./storage";

export const FILTER_PARAMS = [
  "status",
  "legislation_year",
  "vehicle_class",
  "sub_partner",
  "single_deal",
  "created_from",
  "created_to",
  "q",
] as const;
export const LIST_PARAMS = [...FILTER_PARAMS, "page", "page_size", "ordering"] as const;
export type ListParam = (typeof LIST_PARAMS)[number];

export const ORDERINGS = ["created_at", "status", "legislation_year", "sequence", "last_name"] as const;
export const PAGE_SIZES = [10, 25, 50, 100] as const;
export const DEFAULT_ORDERING = "-created_at";
export const DEFAULT_PAGE_SIZE = 25;

export type FilterValues = Partial<Record<ListParam, string[]>>;

/** Only the list's own parameters, in a stable order (one query key per list state). */
export function listQuery(search: URLSearchParams): URLSearchParams {
  const query = new URLSearchParams();
  for (const name of LIST_PARAMS) {
    for (const value of search.getAll(name)) if (value.trim()) query.append(name, value.trim());
  }
  if (!query.get("page")) query.set("page", "1");
  if (!query.get("page_size")) query.set("page_size", String(DEFAULT_PAGE_SIZE));
  if (!query.get("ordering")) query.set("ordering", DEFAULT_ORDERING);
  return query;
}

export function toValues(query: URLSearchParams): FilterValues {
  const values: FilterValues = {};
  for (const name of LIST_PARAMS) {
    const all = query.getAll(name);
    if (all.length) values[name] = all;
  }
  return values;
}

export function fromValues(values: FilterValues | null): URLSearchParams {
  const query = new URLSearchParams();
  if (!values) return query;
  for (const name of LIST_PARAMS) {
    const all = values[name];
    if (Array.isArray(all)) all.forEach((value) => typeof value === "string" && query.append(name, value));
  }
  return query;
}

export function hasListParams(search: URLSearchParams): boolean {
  return LIST_PARAMS.some((name) => search.has(name));
}

export function storedFilter(): URLSearchParams {
  return fromValues(localGet<FilterValues>("filterValues"));
}

export function storeFilter(query: URLSearchParams): void {
  localSet("filterValues", toValues(query));
}

/** A changed filter starts at page 1; paging and order stay. */
export function withFilter(query: URLSearchParams, name: ListParam, values: string[]): URLSearchParams {
  const next = new URLSearchParams(query);
  next.delete(name);
  values.filter(Boolean).forEach((value) => next.append(name, value));
  if (name !== "page") next.set("page", "1");
  return next;
}

export function activeFilterCount(query: URLSearchParams): number {
  return FILTER_PARAMS.filter((name) => query.getAll(name).some(Boolean)).length;
}
