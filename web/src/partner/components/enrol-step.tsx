import { zodResolver } from "@hookform/resolvers/zod";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { QRCodeSVG } from "qrcode.react";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { useTranslation } from "react-i18next";

import { type Enrolment, type Me, useEnrol } from "../api/auth";
import { errorText, fieldErrors, messageText } from "../api/client";
import { enrolSchema } from "../forms/schemas";

/**
 * TOTP enrolment: the server's QR code (an SVG data: URL in an <img>, so no server markup enters
 * the page; drawn from the otpauth URI otherwise), the secret for typing, the first code; then
 * the ten backup codes, once.
 */
export function EnrolStep({ enrolment, onDone }: { enrolment: Enrolment; onDone: (me: Me) => void }) {
  const { t } = useTranslation();
  const enrol = useEnrol();
  const [result, setResult] = useState<{ codes: string[]; me: Me } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const form = useForm({ resolver: zodResolver(enrolSchema), defaultValues: { token: "" } });

  if (result) {
    return (
      <Box data-testid="backup-codes">
        <Typography variant="h3" component="h2" sx={{ mb: 1 }}>
          {t("enrol.codesTitle")}
        </Typography>
        <Typography sx={{ mb: 2 }}>{t("enrol.codesText")}</Typography>
        <Box component="ol" sx={{ columns: 2, fontFamily: "monospace", fontSize: 16, pl: 3, mb: 2 }}>
          {result.codes.map((code) => (
            <li key={code}>{code}</li>
          ))}
        </Box>
        <Button variant="contained" fullWidth onClick={() => onDone(result.me)} data-testid="codes-done">
          {t("enrol.codesDone")}
        </Button>
      </Box>
    );
  }

  const submit = form.handleSubmit(({ token }) => {
    setError(null);
    enrol.mutate(token, {
      onSuccess: (answer) => setResult({ codes: answer.backup_codes, me: answer.me }),
      onError: (failure) => {
        const fields = fieldErrors(failure);
        if (fields.token) form.setError("token", { message: fields.token });
        else setError(errorText(failure, t));
      },
    });
  });
  const tokenError = form.formState.errors.token?.message;

  return (
    <Box component="form" noValidate onSubmit={submit} data-testid="enrol-form">
      <Typography sx={{ mb: 2 }}>{t("enrol.text")}</Typography>
      <Box sx={{ display: "flex", justifyContent: "center", mb: 2 }}>
        <Box sx={{ p: 1.5, bgcolor: "#fff", border: 1, borderColor: "divider", borderRadius: 1 }}>
          {enrolment.qr_svg.startsWith("data:image/") ? (
            <img src={enrolment.qr_svg} width={176} height={176} alt={t("enrol.qr")} data-testid="enrol-qr" />
          ) : (
            <QRCodeSVG
              value={enrolment.otpauth_uri}
              size={176}
              title={t("enrol.qr")}
              role="img"
              aria-label={t("enrol.qr")}
              data-testid="enrol-qr"
            />
          )}
        </Box>
      </Box>
      <Typography variant="body2">{t("enrol.secret")}</Typography>
      <Typography sx={{ fontFamily: "monospace", wordBreak: "break-all", mb: 2 }} data-testid="enrol-secret">
        {enrolment.secret}
      </Typography>
      <Stack spacing={2}>
        <TextField
          label={t("login.otpLabel")}
          autoComplete="one-time-code"
          error={Boolean(tokenError)}
          helperText={messageText(tokenError, t)}
          slotProps={{ htmlInput: { inputMode: "numeric", "data-testid": "enrol-token" } }}
          {...form.register("token")}
        />
        {error && <Alert severity="error">{error}</Alert>}
        <Button type="submit" variant="contained" size="large" disabled={enrol.isPending} data-testid="enrol-submit">
          {t("enrol.submit")}
        </Button>
      </Stack>
    </Box>
  );
}
