import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { type FormEvent, useState } from "react";
import { useTranslation } from "react-i18next";
import { Navigate, useNavigate, useParams } from "react-router";

import { useCountdown } from "@/shared/lib/countdown";
import { ApiError } from "@/shared/lib/http";
import { storeSet } from "@/shared/lib/session-store";
import { useToaster } from "@/shared/ui/toaster";

import { useOtpResend, useOtpVerify } from "../api/auth";
import { PORTAL_PATHS } from "../paths";

const LENGTH = 6;
/** The server sends a new code at most once a minute (spec: it should arrive within 60 s). */
export const RESEND_WAIT_SECONDS = 60;

/** RecaptchaOtpFlow: the six digits from the mail, and a resend. */
export function RecaptchaOtpFlow() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const toast = useToaster();
  const userId = Number(useParams().userId);
  const verify = useOtpVerify();
  const resend = useOtpResend();
  const [code, setCode] = useState("");
  const [invalid, setInvalid] = useState(false);
  // The code was just sent: a resend is offered once the server would accept it.
  const wait = useCountdown(RESEND_WAIT_SECONDS);

  if (!Number.isInteger(userId) || userId <= 0) return <Navigate to={PORTAL_PATHS.login} replace />;

  const submit = (value: string) => {
    if (value.length !== LENGTH || verify.isPending) return;
    verify.mutate(
      { user_id: userId, otp_code: value },
      {
        onSuccess: (tokens) => {
          storeSet("tokens", tokens);
          storeSet("authenticated", true);
          navigate(PORTAL_PATHS.registrations, { replace: true });
        },
        onError: () => setInvalid(true),
      },
    );
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (code.length !== LENGTH) setInvalid(true);
    else submit(code);
  };

  return (
    <Box component="form" noValidate onSubmit={onSubmit}>
      <Typography variant="h1" sx={{ mb: 1 }}>
        {t("otp.title")}
      </Typography>
      <Typography sx={{ mb: 2 }}>{t("otp.text")}</Typography>
      <Stack spacing={2}>
        <TextField
          label={t("otp.label")}
          value={code}
          // eslint-disable-next-line jsx-a11y/no-autofocus -- the code field is the screen's one task; the mail's code is typed right away
          autoFocus
          autoComplete="one-time-code"
          error={invalid}
          helperText={invalid ? t("otp.otp_verify_fail") : " "}
          onChange={(event) => {
            const digits = event.target.value.replace(/\D/g, "").slice(0, LENGTH);
            setCode(digits);
            setInvalid(false);
            if (digits.length === LENGTH) submit(digits);
          }}
          slotProps={{ htmlInput: { inputMode: "numeric", pattern: "[0-9]*", maxLength: LENGTH, "data-testid": "portal-otp", style: { letterSpacing: "0.5em", textAlign: "center", fontSize: "1.4rem" } } }}
        />
        <Button type="submit" variant="contained" disabled={verify.isPending} data-testid="portal-otp-submit">
          {t("otp.submit")}
        </Button>
        <Button
          variant="text"
          disabled={resend.isPending || wait.seconds > 0}
          data-testid="portal-otp-resend"
          onClick={() =>
            resend.mutate(
              { user_id: userId },
              {
                onSuccess: () => {
                  wait.restart(RESEND_WAIT_SECONDS);
                  toast(t("otp.success_otp_resend"), { success: true });
                },
                onError: (error) => {
                  // Throttled: wait as long as the server says, and say so once (in the toast).
                  if (error instanceof ApiError && error.retryAfter) wait.restart(error.retryAfter);
                  toast(t("otp.fail_otp_resend"));
                },
              },
            )
          }
        >
          {wait.seconds > 0 ? t("otp.resendIn", { seconds: wait.seconds }) : t("otp.resend")}
        </Button>
      </Stack>
    </Box>
  );
}
