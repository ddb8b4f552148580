import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Link from "@mui/material/Link";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { type FormEvent, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link as RouterLink, useNavigate } from "react-router";

import { lazyScreen } from "@/shared/lib/lazy-screen";
import { ApiError } from "@/shared/lib/http";
import { clearSession, storeGet, storeSet } from "@/shared/lib/session-store";

import { profile, useLogin } from "../api/auth";
import { loginSchema } from "../forms/schemas";
import { PORTAL_PATHS } from "../paths";

// Opened by a click, never on the first render: its own chunk (with react-hook-form).
export const ResetPanel = lazyScreen<"ResetPanel", { onBack: () => void }>(() => import("./login-reset"), "ResetPanel");

type Credentials = { username: string; password: string };
type Problems = Partial<Record<keyof Credentials, boolean>>;

/** The login's two fields against the portal's rule (loginSchema): which are missing. */
function problems(values: Credentials): Problems {
  const result = loginSchema.safeParse(values);
  if (result.success) return {};
  return Object.fromEntries(result.error.issues.map((issue) => [issue.path[0], true]));
}

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
  // A plain form (no form library on the first render): checked on submit, then on every
  // change, as the other forms are (react-hook-form's defaults).
  const [values, setValues] = useState<Credentials>({ username: "", password: "" });
  const [submitted, setSubmitted] = useState(false);
  const errors = submitted ? problems(values) : {};
  const field = (name: keyof Credentials) => ({
    name,
    value: values[name],
    onChange: (event: { target: { value: string } }) => setValues((before) => ({ ...before, [name]: event.target.value })),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(true);
    const parsed = loginSchema.safeParse(values);
    if (!parsed.success) {
      const first = parsed.error.issues[0]?.path[0];
      if (typeof first === "string") document.querySelector<HTMLInputElement>(`input[name="${first}"]`)?.focus();
      return;
    }
    setError(null);
    login.mutate(parsed.data, {
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
  };

  return (
    <Box component="form" noValidate onSubmit={submit}>
      <Typography sx={{ mb: 2 }}>{t("login.description")}</Typography>
      <Stack spacing={2}>
        <TextField
          label={t("login.username")}
          autoComplete="username"
          placeholder={errors.username ? t("login.required") : undefined}
          error={Boolean(errors.username)}
          helperText={errors.username ? t("login.required") : undefined}
          slotProps={{ htmlInput: { "data-testid": "portal-username" } }}
          {...field("username")}
        />
        <TextField
          label={t("login.password")}
          type="password"
          autoComplete="current-password"
          error={Boolean(errors.password)}
          helperText={errors.password ? t("login.required") : undefined}
          slotProps={{ htmlInput: { "data-testid": "portal-password" } }}
          {...field("password")}
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

