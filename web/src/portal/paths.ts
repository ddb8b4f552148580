/** The portal's routes (spec/customer-portal.md section 2), all under /portal. */
export const PORTAL_PATHS = {
  root: "/portal",
  login: "/portal/auth/login",
  resetPassword: "/portal/auth/reset-password",
  verifyEmail: "/portal/auth/verify-email",
  terms: "/portal/auth/terms-and-conditions",
  otp: (userId: number | string) => `/portal/auth/otp/${userId}`,
  signup: "/portal/auth/signup",
  registrations: "/portal/registrations",
  impressum: "/portal/impressum",
  privacy: "/portal/data-privacy-info",
} as const;
