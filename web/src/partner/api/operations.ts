/** Sub-partners and single deals (docs/partner-api.md, "Sub-partners and single deals"). */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { z } from "zod";

import { APPLICATIONS_KEY } from "./applications";
import { partnerApi } from "./client";

export const subPartnerSchema = z.object({
  id: z.number(),
  name: z.string(),
  contact_name: z.string().nullable().default(""),
  contact_email: z.string().nullable().default(""),
  contact_phone: z.string().nullable().default(""),
  referral_key: z.string(),
  fee_share_percent: z.string(),
  is_active: z.boolean(),
  application_count: z.number().default(0),
  created_at: z.string(),
});
export type SubPartner = z.infer<typeof subPartnerSchema>;

export const singleDealSchema = z.object({
  id: z.number(),
  name: z.string(),
  customer: z.string().nullable().default(""),
  deal_key: z.string(),
  price_net: z.string(),
  vat_percent: z.string(),
  price_gross: z.string(),
  legislation_years: z.array(z.number()),
  vehicle_cap: z.number().nullable(),
  vehicles_used: z.number().default(0),
  is_active: z.boolean(),
  created_at: z.string(),
});
export type SingleDeal = z.infer<typeof singleDealSchema>;

const page = <T extends z.ZodTypeAny>(item: T) => z.object({ count: z.number(), results: z.array(item) });

export type Kind = "sub_partners" | "single_deals";
const SCHEMAS = { sub_partners: subPartnerSchema, single_deals: singleDealSchema } as const;
type Item<K extends Kind> = K extends "sub_partners" ? SubPartner : SingleDeal;

export const operationsKey = (kind: Kind) => ["partner", kind] as const;

export async function operationList<K extends Kind>(kind: K, query: URLSearchParams, signal?: AbortSignal) {
  const answer = page(SCHEMAS[kind]).parse(await partnerApi(`${kind}/`, { query, signal }));
  return answer as { count: number; results: Item<K>[] };
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
  const answer = await partnerApi(id === null ? `${kind}/` : `${kind}/${id}/`, {
    method: id === null ? "POST" : "PATCH",
    json: values,
  });
  return SCHEMAS[kind].parse(answer) as Item<K>;
}

export async function operationDeactivate(kind: Kind, id: number): Promise<void> {
  await partnerApi(`${kind}/${id}/`, { method: "DELETE" });
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
