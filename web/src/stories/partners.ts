/** The partner kinds of Storybook's toolbar: the bundles `manage.py export_partner_fixtures` wrote
 * (config answers: tests/api/test_configs.py checks them against the server's type). */
import type { PartnerConfig } from "@/api/config";

import deactivated from "../../../storybook/fixtures/deactivated.json";
import standard from "../../../storybook/fixtures/standard.json";
import utility from "../../../storybook/fixtures/utility.json";
import wallbox from "../../../storybook/fixtures/wallbox.json";

export const PARTNERS: Record<"standard" | "utility" | "wallbox" | "deactivated", PartnerConfig> = {
  standard: standard as PartnerConfig,
  utility: utility as PartnerConfig,
  wallbox: wallbox as PartnerConfig,
  deactivated: deactivated as PartnerConfig,
};
