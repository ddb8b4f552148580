import { zodResolver } from "@hookform/resolvers/zod";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import { useEffect, useState } from "react";
import { useForm } from "react-hook-form";
import { useTranslation } from "react-i18next";
import { useLocation, useNavigate } from "react-router";

import { currentSubdomain } from "@/api/config";
import { ApiError } from "@/shared/lib/http";

import { useSignupSend } from "../api/auth";
import { EmailField } from "../components/email-field";
import { emailSchema } from "../forms/schemas";
import { PORTAL_PATHS } from "../paths";

export const VERIFY_FAILURE_REDIRECT_MS = 3000;

/** EmailVerify: the address the vehicle was registered with; a signup link by mail. */
export function EmailVerify() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const state = useLocation().state as { email?: string } | null;
  const send = useSignupSend();
  const [sent, setSent] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const { register, handleSubmit, formState } = useForm({ resolver: zodResolver(emailSchema), mode: "onChange", defaultValues: { email: state?.email ?? "" } });

  useEffect(() => {
    if (!failure) return;
    const timer = window.setTimeout(() => navigate(PORTAL_PATHS.login, { replace: true }), VERIFY_FAILURE_REDIRECT_MS);
    return () => window.clearTimeout(timer);
  }, [failure, navigate]);

  const submit = handleSubmit(({ email }) =>
    send.mutate(
      { email, partner: currentSubdomain(), verify_email_url: `${window.location.origin}${PORTAL_PATHS.signup}` },
      {
        onSuccess: () => setSent(true),
        onError: (error) => {
          const detail = error instanceof ApiError ? error.detail : undefined;
          setFailure(error instanceof ApiError && error.errorCode === "EMAIL002" ? t("verify.unknown") : (detail ?? t("verify.failed")));
        },
      },
    ),
  );

  return (
    <Box component="form" noValidate onSubmit={submit}>
      <Typography variant="h1" sx={{ mb: 1 }}>
        {t("verify.title")}
      </Typography>
      <Typography sx={{ mb: 2 }}>{t("verify.text")}</Typography>
      <Stack spacing={2}>
        <EmailField label={t("verify.email")} testId="verify-email" invalid={Boolean(formState.errors.email)} registration={register("email")} />
        {sent && (
          <Alert severity="success" data-testid="verify-sent">
            {t("verify.sent")}
          </Alert>
        )}
        {failure && (
          <Alert severity="error" data-testid="verify-failed">
            {failure}
          </Alert>
        )}
        <Button type="submit" variant="contained" disabled={!formState.isValid || send.isPending || sent} data-testid="verify-proceed">
          {t("verify.proceed")}
        </Button>
      </Stack>
    </Box>
  );
}
