import { useQuery } from "@tanstack/react-query";
import { z } from "zod";

import { ApiError, api } from "@/shared/lib/http";

/** A returning owner's last billing data (GET clients/previous/): the IBAN only masked. */
export const clientPreviousSchema = z.object({
  gender: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  street_name: z.string(),
  street_number: z.string(),
  postal_code: z.string(),
  city: z.string(),
  account_name: z.string(),
  charge_card: z.string(),
  vehicle_owner_type: z.enum(["private", "business"]),
  is_vat_mandatory: z.boolean().nullable(),
  name_of_business: z.string(),
  vat_number: z.string(),
  account_iban_masked: z.string(),
  has_stored_iban: z.boolean(),
});

export type ClientPrevious = z.infer<typeof clientPreviousSchema>;

/** null for a first-time owner (404). */
export async function clientPrevious(): Promise<ClientPrevious | null> {
  try {
    return clientPreviousSchema.parse(await api("clients/previous/"));
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

export function useClientPrevious(enabled: boolean) {
  return useQuery({ queryKey: ["clients", "previous"], queryFn: clientPrevious, enabled, staleTime: Infinity, retry: false });
}
