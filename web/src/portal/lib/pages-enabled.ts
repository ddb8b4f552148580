import type { PartnerConfig } from "@/api/config";

/** The conditions of section 2: shown in the menu and reachable only when configured. */
export function impressumEnabled(partner: PartnerConfig): boolean {
  return partner.show_impressum && Boolean(partner.impressum_details);
}

export function privacyEnabled(partner: PartnerConfig): boolean {
  return partner.show_data_privacy && Boolean(partner.pages.privacydetails.text);
}
