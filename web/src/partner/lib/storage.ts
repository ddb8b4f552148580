/**
 * What the partner area keeps in localStorage, under the names spec/customer-portal.md
 * section 1 lists: `filter-values` (the application list's filter, paging and order),
 * `sub-partner-details` / `subpartner-id` (the sub-partner being edited: its unsaved form and
 * its id), `single-deal-details` (the single deal being edited), `settlement-batch-id` (the
 * settlement batch last opened, offered again on its list).
 */
export const PARTNER_KEYS = {
  filterValues: "filter-values",
  subPartnerDetails: "sub-partner-details",
  subPartnerId: "subpartner-id",
  singleDealDetails: "single-deal-details",
  settlementBatchId: "settlement-batch-id",
  language: "thg.partner.language",
} as const;

export type PartnerKey = keyof typeof PARTNER_KEYS;

export function localGet<T>(key: PartnerKey): T | null {
  const raw = window.localStorage.getItem(PARTNER_KEYS[key]);
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return null;
  }
}

export function localSet(key: PartnerKey, value: unknown): void {
  if (value === null || value === undefined) window.localStorage.removeItem(PARTNER_KEYS[key]);
  else window.localStorage.setItem(PARTNER_KEYS[key], JSON.stringify(value));
}

/** Logging out leaves nothing of the staff member's work in the browser. */
export function localClear(): void {
  for (const key of [
    "filterValues",
    "subPartnerDetails",
    "subPartnerId",
    "singleDealDetails",
    "settlementBatchId",
  ] as const)
    localSet(key, null);
}
