import { zodResolver } from "@hookform/resolvers/zod";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Link from "@mui/material/Link";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";

import { ApiError } from "@/shared/lib/http";

import { useResetRequest } from "../api/auth";
import { EmailField } from "../components/email-field";
import { emailSchema } from "../forms/schemas";
import { PORTAL_PATHS } from "../paths";

/** The login's forgot-password panel: a chunk of its own (react-hook-form stays off the login's
 * first render), fetched with the portal's other screens once the login is up. */
export function ResetPanel({ onBack }: { onBack: () => void }) {
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
        <EmailField label={t("login.username")} testId="reset-email" invalid={Boolean(formState.errors.email)} registration={register("email")} />
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
