/** The partner kinds of Storybook's toolbar: the bundles `manage.py export_partner_fixtures` wrote. */
import { partnerConfigSchema, type PartnerConfig } from "@/api/config";

import deactivated from "../../../storybook/fixtures/deactivated.json";
import standard from "../../../storybook/fixtures/standard.json";
import utility from "../../../storybook/fixtures/utility.json";
import wallbox from "../../../storybook/fixtures/wallbox.json";

export const PARTNERS: Record<"standard" | "utility" | "wallbox" | "deactivated", PartnerConfig> = {
  standard: partnerConfigSchema.parse(standard),
  utility: partnerConfigSchema.parse(utility),
  wallbox: partnerConfigSchema.parse(wallbox),
  deactivated: partnerConfigSchema.parse(deactivated),
};
