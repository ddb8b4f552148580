import Box from "@mui/material/Box";
import Typography from "@mui/material/Typography";
import { useTranslation } from "react-i18next";

import { usePartner } from "@/app/partner-context";
import { SafeHtml } from "@/shared/ui/safe-html";

import { advertisementCount } from "../api/quota-applications";

/** The partner's advertisement: an image linking out (each click counted) or sanitised free text. */
export function Advertisement() {
  const { t } = useTranslation();
  const advertisement = usePartner().partneradvertisement;
  if (!advertisement.enabled) return null;
  const content =
    advertisement.type === "image" && advertisement.image ? (
      <a
        href={advertisement.url || undefined}
        target="_blank"
        rel="noopener noreferrer"
        onClick={() => advertisement.id !== null && advertisementCount(advertisement.id)}
        data-testid="advertisement-link"
      >
        <img src={advertisement.image} alt={t("registrations.advertisement")} style={{ display: "block", width: "100%", borderRadius: 8 }} />
      </a>
    ) : (
      <SafeHtml html={advertisement.freetext} testId="advertisement-text" />
    );
  return (
    <Box component="aside" aria-label={t("registrations.advertisement")} sx={{ mb: 3 }} data-testid="advertisement">
      <Typography variant="caption" color="text.secondary">
        {t("registrations.advertisement")}
      </Typography>
      {content}
    </Box>
  );
}
