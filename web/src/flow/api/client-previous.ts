import { useQuery } from "@tanstack/react-query";

import type { Schemas } from "@/shared/api/typed";
import { ApiError, apiClient } from "@/shared/lib/http";

/** A returning owner's last billing data (GET clients/previous/): the IBAN only masked. */
export type ClientPrevious = Schemas["ClientPreviousOut"];

/** null for a first-time owner (404). */
export async function clientPrevious(): Promise<ClientPrevious | null> {
  try {
    return await apiClient.get("/api/clients/previous/");
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

export function useClientPrevious(enabled: boolean) {
  return useQuery({ queryKey: ["clients", "previous"], queryFn: clientPrevious, enabled, staleTime: Infinity, retry: false });
}
