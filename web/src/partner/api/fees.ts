/** The partner's fee table (docs/partner-api.md, "Prices"): the current version with the
 * platform's bounds, its versions, and the payable applications no version prices. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Schemas } from "@/shared/api/typed";

import { APPLICATIONS_KEY } from "./applications";
import { partner } from "./client";

// The shapes are the server's (quota/fee_api.py), generated into shared/api/schema.d.ts.
export type FeeRow = Schemas["FeeRowOut"];
export type FeeVersion = Schemas["FeeVersionOut"];
export type FeeMissing = Schemas["FeeMissingOut"];
export type FeeTable = Schemas["FeeTableOut"];
export type FeeVersionWithRows = Schemas["FeeVersionRowsOut"];

export const FEES_KEY = ["partner", "fees"] as const;

export const useFeeTable = () =>
  useQuery({
    queryKey: [...FEES_KEY, "table"],
    queryFn: ({ signal }) => partner.get("/api/partner/fees/", { signal }),
  });

export const useFeeVersions = () =>
  useQuery({
    queryKey: [...FEES_KEY, "versions"],
    queryFn: ({ signal }) => partner.get("/api/partner/fees/versions/", { signal }),
  });

/** The warning's data: payable applications that no version of the table prices. */
export const useFeeMissing = () =>
  useQuery({
    queryKey: [...FEES_KEY, "missing"],
    queryFn: ({ signal }) => partner.get("/api/partner/fees/missing/", { signal }),
  });

export type FeeTableSave = { base_version: number; rows: FeeRow[]; note: string };

export function useFeeTableSave() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: FeeTableSave) => partner.put("/api/partner/fees/", { json: body }),
    onSuccess: (table) => {
      client.setQueryData([...FEES_KEY, "table"], table);
      void client.invalidateQueries({ queryKey: FEES_KEY });
      // the list's amounts follow the new prices
      void client.invalidateQueries({ queryKey: APPLICATIONS_KEY });
    },
  });
}
