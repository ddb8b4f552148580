/** Sub-partners and single deals (docs/partner-api.md, "Sub-partners and single deals"). */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Schemas } from "@/shared/api/typed";

import { APPLICATIONS_KEY } from "./applications";
import { partner } from "./client";

// The shapes are the server's (operations/api.py), generated into shared/api/schema.d.ts.
export type SubPartner = Schemas["SubPartnerOut"];
export type SingleDeal = Schemas["SingleDealOut"];

export type Kind = "sub_partners" | "single_deals";
type Item<K extends Kind> = K extends "sub_partners" ? SubPartner : SingleDeal;

export const operationsKey = (kind: Kind) => ["partner", kind] as const;

export async function operationList<K extends Kind>(kind: K, query: URLSearchParams, signal?: AbortSignal) {
  const answer =
    kind === "sub_partners"
      ? await partner.get("/api/partner/sub_partners/", { query, signal })
      : await partner.get("/api/partner/single_deals/", { query, signal });
  // the branch taken is the one of K (TypeScript does not narrow a generic by a comparison)
  return answer as unknown as { count: number; results: Item<K>[] };
}

export const useOperationList = <K extends Kind>(kind: K, query: URLSearchParams) =>
  useQuery({
    queryKey: [...operationsKey(kind), "list", query.toString()],
    queryFn: ({ signal }) => operationList(kind, query, signal),
    placeholderData: keepPreviousData,
  });

export async function operationSave<K extends Kind>(
  kind: K,
  id: number | null,
  values: Record<string, unknown>,
): Promise<Item<K>> {
  // The form's values as they are (SubPartnerIn, SingleDealIn): the server checks them.
  const answer =
    kind === "sub_partners"
      ? id === null
        ? await partner.post("/api/partner/sub_partners/", { json: values as Schemas["SubPartnerIn"] })
        : await partner.patch("/api/partner/sub_partners/{sub_partner_id}/", {
            path: { sub_partner_id: id },
            json: values as Schemas["SubPartnerIn"],
          })
      : id === null
        ? await partner.post("/api/partner/single_deals/", { json: values as Schemas["SingleDealIn"] })
        : await partner.patch("/api/partner/single_deals/{single_deal_id}/", {
            path: { single_deal_id: id },
            json: values as Schemas["SingleDealIn"],
          });
  // the branch taken is the one of K, as in operationList
  return answer as Item<K>;
}

export async function operationDeactivate(kind: Kind, id: number): Promise<void> {
  if (kind === "sub_partners") {
    await partner.delete("/api/partner/sub_partners/{sub_partner_id}/", { path: { sub_partner_id: id } });
  } else {
    await partner.delete("/api/partner/single_deals/{single_deal_id}/", { path: { single_deal_id: id } });
  }
}

export function useOperationSave<K extends Kind>(kind: K) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, values }: { id: number | null; values: Record<string, unknown> }) =>
      operationSave(kind, id, values),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: operationsKey(kind) });
      void client.invalidateQueries({ queryKey: APPLICATIONS_KEY });
    },
  });
}

export function useOperationDeactivate(kind: Kind) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => operationDeactivate(kind, id),
    onSuccess: () => client.invalidateQueries({ queryKey: operationsKey(kind) }),
  });
}
