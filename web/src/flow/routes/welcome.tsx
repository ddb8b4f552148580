import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Link from "@mui/material/Link";
import Typography from "@mui/material/Typography";
import { Navigate, useLocation } from "react-router";

import { usePartner, useTexts } from "@/shared/lib/partner-context";
import { PATHS } from "@/shared/lib/routes";
import { YearDeadline } from "@/flow/components/year-deadline";
import { isDesktop } from "@/shared/lib/device";
import { isB2BPath, useFlowNavigate, withQuery } from "@/shared/lib/navigation";
import { Layout } from "@/shared/ui/layout";
import { PageTitle } from "@/shared/ui/page-title";
import { Steps } from "@/shared/ui/steps";

import { WelcomeDesktop } from "./welcome-desktop";

/** `/` (and `/b2b`): the mobile welcome, WelcomeDesktop on a desktop, WelcomeB2B on B2B. */
export function WelcomeEntry() {
  const { pathname, search } = useLocation();
  if (isB2BPath(pathname)) return <Navigate to={withQuery(PATHS.WelcomeB2B, search)} replace />;
  return isDesktop() ? <WelcomeDesktop /> : <Welcome />;
}

export function Welcome() {
  const t = useTexts();
  const partner = usePartner();
  const navigate = useFlowNavigate();
  const { pathname } = useLocation();
  const { itemAlignment } = partner.theme.tokens;
  return (
    <Layout>
      <PageTitle>{t("welcome.title")}</PageTitle>
      <Typography sx={{ textAlign: itemAlignment, mb: 3 }}>{t("welcome.register")}</Typography>
      <YearDeadline />
      <Typography variant="h2" component="h2" sx={{ mb: 2 }}>
        {t("welcome.fourSteps")}
      </Typography>
      <Steps steps={[t("welcome.step1"), t("welcome.step2"), t("welcome.step3"), t("welcome.step4")]} />
      <Box sx={{ mt: 4, display: "flex", flexDirection: "column", alignItems: "center", gap: 2 }}>
        <Button
          variant="contained"
          color="primary"
          size="large"
          fullWidth
          data-testid="welcome-start"
          onClick={() => navigate(isB2BPath(pathname) ? PATHS.LoginB2B : PATHS.TermsView)}
        >
          {t("welcome.start")}
        </Button>
        {partner.theme.flags.providerBranded && (
          <Link component="button" type="button" onClick={() => navigate(PATHS.FAQ)} data-testid="welcome-faq">
            {t("welcome.faqLink")}
          </Link>
        )}
        {t("welcome.byLine") && <Typography variant="body2">{t("welcome.byLine")}</Typography>}
      </Box>
    </Layout>
  );
}
