import Typography from "@mui/material/Typography";

import { useTexts } from "@/shared/lib/partner-context";
import { Layout } from "@/shared/ui/layout";
import { PageTitle } from "@/shared/ui/page-title";

/** PLACEHOLDER: a screen of the route table that a later issue builds. */
export function Placeholder({ name }: { name: string }) {
  const t = useTexts();
  return (
    <Layout>
      <PageTitle>{name}</PageTitle>
      <Typography data-testid="placeholder-screen">{t("common.placeholderScreen")}</Typography>
    </Layout>
  );
}
