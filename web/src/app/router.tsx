import Box from "@mui/material/Box";
import CircularProgress from "@mui/material/CircularProgress";
import { type ReactElement, Suspense, useEffect } from "react";
import { Navigate, Route, Routes, useLocation } from "react-router";

import { FrontendDeactivated } from "@/flow/routes/frontend-deactivated";
import { Welcome, WelcomeEntry } from "@/flow/routes/welcome";
import { isAuthenticated } from "@/flow/state/flow-state";
import { isB2BPath, withQuery } from "@/shared/lib/navigation";
import { storeSet } from "@/shared/lib/session-store";

import { RouteErrorBoundary } from "./error-boundary";
import { lazyScreen, prefetchScreensWhenIdle, screenArea } from "@/shared/lib/lazy-screen";
import { ScreenAnnouncer } from "./screen-announcer";
import { ALIASES, PATHS, PUBLIC_ROUTES, type RouteName } from "@/shared/lib/routes";

// The first screens load with the app; every other screen is its own chunk (the budget is
// 200 KB of gzipped JavaScript for the first screen).
const WelcomeB2B = lazyScreen(() => import("@/flow/routes/welcome-b2b"), "WelcomeB2B");
const WelcomeDesktop = lazyScreen(() => import("@/flow/routes/welcome-desktop"), "WelcomeDesktop");
const TermsView = lazyScreen(() => import("@/flow/routes/terms"), "TermsView");
const TermsDetails = lazyScreen(() => import("@/flow/routes/document-details"), "TermsDetails");
const PrivacyDetails = lazyScreen(() => import("@/flow/routes/document-details"), "PrivacyDetails");
const Faq = lazyScreen(() => import("@/flow/routes/faq"), "Faq");
const Impressum = lazyScreen(() => import("@/flow/routes/impressum"), "Impressum");
const Login = lazyScreen(() => import("@/flow/routes/login"), "Login");
const Confirm = lazyScreen(() => import("@/flow/routes/confirm"), "Confirm");
const VerifyEmail = lazyScreen(() => import("@/flow/routes/verify-email"), "VerifyEmail");
const CodeValidation = lazyScreen(() => import("@/flow/routes/code-validation"), "CodeValidation");
const ImageUploadWrapper = lazyScreen(() => import("@/flow/routes/image-upload"), "ImageUploadWrapper");
const Validation = lazyScreen(() => import("@/flow/routes/validation"), "Validation");
const Billing = lazyScreen(() => import("@/flow/routes/billing"), "Billing");
const Finish = lazyScreen(() => import("@/flow/routes/finish"), "Finish");
const PortalApp = lazyScreen(() => import("@/portal/portal-app"), "PortalApp", { preload: false });
// The partner area (staff): its own chunks, the grid and the charts only there.
const PartnerArea = lazyScreen(() => import("@/partner/partner-app"), "PartnerArea", { preload: false });
// Rarely needed: not on the first screen's bytes.
const NotFound = lazyScreen(() => import("@/shared/ui/not-found"), "NotFound", { preload: false });
const Placeholder = lazyScreen<"Placeholder", { name: string }>(() => import("@/flow/routes/placeholder"), "Placeholder");

