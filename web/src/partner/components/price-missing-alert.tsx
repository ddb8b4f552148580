import Alert from "@mui/material/Alert";
import AlertTitle from "@mui/material/AlertTitle";
import Link from "@mui/material/Link";
import { useTranslation } from "react-i18next";
import { Link as RouterLink } from "react-router";

import { useFeeMissing } from "../api/fees";
import { PARTNER_PATHS } from "../lib/paths";

/**
 * The warning while applications released for payout have no price (issue 49): a settlement
 * batch leaves them out. Shown on the dashboard and before a batch; nothing while all are priced.
 */
export function PriceMissingAlert({ link = true }: { link?: boolean }) {
  const { t } = useTranslation();
  const missing = useFeeMissing();
  if (!missing.data || missing.data.count === 0) return null;
  const groups = missing.data.groups
    .map((group) =>
      t("prices.missing.group", {
        year: group.legislation_year,
        vehicleClass: group.vehicle_class,
        count: group.count,
      }),
    )
    .join(", ");
  return (
    <Alert severity="warning" data-testid="price-missing" sx={{ mb: 2 }}>
      <AlertTitle>{t("prices.missing.title")}</AlertTitle>
      {t("prices.missing.text", { count: missing.data.count, groups })}
      {link && (
        <>
          {" "}
          <Link component={RouterLink} to={PARTNER_PATHS.prices} data-testid="price-missing-link">
            {t("prices.missing.link")}
          </Link>
        </>
      )}
    </Alert>
  );
}
