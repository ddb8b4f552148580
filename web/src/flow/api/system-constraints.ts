import { useQuery } from "@tanstack/react-query";

import type { Schemas } from "@/shared/api/typed";
import { apiClient } from "@/shared/lib/http";

export type ScanConstraints = Schemas["SystemConstraintsOut"]["bev_registration"]["zlb_scan_constraints"];

export async function systemConstraints(): Promise<ScanConstraints> {
  return (await apiClient.get("/api/system_constraints/")).bev_registration.zlb_scan_constraints;
}

export function useSystemConstraints() {
  return useQuery({ queryKey: ["system_constraints"], queryFn: systemConstraints, staleTime: Infinity });
}
