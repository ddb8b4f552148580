import { Navigate, useLocation } from "react-router";

import { usePartner, useTexts } from "@/shared/lib/partner-context";
import { withQuery } from "@/shared/lib/navigation";
import { Layout } from "@/shared/ui/layout";
import { PageTitle } from "@/shared/ui/page-title";
import { SafeHtml } from "@/shared/ui/safe-html";

/** Impressum: only when show_impressum is on and details exist, else back to /. */
export function Impressum() {
  const t = useTexts();
  const partner = usePartner();
  const { search } = useLocation();
  if (!partner.show_impressum || !partner.impressum_details.trim()) return <Navigate to={withQuery("/", search)} replace />;
  return (
    <Layout>
      <PageTitle>{t("impressum.title")}</PageTitle>
      <SafeHtml html={partner.impressum_details} testId="impressum-details" />
    </Layout>
  );
}
