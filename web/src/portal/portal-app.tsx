import Box from "@mui/material/Box";
import CircularProgress from "@mui/material/CircularProgress";
import LinearProgress from "@mui/material/LinearProgress";
import { type ReactElement, Suspense, useEffect, useState } from "react";
import { I18nextProvider, useTranslation } from "react-i18next";
import { Navigate, Route, Routes, useNavigate } from "react-router";

import { lazyScreen } from "@/shared/lib/lazy-screen";
import { usePartner } from "@/shared/lib/partner-context";
import { browser } from "@/shared/lib/browser";
import { clearSession, storeGet } from "@/shared/lib/session-store";
import { NotFound } from "@/shared/ui/not-found";
import { useToaster } from "@/shared/ui/toaster";

import { AuthLayout } from "./components/auth-layout";
import { VersionCheck } from "./components/version-check";
import { createPortalI18n } from "./i18n";
import { impressumEnabled, privacyEnabled } from "./lib/pages-enabled";
import { onPortalSession, useBusy } from "./lib/portal-api";
import { portalClear } from "./lib/portal-store";
import { PORTAL_PATHS } from "./paths";
import { LoginView, ResetPanel } from "./routes/login";

// The login comes with the portal's chunk (the server preloads it on portal pages; on the
// login's own, boot.ts does after the first paint); every other portal screen is a chunk of its
// own, fetched once the login is up (lazy-screen.ts), so a phone opening the login downloads
// and runs only what the login needs.
const Shell = lazyScreen(() => import("./components/shell"), "Shell");
const RegistrationsView = lazyScreen(() => import("./routes/registrations"), "RegistrationsView");
const PortalImpressum = lazyScreen(() => import("./routes/pages"), "PortalImpressum");
const DataPrivacyInfo = lazyScreen(() => import("./routes/pages"), "DataPrivacyInfo");
const ResetPassword = lazyScreen(() => import("./routes/reset-password"), "ResetPassword");
const EmailVerify = lazyScreen(() => import("./routes/email-verify"), "EmailVerify");
const TermsAndConditions = lazyScreen(() => import("./routes/terms"), "TermsAndConditions");
const RecaptchaOtpFlow = lazyScreen(() => import("./routes/otp"), "RecaptchaOtpFlow");
const SignupView = lazyScreen(() => import("./routes/signup"), "SignupView");
const SCREENS = [
  Shell,
  RegistrationsView,
  PortalImpressum,
  DataPrivacyInfo,
  ResetPassword,
  EmailVerify,
  TermsAndConditions,
  RecaptchaOtpFlow,
  SignupView,
  ResetPanel,
];

/** Every portal screen's chunk (the stories load them before they render). */
export function loadPortalScreens(): Promise<unknown[]> {
  return Promise.all(SCREENS.map((screen) => screen.load()));
}

export const RESTORED_TOAST_MS = 2000;
export const RELOAD_AFTER_MS = 2500;

/** The customer portal under /portal (spec/customer-portal.md), in its own chunk. */
export function PortalApp() {
  const [i18n] = useState(() => createPortalI18n());
  useEffect(() => {
    document.documentElement.lang = i18n.language;
    const changed = (language: string) => (document.documentElement.lang = language);
    i18n.on("languageChanged", changed);
    return () => i18n.off("languageChanged", changed);
  }, [i18n]);
  return (
    <I18nextProvider i18n={i18n}>
      <SessionRestore />
      <Progress />
      <VersionCheck />
      <Suspense fallback={<Waiting />}>
        <PortalRoutes />
      </Suspense>
    </I18nextProvider>
  );
}

function PortalRoutes() {
  const partner = usePartner();
  return (
    <Routes>
      <Route index element={<Navigate to={PORTAL_PATHS.login} replace />} />
      <Route path="auth" element={<AuthLayout />}>
        <Route index element={<Navigate to={PORTAL_PATHS.login} replace />} />
        <Route path="login" element={<LoginView />} />
        <Route path="reset-password" element={<ResetPassword />} />
        <Route path="verify-email" element={<EmailVerify />} />
        <Route path="terms-and-conditions" element={<TermsAndConditions />} />
        <Route path="otp/:userId" element={<RecaptchaOtpFlow />} />
        <Route path="signup" element={<SignupView />} />
      </Route>
      <Route element={<RequireToken element={<Shell />} />}>
        <Route path="registrations" element={<RegistrationsView />} />
        {impressumEnabled(partner) && <Route path="impressum" element={<PortalImpressum />} />}
        {privacyEnabled(partner) && <Route path="data-privacy-info" element={<DataPrivacyInfo />} />}
      </Route>
      {/* Pages a partner has switched off lead to the login, as before; anything else is a 404. */}
      {!impressumEnabled(partner) && <Route path="impressum" element={<Navigate to={PORTAL_PATHS.login} replace />} />}
      {!privacyEnabled(partner) && (
        <Route path="data-privacy-info" element={<Navigate to={PORTAL_PATHS.login} replace />} />
      )}
      <Route path="*" element={<NotFound home={PORTAL_PATHS.login} />} />
    </Routes>
  );
}

/** The authenticated group needs an access token (section 2). */
function RequireToken({ element }: { element: ReactElement }) {
  return storeGet("tokens") ? element : <Navigate to={PORTAL_PATHS.login} replace />;
}

/** Section 4's session restore: the toasts, the reload, and back to the login when it fails. */
function SessionRestore() {
  const { t } = useTranslation();
  const toast = useToaster();
  const navigate = useNavigate();
  useEffect(() => {
    onPortalSession({
      expired: () => toast(t("session.expired")),
      restored: () => {
        window.setTimeout(() => toast(t("session.restored"), { success: true }), RESTORED_TOAST_MS);
        window.setTimeout(() => browser.reload(), RELOAD_AFTER_MS);
      },
      failed: () => {
        clearSession();
        portalClear();
        navigate(PORTAL_PATHS.login, { replace: true });
      },
    });
  }, [t, toast, navigate]);
  return null;
}

function Waiting() {
  return (
    <Box sx={{ minHeight: "60vh", display: "grid", placeItems: "center" }}>
      <CircularProgress aria-label="Wird geladen" />
    </Box>
  );
}

function Progress() {
  const busy = useBusy();
  return busy ? (
    <LinearProgress
      aria-label="progress"
      data-testid="progress-bar"
      sx={{ position: "fixed", top: 0, left: 0, right: 0, zIndex: 2000, height: 3 }}
    />
  ) : null;
}
