import Box from "@mui/material/Box";
import Button from "@mui/material/Button";

import { useTexts } from "@/shared/lib/partner-context";
import { PATHS } from "@/shared/lib/routes";
import { useFlowNavigate } from "@/shared/lib/navigation";
import { Layout } from "@/shared/ui/layout";
import { PageTitle } from "@/shared/ui/page-title";
import { Steps } from "@/shared/ui/steps";

export function WelcomeB2B() {
  const t = useTexts();
  const navigate = useFlowNavigate();
  return (
    <Layout>
      <PageTitle>{t("welcomeB2B.title")}</PageTitle>
      <Steps steps={[t("welcomeB2B.step1"), t("welcomeB2B.step2"), t("welcomeB2B.step3")]} />
      <Box sx={{ mt: 4 }}>
        <Button variant="contained" color="primary" size="large" fullWidth data-testid="welcome-start" onClick={() => navigate(PATHS.LoginB2B)}>
          {t("welcome.start")}
        </Button>
      </Box>
    </Layout>
  );
}
