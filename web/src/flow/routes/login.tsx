import { zodResolver } from "@hookform/resolvers/zod";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { useEffect } from "react";
import { Controller, useForm } from "react-hook-form";
import { Navigate, useLocation, useNavigate } from "react-router";

import { usePartner, useTexts } from "@/shared/lib/partner-context";
import { PATHS } from "@/shared/lib/routes";
import { useLoginSend } from "@/flow/api/login-send";
import { loginSchema, type LoginValues } from "@/flow/forms/login-schema";
import { type Checklist, checklistAllowsLogin, isAuthenticated } from "@/flow/state/flow-state";
import { useBlockBack } from "@/shared/lib/block-back";
import { ApiError } from "@/shared/lib/http";
import { isB2BPath, queryWith, withQuery } from "@/shared/lib/navigation";
import { rememberedEmail, storeGet, storeSet } from "@/shared/lib/session-store";
import { Layout } from "@/shared/ui/layout";
import { PageTitle } from "@/shared/ui/page-title";

import { termsOptions } from "./terms";

/** The query keys the magic link carries back (section 2, VerifyEmail). */
export function verifyEmailUrl(origin: string, b2b: boolean, search: string, checklist: Checklist | null, campaign: string | null): string {
  const params = new URLSearchParams(search);
  for (const key of ["key", "email"]) params.delete(key);
  if (campaign) params.set("campaign", campaign);
  if (checklist) {
    params.set("current_year", String(checklist.currentYear));
    params.set("next_year", String(checklist.nextYear));
    params.set("email_promotion", String(checklist.emailPromotion));
    params.set("next_year_terms", String(checklist.nextYearTerms));
    params.set("freeText", String(checklist.additionalRequirement));
  }
  const query = params.toString();
  return `${origin}${b2b ? PATHS.VerifyEmailB2B : PATHS.VerifyEmail}${query ? `?${query}` : ""}`;
}

/** LoginCA (/login) and LoginB2B (/b2b/login). */
export function Login() {
  const t = useTexts();
  const partner = usePartner();
  const navigate = useNavigate();
  const { pathname, search } = useLocation();
  const b2b = isB2BPath(pathname);
  const checklist = storeGet<Checklist>("checklist");
  const query = new URLSearchParams(search);
  const send = useLoginSend();
  useBlockBack(!b2b);

  useEffect(() => {
    const campaign = query.get("campaign");
    if (campaign) storeSet("campaign", campaign);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [search]);

  const {
    control,
    handleSubmit,
    formState: { errors },
  } = useForm<LoginValues>({
    resolver: zodResolver(loginSchema),
    // A returning owner: the address of this tab's login, else of this device's last login.
    defaultValues: { email: query.get("email") ?? storeGet<string>("email") ?? rememberedEmail() ?? "" },
  });

  if (!b2b && !checklistAllowsLogin(checklist, termsOptions(partner).nextYearTermsExist)) {
    return <Navigate to={withQuery(PATHS.TermsView, search)} replace />;
  }
  // A returning owner who is logged in already (a second vehicle after Finish, or "Neue
  // Registrierung" in the portal) needs no second login: terms, upload, billing, done.
  if (isAuthenticated()) {
    return <Navigate to={withQuery(b2b ? PATHS.ImageUploadWrapperB2B : PATHS.ImageUploadWrapper, search)} replace />;
  }

  const submit = handleSubmit(async ({ email }) => {
    const address = email.trim().toLowerCase();
    const flow = partner.authentication_flow;
    const campaign = storeGet<string>("campaign") ?? query.get("campaign");
    await send.mutateAsync({
      email: address,
      partner: partner.subdomain,
      verify_email_url: verifyEmailUrl(window.location.origin, b2b, search, b2b ? null : checklist, campaign),
      flow,
    });
    storeSet("email", address);
    if (flow === "otp") {
      navigate({ pathname: b2b ? PATHS.CodeValidationB2B : PATHS.CodeValidation, search: queryWith(search, "email", address) });
    } else {
      navigate(withQuery(b2b ? PATHS.ConfirmB2B : PATHS.ConfirmView, search));
    }
  });

  const failure = send.error;
  const retryAfter = failure instanceof ApiError && failure.status === 429 ? retrySeconds(failure) : null;

  return (
    <Layout>
      <PageTitle>{t("login.title")}</PageTitle>
      {partner.pages.login.intro && <Typography sx={{ mb: 3, textAlign: partner.theme.tokens.itemAlignment }}>{partner.pages.login.intro}</Typography>}
      <Box component="form" noValidate onSubmit={(event) => void submit(event).catch(() => {})}>
        <Controller
          control={control}
          name="email"
          render={({ field }) => (
            <TextField
              {...field}
              type="email"
              label={t("login.email")}
              autoComplete="email"
              fullWidth
              required
              error={Boolean(errors.email)}
              helperText={errors.email?.message}
              slotProps={{ htmlInput: { "data-testid": "login-email", inputMode: "email" } }}
            />
          )}
        />
        {failure && (
          <Alert severity="error" sx={{ mt: 2 }} data-testid="login-error">
            {/* The configured login failure text (spec section 8); a second mail within the
                minute also says how long to wait. */}
            {partner.pages.login.invalid_login}
            {retryAfter !== null && ` ${(retryAfter === 1 ? t("login.tooSoonOne") : t("login.tooSoon")).replace("{seconds}", String(retryAfter))}`}
          </Alert>
        )}
        <Button type="submit" variant="contained" size="large" fullWidth sx={{ mt: 3 }} disabled={send.isPending} data-testid="login-submit">
          {t("login.submit")}
        </Button>
      </Box>
    </Layout>
  );
}

function retrySeconds(error: ApiError): number {
  return error.retryAfter ?? 60;
}
