import { zodResolver } from "@hookform/resolvers/zod";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Link from "@mui/material/Link";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { useEffect, useState } from "react";
import { useForm } from "react-hook-form";
import { useTranslation } from "react-i18next";
import { Link as RouterLink, useNavigate } from "react-router";

import { ApiError } from "@/shared/lib/http";
import { clearSession, storeGet, storeSet } from "@/shared/lib/session-store";

import { profile, useLogin, useResetRequest } from "../api/auth";
import { emailSchema, loginSchema } from "../forms/schemas";
import { PORTAL_PATHS } from "../paths";

/** LoginView: password login, the forgot-password panel, sign-up links, auto-login. */
export function LoginView() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [panel, setPanel] = useState<"login" | "reset">("login");

  // With a stored token the profile decides: registrations, signup (403), or a clean login.
  useEffect(() => {
    if (!storeGet("tokens")) return;
    let live = true;
    profile()
      .then(() => live && navigate(PORTAL_PATHS.registrations, { replace: true }))
      .catch((error: unknown) => {
        if (!live) return;
        if (error instanceof ApiError && error.status === 403) navigate(PORTAL_PATHS.signup, { replace: true });
        else if (!(error instanceof ApiError && error.status === 401)) clearSession();
      });
    return () => {
      live = false;
    };
  }, [navigate]);

  return (
    <Box>
      <Typography variant="h1" sx={{ mb: 1 }}>
        {panel === "login" ? t("login.title") : t("login.resetTitle")}
      </Typography>
      {panel === "login" ? <LoginForm onForgot={() => setPanel("reset")} /> : <ResetPanel onBack={() => setPanel("login")} />}
    </Box>
  );
}

function LoginForm({ onForgot }: { onForgot: () => void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const login = useLogin();
  const [error, setError] = useState<string | null>(null);
  const { register, handleSubmit, formState } = useForm({ resolver: zodResolver(loginSchema), defaultValues: { username: "", password: "" } });

  const submit = handleSubmit((values) => {
    setError(null);
    login.mutate(values, {
      onSuccess: (answer) => {
        if (answer.tokens) {
          storeSet("tokens", answer.tokens);
          storeSet("authenticated", true);
          navigate(PORTAL_PATHS.registrations);
        } else if (answer.recaptcha_extra_check && answer.user_id !== null) {
          navigate(PORTAL_PATHS.otp(answer.user_id));
        }
      },
      onError: (failure) => {
        if (failure instanceof ApiError && failure.status === 429) setError(t("login.throttled", { seconds: failure.retryAfter ?? 60 }));
        else if (failure instanceof ApiError && failure.detail === "Invalid recaptcha") setError(t("login.invalidCaptcha"));
        else setError(t("login.badCredentials"));
      },
    });
  });

  return (
    <Box component="form" noValidate onSubmit={submit}>
      <Typography sx={{ mb: 2 }}>{t("login.description")}</Typography>
      <Stack spacing={2}>
        <TextField
          label={t("login.username")}
          autoComplete="username"
          placeholder={formState.errors.username ? t("login.required") : undefined}
          error={Boolean(formState.errors.username)}
          helperText={formState.errors.username ? t("login.required") : undefined}
          slotProps={{ htmlInput: { "data-testid": "portal-username" } }}
          {...register("username")}
        />
        <TextField
          label={t("login.password")}
          type="password"
          autoComplete="current-password"
          error={Boolean(formState.errors.password)}
          helperText={formState.errors.password ? t("login.required") : undefined}
          slotProps={{ htmlInput: { "data-testid": "portal-password" } }}
          {...register("password")}
        />
        {error && (
          <Alert severity="error" data-testid="login-error">
            {error}
          </Alert>
        )}
        <Button type="submit" variant="contained" size="large" disabled={login.isPending} data-testid="portal-login">
          {t("login.submit")}
        </Button>
        <Link component="button" type="button" onClick={onForgot} data-testid="forgot-password">
          {t("login.forgot")}
        </Link>
        <Typography variant="body2">
          {t("login.signupQuestion")} <Link href="/">{t("login.signupRegister")}</Link> ·{" "}
          <Link component={RouterLink} to={PORTAL_PATHS.verifyEmail}>
            {t("login.signupVerify")}
          </Link>
        </Typography>
      </Stack>
    </Box>
  );
}

function ResetPanel({ onBack }: { onBack: () => void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const reset = useResetRequest();
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [unknown, setUnknown] = useState(false);
  const { register, handleSubmit, formState, getValues } = useForm({ resolver: zodResolver(emailSchema), defaultValues: { email: "" } });

  const submit = handleSubmit(({ email }) => {
    setMessage(null);
    setUnknown(false);
    reset.mutate(email, {
      onSuccess: () => setMessage({ ok: true, text: t("login.resetSent") }),
      onError: (failure) => {
        if (failure instanceof ApiError && failure.errorCode === "EMAIL001") {
          setUnknown(true);
          setMessage({ ok: false, text: t("login.emailNotRegistered") });
        } else {
          const detail = failure instanceof ApiError ? failure.detail : undefined;
          setMessage({ ok: false, text: detail ?? t("generic.error") });
        }
      },
    });
  });

  return (
    <Box component="form" noValidate onSubmit={submit}>
      <Typography sx={{ mb: 2 }}>{t("login.resetText")}</Typography>
      <Stack spacing={2}>
        <TextField
          label={t("login.username")}
          type="email"
          autoComplete="email"
          error={Boolean(formState.errors.email)}
          helperText={formState.errors.email ? t("verify.invalidEmail") : undefined}
          slotProps={{ htmlInput: { "data-testid": "reset-email" } }}
          {...register("email")}
        />
        {message && (
          <Alert severity={message.ok ? "success" : "error"} data-testid="reset-message">
            {message.text}
          </Alert>
        )}
        <Button type="submit" variant="contained" disabled={reset.isPending} data-testid="reset-send">
          {t("login.sendInstructions")}
        </Button>
        {unknown && (
          <Button variant="outlined" onClick={() => navigate(PORTAL_PATHS.verifyEmail, { state: { email: getValues("email") } })} data-testid="create-account">
            {t("login.createAccount")}
          </Button>
        )}
        <Link component="button" type="button" onClick={onBack} data-testid="back-to-login">
          {t("login.backToLogin")}
        </Link>
      </Stack>
    </Box>
  );
}
