import Link from "@mui/material/Link";
import Typography from "@mui/material/Typography";
import { useTranslation } from "react-i18next";

import { usePartner } from "@/shared/lib/partner-context";
import { PageTitle } from "@/shared/ui/page-title";
import { decodeBase64, SafeHtml } from "@/shared/ui/safe-html";

export function PortalImpressum() {
  const { t } = useTranslation();
  const partner = usePartner();
  return (
    <>
      <PageTitle>{t("shell.impressum")}</PageTitle>
      <SafeHtml html={partner.impressum_details} testId="portal-impressum" />
    </>
  );
}

export function DataPrivacyInfo() {
  const { t } = useTranslation();
  const page = usePartner().pages.privacydetails;
  return (
    <>
      <PageTitle>{t("shell.privacy")}</PageTitle>
      <SafeHtml html={decodeBase64(page.text)} testId="portal-privacy" />
      {page.file && (
        <Typography sx={{ mt: 2 }}>
          <Link href={page.file} download target="_blank" rel="noopener">
            Online-Datenschutzinformation herunterladen
          </Link>
        </Typography>
      )}
    </>
  );
}
