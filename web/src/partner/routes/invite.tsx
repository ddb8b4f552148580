import { zodResolver } from "@hookform/resolvers/zod";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import CircularProgress from "@mui/material/CircularProgress";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { useTranslation } from "react-i18next";
import { useParams } from "react-router";

import { type Enrolment, inviteGet, useInviteAccept } from "../api/auth";
import { errorText, fieldErrors, messageText } from "../api/client";
import { AuthCard } from "../components/auth-card";
import { EnrolStep } from "../components/enrol-step";
import { invitePasswordSchema } from "../forms/schemas";
import { useLoggedIn } from "./login";

/** /partner/invite/:key: the invited person sets a password, then enrols the second factor. */
export function InviteScreen() {
  const { t } = useTranslation();
  const { key = "" } = useParams();
  const invite = useQuery({ queryKey: ["partner", "invite", key], queryFn: () => inviteGet(key), retry: false });
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const done = useLoggedIn();

  return (
    <AuthCard title={enrolment ? t("enrol.title") : t("invite.title")}>
      {invite.isPending && <CircularProgress aria-label={t("area.loading")} />}
      {invite.isError && (
        <Alert severity="error" data-testid="invite-invalid">
          {t("invite.invalid")}
        </Alert>
      )}
      {invite.data && !enrolment && (
        <PasswordForm
          inviteKey={key}
          email={invite.data.email}
          partner={invite.data.partner_name}
          onEnrol={setEnrolment}
        />
      )}
      {enrolment && <EnrolStep enrolment={enrolment} onDone={done} />}
    </AuthCard>
  );
}

function PasswordForm({
  inviteKey,
  email,
  partner,
  onEnrol,
}: {
  inviteKey: string;
  email: string;
  partner: string;
  onEnrol: (enrolment: Enrolment) => void;
}) {
  const { t } = useTranslation();
  const accept = useInviteAccept();
  const [error, setError] = useState<string | null>(null);
  const form = useForm({
    resolver: zodResolver(invitePasswordSchema),
    defaultValues: { password: "", password_again: "" },
  });
  const submit = form.handleSubmit(({ password }) => {
    setError(null);
    accept.mutate(
      { key: inviteKey, password },
      {
        onSuccess: (answer) => {
          if (answer.step === "enrol") onEnrol(answer.enrolment);
        },
        onError: (failure) => {
          const fields = fieldErrors(failure);
          if (fields.password) form.setError("password", { message: fields.password });
          else setError(errorText(failure, t));
        },
      },
    );
  });
  const errors = form.formState.errors;
  return (
    <Box component="form" noValidate onSubmit={submit} data-testid="invite-form">
      <Typography sx={{ mb: 2 }}>{t("invite.text", { partner, email })}</Typography>
      {/* The username the password manager should file the password under. */}
      <input type="hidden" name="username" autoComplete="username" value={email} readOnly />
      <Stack spacing={2}>
        <TextField
          label={t("invite.password")}
          type="password"
          autoComplete="new-password"
          error={Boolean(errors.password)}
          helperText={messageText(errors.password?.message, t) ?? t("invite.rule")}
          slotProps={{ htmlInput: { "data-testid": "invite-password" } }}
          {...form.register("password")}
        />
        <TextField
          label={t("invite.again")}
          type="password"
          autoComplete="new-password"
          error={Boolean(errors.password_again)}
          helperText={messageText(errors.password_again?.message, t)}
          slotProps={{ htmlInput: { "data-testid": "invite-password-again" } }}
          {...form.register("password_again")}
        />
        {error && <Alert severity="error">{error}</Alert>}
        <Button type="submit" variant="contained" size="large" disabled={accept.isPending} data-testid="invite-submit">
          {t("invite.submit")}
        </Button>
      </Stack>
    </Box>
  );
}
