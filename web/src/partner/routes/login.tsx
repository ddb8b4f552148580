import { zodResolver } from "@hookform/resolvers/zod";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { useTranslation } from "react-i18next";
import { useNavigate, useSearchParams } from "react-router";

import { type Enrolment, type Me, ME_KEY, useLogin, useOtpVerify } from "../api/auth";
import { ApiError, errorText, fieldErrors, messageText } from "../api/client";
import { AuthCard } from "../components/auth-card";
import { EnrolStep } from "../components/enrol-step";
import { loginSchema, otpSchema } from "../forms/schemas";
import { PARTNER_PATHS } from "../lib/paths";

type Step = { name: "password" } | { name: "otp" } | { name: "enrol"; enrolment: Enrolment };

/** Where to go after the login: the page that asked for it, if it is one of ours. */
export function useLoggedIn(): (me: Me) => void {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const client = useQueryClient();
  return (me: Me) => {
    client.setQueryData(ME_KEY, me);
    const next = params.get("next");
    navigate(next && next.startsWith("/partner/") && !next.startsWith("//") ? next : PARTNER_PATHS.dashboard, {
      replace: true,
    });
  };
}

/** Username and password, then the second factor (or its enrolment on the first login). */
export function LoginScreen() {
  const { t } = useTranslation();
  const [step, setStep] = useState<Step>({ name: "password" });
  const done = useLoggedIn();
  const title =
    step.name === "password" ? t("login.title") : step.name === "otp" ? t("login.otpTitle") : t("enrol.title");
  return (
    <AuthCard title={title}>
      {step.name === "password" && <PasswordStep onNext={setStep} />}
      {step.name === "otp" && <OtpStep onBack={() => setStep({ name: "password" })} onDone={done} />}
      {step.name === "enrol" && <EnrolStep enrolment={step.enrolment} onDone={done} />}
    </AuthCard>
  );
}

function PasswordStep({ onNext }: { onNext: (step: Step) => void }) {
  const { t } = useTranslation();
  const login = useLogin();
  const [error, setError] = useState<string | null>(null);
  const { register, handleSubmit, formState } = useForm({
    resolver: zodResolver(loginSchema),
    defaultValues: { username: "", password: "" },
  });
  const submit = handleSubmit((values) => {
    setError(null);
    login.mutate(values, {
      onSuccess: (answer) =>
        onNext(answer.step === "otp" ? { name: "otp" } : { name: "enrol", enrolment: answer.enrolment }),
      onError: (failure) => {
        if (failure instanceof ApiError && failure.status === 429) {
          const wait = (failure.body as { wait?: number } | null)?.wait ?? failure.retryAfter ?? 60;
          setError(t("login.throttled", { seconds: wait }));
        } else setError(errorText(failure, t));
      },
    });
  });
  return (
    <Box component="form" noValidate onSubmit={submit} data-testid="partner-login-form">
      <Typography sx={{ mb: 2 }}>{t("login.text")}</Typography>
      <Stack spacing={2}>
        <TextField
          label={t("login.username")}
          autoComplete="username"
          error={Boolean(formState.errors.username)}
          helperText={messageText(formState.errors.username?.message, t)}
          slotProps={{ htmlInput: { "data-testid": "partner-username" } }}
          {...register("username")}
        />
        <TextField
          label={t("login.password")}
          type="password"
          autoComplete="current-password"
          error={Boolean(formState.errors.password)}
          helperText={messageText(formState.errors.password?.message, t)}
          slotProps={{ htmlInput: { "data-testid": "partner-password" } }}
          {...register("password")}
        />
        {error && (
          <Alert severity="error" data-testid="login-error">
            {error}
          </Alert>
        )}
        <Button type="submit" variant="contained" size="large" disabled={login.isPending} data-testid="partner-login">
          {t("login.submit")}
        </Button>
      </Stack>
    </Box>
  );
}

function OtpStep({ onBack, onDone }: { onBack: () => void; onDone: (me: Me) => void }) {
  const { t } = useTranslation();
  const verify = useOtpVerify();
  const [error, setError] = useState<string | null>(null);
  const form = useForm({ resolver: zodResolver(otpSchema), defaultValues: { token: "" } });
  const submit = form.handleSubmit(({ token }) => {
    setError(null);
    verify.mutate(token, {
      onSuccess: onDone,
      onError: (failure) => {
        const fields = fieldErrors(failure);
        if (fields.token) form.setError("token", { message: fields.token });
        else setError(errorText(failure, t));
      },
    });
  });
  const message = form.formState.errors.token?.message;
  return (
    <Box component="form" noValidate onSubmit={submit} data-testid="partner-otp-form">
      <Typography sx={{ mb: 2 }}>{t("login.otpText")}</Typography>
      <Stack spacing={2}>
        <TextField
          label={t("login.otpLabel")}
          autoComplete="one-time-code"
          // eslint-disable-next-line jsx-a11y/no-autofocus -- the code step's one field, typed right after the password
          autoFocus
          error={Boolean(message)}
          helperText={messageText(message, t)}
          slotProps={{ htmlInput: { "data-testid": "partner-otp", autoCapitalize: "off" } }}
          {...form.register("token")}
        />
        {error && (
          <Alert severity="error" data-testid="otp-error">
            {error}
          </Alert>
        )}
        <Button
          type="submit"
          variant="contained"
          size="large"
          disabled={verify.isPending}
          data-testid="partner-otp-submit"
        >
          {t("login.otpSubmit")}
        </Button>
        <Button onClick={onBack}>{t("login.back")}</Button>
      </Stack>
    </Box>
  );
}
