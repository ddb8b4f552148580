import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Typography from "@mui/material/Typography";
import { useEffect, useRef, useState } from "react";
import { useLocation } from "react-router";

import { usePartner, useTexts } from "@/shared/lib/partner-context";
import { PATHS } from "@/shared/lib/routes";
import { browser } from "@/shared/lib/browser";
import { isB2BPath } from "@/shared/lib/navigation";
import { clearSession, storeGet } from "@/shared/lib/session-store";
import { Layout } from "@/shared/ui/layout";
import { PageTitle } from "@/shared/ui/page-title";
import { decodeBase64, SafeHtml } from "@/shared/ui/safe-html";

export const RETURN_REDIRECT_MS = 1500;

/** Only web addresses may be returned to (no javascript: or data: URLs). */
export function safeUrl(value: string | null): URL | null {
  if (!value) return null;
  try {
    const url = new URL(value, window.location.origin);
    return url.protocol === "https:" || url.protocol === "http:" ? url : null;
  } catch {
    return null;
  }
}

export function returnUrlWithQuote(returnUrl: URL, quoteId: number | null, quoteUuid: string | null): string {
  const url = new URL(returnUrl);
  if (quoteId !== null) url.searchParams.set("thgQuoteId", String(quoteId));
  if (quoteUuid) url.searchParams.set("thgQuoteUUID", quoteUuid);
  return url.toString();
}

/** Finish / FinishB2B: only with a complete registration and a successful billing. */
export function Finish() {
  const t = useTexts();
  const partner = usePartner();
  const { pathname, search } = useLocation();
  const b2b = isB2BPath(pathname);
  // What the screen shows is read once: the store is cleared right after.
  const snapshot = useRef({
    allowed: storeGet<boolean>("bevRegistrationCompleted") === true && storeGet<boolean>("billingSuccess") === true,
    quoteId: storeGet<number>("quoteId"),
    quoteUuid: storeGet<string>("quoteUuid"),
    returnUrl: safeUrl(storeGet<string>("returnUrl")),
  }).current;
  const finish = partner.pages.finish;
  const redirect = safeUrl(finish.redirect_url);
  const countdownEnabled = partner.theme.flags.finishCountdown && redirect !== null;
  const [seconds, setSeconds] = useState(finish.countdown_seconds);

  useEffect(() => {
    if (!snapshot.allowed) {
      clearSession();
      browser.replace(`${b2b ? PATHS.LoginB2B : PATHS.TermsView}${search}`);
      return;
    }
    if (snapshot.returnUrl) {
      const timer = window.setTimeout(() => {
        const target = returnUrlWithQuote(snapshot.returnUrl!, snapshot.quoteId, snapshot.quoteUuid);
        clearSession();
        browser.assign(target);
      }, RETURN_REDIRECT_MS);
      return () => window.clearTimeout(timer);
    }
    if (!countdownEnabled) clearSession();
    return undefined;
  }, [snapshot, b2b, search, countdownEnabled]);

  useEffect(() => {
    if (!snapshot.allowed || snapshot.returnUrl || !countdownEnabled) return;
    const timer = window.setInterval(() => setSeconds((left) => left - 1), 1000);
    return () => window.clearInterval(timer);
  }, [snapshot, countdownEnabled]);

  useEffect(() => {
    if (countdownEnabled && seconds <= 0 && redirect) {
      clearSession();
      browser.assign(redirect.toString());
    }
  }, [countdownEnabled, seconds, redirect]);

  if (!snapshot.allowed) return null;
  return (
    <Layout>
      <PageTitle>{finish.title}</PageTitle>
      {snapshot.quoteId !== null && (
        <Typography sx={{ textAlign: partner.theme.tokens.itemAlignment, mb: 2 }} data-testid="finish-quote">
          {t("finish.quoteId").replace("{id}", String(snapshot.quoteId))}
        </Typography>
      )}
      <SafeHtml html={decodeBase64(finish.text)} testId="finish-text" />
      {countdownEnabled && !snapshot.returnUrl && (
        <Typography sx={{ mt: 3, textAlign: "center" }} role="timer" aria-live="polite" data-testid="finish-countdown">
          {seconds === 1 ? t("finish.redirectCountdownOne") : t("finish.redirectCountdown").replace("{seconds}", String(Math.max(seconds, 0)))}
        </Typography>
      )}
      {finish.is_button_redirect_enabled && redirect && (
        <Box sx={{ mt: 3, textAlign: "center" }}>
          <Button variant="contained" href={redirect.toString()} data-testid="finish-redirect">
            {t("finish.redirectButton")}
          </Button>
        </Box>
      )}
    </Layout>
  );
}
