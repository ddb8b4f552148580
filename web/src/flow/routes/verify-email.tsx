import Box from "@mui/material/Box";
import CircularProgress from "@mui/material/CircularProgress";
import Typography from "@mui/material/Typography";
import { useEffect } from "react";
import { useLocation, useNavigate } from "react-router";

import { useTexts } from "@/shared/lib/partner-context";
import { PATHS } from "@/shared/lib/routes";
import { emailVerify } from "@/flow/api/email-verify";
import { type Checklist, EMPTY_CHECKLIST } from "@/flow/state/flow-state";
import { useBlockBack } from "@/shared/lib/block-back";
import { isB2BPath, queryWith } from "@/shared/lib/navigation";
import { rememberEmail, storeGet, storeSet } from "@/shared/lib/session-store";
import { Layout } from "@/shared/ui/layout";

// A key is single use: one verification per key, even when React runs the effect twice.
const verifications = new Map<string, ReturnType<typeof emailVerify>>();

/** The checklist the link carried back (it may open in a new tab without the old state). */
export function checklistFromQuery(params: URLSearchParams, stored: Checklist | null): Checklist {
  const flag = (key: string, fallback: boolean) => (params.has(key) ? params.get(key) === "true" : fallback);
  const base = stored ?? EMPTY_CHECKLIST;
  const nextYearTerms = flag("next_year_terms", base.nextYearTerms);
  const currentYear = flag("current_year", base.currentYear);
  const nextYear = flag("next_year", base.nextYear);
  return {
    ...base,
    privacy: true,
    // The link is only sent after the terms were accepted for the chosen years.
    terms: base.terms || currentYear || (!nextYear && !nextYearTerms) || (nextYear && !nextYearTerms),
    currentYear,
    nextYear,
    nextYearTerms,
    emailPromotion: flag("email_promotion", base.emailPromotion),
    additionalRequirement: flag("freeText", base.additionalRequirement),
  };
}

/** VerifyEmail / VerifyEmailB2B: the magic link's key gives the tokens. */
export function VerifyEmail() {
  const t = useTexts();
  const navigate = useNavigate();
  const { pathname, search } = useLocation();
  const b2b = isB2BPath(pathname);
  useBlockBack();

  useEffect(() => {
    const params = new URLSearchParams(search);
    const key = params.get("key") ?? "";
    const failed = () => {
      console.warn("Error while receiving token");
      navigate(b2b ? "/b2b" : PATHS.Welcome, { replace: true });
    };
    if (!key) {
      failed();
      return;
    }
    if (!verifications.has(key)) verifications.set(key, emailVerify(key));
    let active = true;
    verifications.get(key)!.then(
      (tokens) => {
        if (!active) return;
        storeSet("tokens", tokens);
        storeSet("authenticated", true);
        const address = storeGet<string>("email");
        if (address) rememberEmail(address);
        const campaign = params.get("campaign");
        if (campaign) storeSet("campaign", campaign);
        const reference = params.get("user_reference");
        if (reference) storeSet("urlVariableValue", reference);
        if (!b2b) storeSet("checklist", checklistFromQuery(params, storeGet<Checklist>("checklist")));
        // The key is spent; it does not travel on in the address bar.
        navigate({ pathname: b2b ? PATHS.ImageUploadWrapperB2B : PATHS.ImageUploadWrapper, search: queryWith(search, "key", null) }, { replace: true });
      },
      () => active && failed(),
    );
    return () => {
      active = false;
    };
  }, [search, b2b, navigate]);

  return (
    <Layout>
      <Box sx={{ display: "grid", placeItems: "center", gap: 2, py: 6 }}>
        <CircularProgress aria-label={t("verifyEmail.checking")} />
        <Typography>{t("verifyEmail.checking")}</Typography>
      </Box>
    </Layout>
  );
}
