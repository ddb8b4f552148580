import Button from "@mui/material/Button";
import Typography from "@mui/material/Typography";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";

import { usePartner } from "@/shared/lib/partner-context";
import { decodeBase64, SafeHtml } from "@/shared/ui/safe-html";

/** TermsAndConditions: the partner's terms (base64 in the configuration). */
export function TermsAndConditions() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const partner = usePartner();
  return (
    <>
      <Typography variant="h1" sx={{ mb: 2 }}>
        {t("terms.title")}
      </Typography>
      <SafeHtml html={decodeBase64(partner.pages.termsdetails.text)} testId="portal-terms" />
      <Button sx={{ mt: 2 }} variant="outlined" onClick={() => navigate(-1)} data-testid="terms-back">
        {t("terms.back")}
      </Button>
    </>
  );
}
