import Typography from "@mui/material/Typography";

import { useTexts } from "@/shared/lib/partner-context";
import { Layout } from "@/shared/ui/layout";
import { PageTitle } from "@/shared/ui/page-title";

export function FrontendDeactivated() {
  const t = useTexts();
  return (
    <Layout>
      <PageTitle>{t("deactivated.title")}</PageTitle>
      <Typography data-testid="deactivated-text" sx={{ textAlign: "center" }}>
        {t("deactivated.text")}
      </Typography>
    </Layout>
  );
}
