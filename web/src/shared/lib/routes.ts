/**
 * The route table of spec/registration-flow.md section 2: names are contract. Paths the
 * spec does not show (FAQ, Privacy, TermsFull, DesktopView, WelcomeMobile) are ours.
 * The access guard (router.tsx) lets a visitor without a login onto the public routes only.
 */
export const PATHS = {
  Welcome: "/",
  WelcomeB2B: "/b2b/welcome",
  WelcomeDesktop: "/welcome",
  FrontendDeactivated: "/deactivated",
  TermsView: "/terms",
  TermsDetails: "/termsdetails",
  PrivacyDetails: "/privacydetails",
  LoginCA: "/login",
  LoginB2B: "/b2b/login",
  ConfirmView: "/confirm",
  ConfirmB2B: "/b2b/confirm",
  VerifyEmail: "/verify-email",
  VerifyEmailB2B: "/b2b/verify-email",
  CodeValidation: "/codevalidation",
  CodeValidationB2B: "/b2b/codevalidation",
  ImageUploadWrapper: "/upload",
  ImageUploadWrapperB2B: "/b2b/upload",
  Validation: "/validation/:bevRegistrationId?",
  ValidationB2B: "/b2b/validation",
  Billing: "/billing",
  Finish: "/finish",
  FinishB2B: "/b2b/finish",
  Impressum: "/impressum",
  FAQ: "/faq",
  Privacy: "/privacy",
  TermsFull: "/terms-full",
  DesktopView: "/desktop",
  WelcomeMobile: "/welcome-mobile",
  Portal: "/portal/*",
} as const;

export type RouteName = keyof typeof PATHS;

export const ALIASES: Partial<Record<RouteName, string[]>> = {
  Welcome: ["/b2b"],
  Impressum: ["/b2b/impressum"],
};

/** The routes an unauthenticated visitor may open (section 2, access guard). */
export const PUBLIC_ROUTES: ReadonlySet<RouteName> = new Set<RouteName>([
  "Welcome",
  "WelcomeB2B",
  "FAQ",
  "Privacy",
  "TermsFull",
  "TermsView",
  "TermsDetails",
  "PrivacyDetails",
  "VerifyEmail",
  "LoginCA",
  "ConfirmView",
  "ConfirmB2B",
  "CodeValidation",
  "CodeValidationB2B",
  "WelcomeDesktop",
  "WelcomeMobile",
  "DesktopView",
  "Impressum",
  "FrontendDeactivated",
  "LoginB2B",
  "VerifyEmailB2B",
]);
