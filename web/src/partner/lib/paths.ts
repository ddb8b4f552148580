/** The partner area's routes, all under /partner. */
export const PARTNER_PATHS = {
  root: "/partner",
  login: "/partner/login",
  invite: (key: string) => `/partner/invite/${key}`,
  dashboard: "/partner/dashboard",
  applications: "/partner/applications",
  subPartners: "/partner/sub-partners",
  singleDeals: "/partner/single-deals",
  staff: "/partner/staff",
  audit: "/partner/audit",
  bulkUploads: "/partner/bulk-uploads",
  bulkUpload: (id: number) => `/partner/bulk-uploads/${id}`,
  settlementBatches: "/partner/settlement-batches",
  settlementBatch: (id: number) => `/partner/settlement-batches/${id}`,
  privacy: "/partner/privacy",
} as const;
