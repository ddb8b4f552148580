import { createContext, useContext } from "react";

import type { PartnerConfig } from "@/api/config";

export const PartnerContext = createContext<PartnerConfig | null>(null);

export function usePartner(): PartnerConfig {
  const partner = useContext(PartnerContext);
  if (!partner) throw new Error("usePartner outside of the partner provider");
  return partner;
}

/** The partner's German text for a key (the text bundle of the compiled theme). */
export function useTexts(): (key: string) => string {
  const partner = usePartner();
  return (key: string) => partner.theme.texts.de[key] ?? key;
}
