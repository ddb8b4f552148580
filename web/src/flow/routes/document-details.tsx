import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Link from "@mui/material/Link";
import { useLocation } from "react-router";

import { usePartner, useTexts } from "@/shared/lib/partner-context";
import { PATHS } from "@/shared/lib/routes";
import type { Checklist } from "@/flow/state/flow-state";
import { useFlowNavigate } from "@/shared/lib/navigation";
import { storeGet } from "@/shared/lib/session-store";
import { Layout } from "@/shared/ui/layout";
import { PageTitle } from "@/shared/ui/page-title";
import { decodeBase64, SafeHtml } from "@/shared/ui/safe-html";

/** Next year's documents when the query says year=next, or when only the next year is ticked. */
function wantsNextYear(search: string): boolean {
  if (new URLSearchParams(search).get("year") === "next") return true;
  const checklist = storeGet<Checklist>("checklistDraft") ?? storeGet<Checklist>("checklist");
  return Boolean(checklist?.nextYear && !checklist.currentYear);
}

function DocumentPage({ kind }: { kind: "terms" | "privacy" }) {
  const t = useTexts();
  const { pages } = usePartner();
  const navigate = useFlowNavigate();
  const { search } = useLocation();
  const next = wantsNextYear(search);
  const current = kind === "terms" ? pages.termsdetails : pages.privacydetails;
  const nextYear = kind === "terms" ? pages.next_year_termsdetails : pages.next_year_privacydetails;
  const page = next && (nextYear.text || nextYear.file) ? nextYear : current;
  const download = kind === "terms" ? t("termsDetails.download") : t("privacyDetails.download");
  const back = () => navigate(PATHS.TermsView);
  return (
    <Layout>
      <PageTitle>{kind === "terms" ? t("termsDetails.title") : t("privacyDetails.title")}</PageTitle>
      <SafeHtml html={decodeBase64(page.text)} testId={`${kind}-text`} />
      <Box sx={{ mt: 3, display: "flex", flexDirection: "column", alignItems: "center", gap: 2 }}>
        {page.file && (
          <Link href={page.file} target="_blank" rel="noopener noreferrer" download data-testid={`${kind}-download`}>
            {download}
          </Link>
        )}
        <Button variant="outlined" onClick={back} data-testid="details-back">
          {t("common.back")}
        </Button>
      </Box>
    </Layout>
  );
}

export function TermsDetails() {
  return <DocumentPage kind="terms" />;
}

export function PrivacyDetails() {
  return <DocumentPage kind="privacy" />;
}

