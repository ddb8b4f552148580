import { type ReactElement, useEffect } from "react";
import { Navigate, Route, Routes, useLocation } from "react-router";

import { Billing } from "@/flow/routes/billing";
import { CodeValidation } from "@/flow/routes/code-validation";
import { Confirm } from "@/flow/routes/confirm";
import { PrivacyDetails, TermsDetails } from "@/flow/routes/document-details";
import { Faq } from "@/flow/routes/faq";
import { Finish } from "@/flow/routes/finish";
import { FrontendDeactivated } from "@/flow/routes/frontend-deactivated";
import { ImageUploadWrapper } from "@/flow/routes/image-upload";
import { Impressum } from "@/flow/routes/impressum";
import { Login } from "@/flow/routes/login";
import { Placeholder } from "@/flow/routes/placeholder";
import { TermsView } from "@/flow/routes/terms";
import { Validation } from "@/flow/routes/validation";
import { VerifyEmail } from "@/flow/routes/verify-email";
import { Welcome, WelcomeEntry } from "@/flow/routes/welcome";
import { WelcomeB2B } from "@/flow/routes/welcome-b2b";
import { WelcomeDesktop } from "@/flow/routes/welcome-desktop";
import { isAuthenticated } from "@/flow/state/flow-state";
import { isB2BPath, withQuery } from "@/shared/lib/navigation";
import { storeSet } from "@/shared/lib/session-store";

import { ALIASES, PATHS, PUBLIC_ROUTES, type RouteName } from "./routes";

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
      <Routes>
        {routes}
        <Route path={PATHS.Portal} element={<Placeholder name="Portal" />} />
        <Route path="*" element={<Placeholder name="NotFound" />} />
      </Routes>
    </>
  );
}
