import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import CircularProgress from "@mui/material/CircularProgress";
import Pagination from "@mui/material/Pagination";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Navigate } from "react-router";

import { usePartner } from "@/shared/lib/partner-context";
import { browser } from "@/shared/lib/browser";
import { registrationStateClear } from "@/shared/lib/session-store";
import { ApiError } from "@/shared/lib/http";
import { useToaster } from "@/shared/ui/toaster";

import { PAGE_SIZE, type RegistrationItem, useQuotaApplications, useResubmit } from "../api/quota-applications";
import { Advertisement } from "../components/advertisement";
import { PrivacyPanel } from "../components/privacy-panel";
import { RegistrationCard } from "../components/registration-card";
import { EMPTY_FORM, ResubmitDialog, type ResubmitForm } from "../components/resubmit-dialog";
import { portalGet, portalSet, type ResubmitState } from "../lib/portal-store";
import { PORTAL_PATHS } from "../paths";

export const SCROLL_DELAY_MS = 100;
export const SCROLL_OFFSET_PX = 82;

type Open = { item: RegistrationItem; year: number | ""; form: ResubmitForm };

/** RegistrationsView: advertisement, new registration, the cards, the paginator, resubmit. */
/** German names for the paginator's buttons ('Vorherige Seite', 'Seite 2', ...). */
function pageLabel(t: (key: string, options?: Record<string, unknown>) => string, type: string, page: number | null, selected: boolean): string {
  if (type === "page") return t(selected ? "registrations.pageCurrent" : "registrations.page", { page });
  return t(`registrations.${type}Page`);
}

export function RegistrationsView() {
  const { t } = useTranslation();
  const toast = useToaster();
  const partner = usePartner();
  // Back from the terms or privacy page with the dialog open: its page, its card, its state.
  const [pending] = useState(() => portalGet<ResubmitState>("resubmit"));
  const applied = useRef(false);
  const [page, setPage] = useState(pending?.pageNumber ?? 1);
  const list = useQuotaApplications(page);
  const resubmit = useResubmit();
  const [open, setOpen] = useState<Open | null>(null);

  useEffect(() => {
    if (!pending || !list.data || applied.current) return;
    applied.current = true;
    portalSet("resubmit", null);
    const item = list.data.results.find((entry) => entry.sequence === pending.sequence);
    const timer = window.setTimeout(() => {
      const card = document.getElementById(`registration-${pending.sequence}`);
      if (card) window.scrollTo({ top: card.getBoundingClientRect().top + window.scrollY - SCROLL_OFFSET_PX, behavior: "smooth" });
    }, SCROLL_DELAY_MS);
    if (item) setOpen({ item, year: pending.selectedYear, form: pending.formData });
    return () => window.clearTimeout(timer);
  }, [pending, list.data]);

  if (list.error instanceof ApiError && list.error.status === 403) return <Navigate to={PORTAL_PATHS.signup} replace />;
  const data = list.data;
  const pages = data ? Math.ceil(data.count / PAGE_SIZE) : 0;

  return (
    <Box>
      <Advertisement />
      <Box sx={{ display: "flex", justifyContent: "space-between", alignItems: "center", flexWrap: "wrap", gap: 2, mb: 2 }}>
        <Typography variant="h1">
          {t("registrations.title")}
        </Typography>
        <Button variant="contained" onClick={() => {
            registrationStateClear();
            browser.assign("/terms?eup=1");
          }} data-testid="new-registration">
          {t("registrations.new")}
        </Button>
      </Box>
      {list.isLoading ? (
        <CircularProgress aria-label={t("generic.loading")} />
      ) : data && data.results.length > 0 ? (
        <Stack spacing={2}>
          {data.results.map((item) => (
            <RegistrationCard key={item.id} item={item} onResubmit={(chosen) => setOpen({ item: chosen, year: "", form: EMPTY_FORM })} />
          ))}
        </Stack>
      ) : (
        !list.isFetching && (
          <Typography data-testid="registrations-empty" sx={{ my: 4 }}>
            {t("registrations.empty")}
          </Typography>
        )
      )}
      {data && data.count > 0 && data.results.length > 0 && pages > 1 && (
        <Pagination
          sx={{ mt: 3, display: "flex", justifyContent: "center" }}
          count={pages}
          page={page}
          onChange={(_, next) => next >= 1 && next <= pages && setPage(next)}
          getItemAriaLabel={(type, number, selected) => pageLabel(t, type, number, selected)}
          data-testid="paginator"
        />
      )}
      <PrivacyPanel />
      {open && (
        <ResubmitDialog
          key={open.item.id}
          item={open.item}
          pageNumber={page}
          initialYear={open.year}
          initialForm={open.form}
          pending={resubmit.isPending}
          onCancel={() => setOpen(null)}
          onResubmit={({ period, form }) =>
            resubmit.mutate(
              { id: open.item.id, period, email_promotion_opt_in: form.emailPromotion, free_text: form.additionalRequirement ? partner.pages.terms.free_text_permission_text : "" },
              {
                onSuccess: () => {
                  setOpen(null);
                  toast(t("registrations.created"), { success: true });
                },
                onError: () => {
                  setOpen(null);
                  toast(t("registrations.vehicleTaken"));
                },
              },
            )
          }
        />
      )}
    </Box>
  );
}