const SCREENS: Partial<Record<RouteName, () => ReactElement>> = {
  Welcome: () => <WelcomeEntry />,
  WelcomeB2B: () => <WelcomeB2B />,
  WelcomeDesktop: () => <WelcomeDesktop />,
  DesktopView: () => <Welcome />,
  WelcomeMobile: () => <Welcome />,
  FrontendDeactivated: () => <FrontendDeactivated />,
  TermsView: () => <TermsView />,
  TermsDetails: () => <TermsDetails />,
  PrivacyDetails: () => <PrivacyDetails />,
  TermsFull: () => <TermsDetails />,
  Privacy: () => <PrivacyDetails />,
  FAQ: () => <Faq />,
  Impressum: () => <Impressum />,
  LoginCA: () => <Login />,
  LoginB2B: () => <Login />,
  ConfirmView: () => <Confirm />,
  ConfirmB2B: () => <Confirm />,
  VerifyEmail: () => <VerifyEmail />,
  VerifyEmailB2B: () => <VerifyEmail />,
  CodeValidation: () => <CodeValidation />,
  CodeValidationB2B: () => <CodeValidation />,
  ImageUploadWrapper: () => <ImageUploadWrapper />,
  ImageUploadWrapperB2B: () => <ImageUploadWrapper />,
  Validation: () => <Validation />,
  ValidationB2B: () => <Validation />,
  Billing: () => <Billing />,
  Finish: () => <Finish />,
  FinishB2B: () => <Finish />,
};

/** The access guard of section 2: outside the public routes a visitor needs a login. */
export function AccessGuard({ name, children }: { name: RouteName; children: ReactElement }) {
  const { pathname, search } = useLocation();
  if (PUBLIC_ROUTES.has(name) || isAuthenticated()) return children;
  return <Navigate to={withQuery(isB2BPath(pathname) ? PATHS.LoginB2B : PATHS.TermsView, search)} replace />;
}

/** Entry parameters a partner's link may carry, kept for the whole flow. */
const ENTRY_PARAMS: [string, Parameters<typeof storeSet>[0]][] = [
  ["campaign", "campaign"],
  ["return_url", "returnUrl"],
  ["returnUrl", "returnUrl"],
  ["charge_card", "chargeCardId"],
  ["chargeCardId", "chargeCardId"],
  ["user_reference", "urlVariableValue"],
];

/** Once the first screen is up, the browser fetches the other screens of its area (the flow,
 * the portal, the partner area) while the visitor reads, without running them (lazy-screen.ts). */
function PreloadScreens() {
  const area = screenArea(useLocation().pathname);
  useEffect(() => {
    let cancel = () => {};
    const timer = window.setTimeout(() => (cancel = prefetchScreensWhenIdle(area)), 2000);
    return () => {
      window.clearTimeout(timer);
      cancel();
    };
  }, [area]);
  return null;
}

function EntryParams() {
  const { search } = useLocation();
  useEffect(() => {
    const params = new URLSearchParams(search);
    for (const [param, key] of ENTRY_PARAMS) {
      const value = params.get(param);
      if (value) storeSet(key, value.slice(0, 2000));
    }
  }, [search]);
  return null;
}

export function AppRoutes() {
  const routes = (Object.keys(PATHS) as RouteName[])
    .filter((name) => name !== "Portal")
    .flatMap((name) => {
      const element = <AccessGuard name={name}>{SCREENS[name]?.() ?? <Placeholder name={name} />}</AccessGuard>;
      return [PATHS[name], ...(ALIASES[name] ?? [])].map((path) => <Route key={`${name}:${path}`} path={path} element={element} />);
    });
  return (
    <>
      <EntryParams />
      <PreloadScreens />
      <ScreenAnnouncer />
      <ScreenBoundary>
        <Suspense fallback={<Loading />}>
          <Routes>
            {routes}
            <Route path={PATHS.Portal} element={<PortalApp />} />
            <Route path="/partner/*" element={<PartnerArea />} />
            <Route path="*" element={<NotFound />} />
          </Routes>
        </Suspense>
      </ScreenBoundary>
    </>
  );
}

/** Every route under one error boundary, cleared when the visitor goes to another screen
 * (not remounted: the portal keeps its state across its own routes). */
function ScreenBoundary({ children }: { children: ReactElement }) {
  const { pathname } = useLocation();
  return <RouteErrorBoundary resetKey={pathname}>{children}</RouteErrorBoundary>;
}

function Loading() {
  return (
    <Box sx={{ minHeight: "60vh", display: "grid", placeItems: "center" }}>
      <CircularProgress aria-label="Wird geladen" />
    </Box>
  );
}
