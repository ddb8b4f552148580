import { useQuery } from "@tanstack/react-query";
import { z } from "zod";

import { api } from "@/shared/lib/http";

export const systemConstraintsSchema = z.object({
  bev_registration: z.object({
    zlb_scan_constraints: z.object({ min_size: z.number(), max_pixels: z.number() }),
  }),
});

export type ScanConstraints = z.infer<typeof systemConstraintsSchema>["bev_registration"]["zlb_scan_constraints"];

export async function systemConstraints(): Promise<ScanConstraints> {
  return systemConstraintsSchema.parse(await api("system_constraints/")).bev_registration.zlb_scan_constraints;
}

export function useSystemConstraints() {
  return useQuery({ queryKey: ["system_constraints"], queryFn: systemConstraints, staleTime: Infinity });
}
