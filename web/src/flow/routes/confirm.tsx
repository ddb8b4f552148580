import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Typography from "@mui/material/Typography";
import { Navigate, useLocation } from "react-router";

import { usePartner, useTexts } from "@/shared/lib/partner-context";
import { PATHS } from "@/shared/lib/routes";
import { type Checklist, checklistAllowsLogin } from "@/flow/state/flow-state";
import { useBlockBack } from "@/shared/lib/block-back";
import { isB2BPath, useFlowNavigate, withQuery } from "@/shared/lib/navigation";
import { clearSession, storeGet } from "@/shared/lib/session-store";
import { Layout } from "@/shared/ui/layout";
import { PageTitle } from "@/shared/ui/page-title";

import { termsOptions } from "./terms";

/** Confirm / ConfirmB2B: the link is on its way; check the spam folder or restart. */
export function Confirm() {
  const t = useTexts();
  const partner = usePartner();
  const navigate = useFlowNavigate();
  const { pathname, search } = useLocation();
  const b2b = isB2BPath(pathname);
  useBlockBack();
  if (!b2b && !checklistAllowsLogin(storeGet<Checklist>("checklist"), termsOptions(partner).nextYearTermsExist)) {
    return <Navigate to={withQuery(PATHS.TermsView, search)} replace />;
  }
  const email = storeGet<string>("email") ?? "";
  const restart = () => {
    clearSession();
    navigate(b2b ? PATHS.WelcomeB2B : PATHS.Welcome);
  };
  return (
    <Layout>
      <PageTitle>{t("confirm.title")}</PageTitle>
      <Typography sx={{ mb: 2, textAlign: partner.theme.tokens.itemAlignment }} data-testid="confirm-text">
        {t("confirm.text").replace("{email}", email)}
      </Typography>
      <Typography variant="body2" sx={{ mb: 3, textAlign: partner.theme.tokens.itemAlignment }}>
        {t("confirm.help")}
      </Typography>
      <Box sx={{ textAlign: "center" }}>
        <Button variant="outlined" onClick={restart} data-testid="confirm-restart">
          {t("common.restart")}
        </Button>
      </Box>
    </Layout>
  );
}
