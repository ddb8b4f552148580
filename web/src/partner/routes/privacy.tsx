import { zodResolver } from "@hookform/resolvers/zod";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { useTranslation } from "react-i18next";

import { can } from "../api/auth";
import { errorText, messageText } from "../api/client";
import { type ErasurePreview, useErasurePreview } from "../api/privacy";
import { ErasureDialog } from "../components/erasure-dialog";
import { Forbidden } from "../components/query-error";
import { type ErasureLookupForm, erasureLookupSchema } from "../forms/erasure-schema";
import { useStaffMember } from "../lib/staff-context";

/** Data protection (partner admins): erase an owner on a request received by mail or letter. */
export function Privacy() {
  const me = useStaffMember();
  if (!can.admin(me.role)) return <Forbidden />;
  return <PrivacyPage />;
}

function PrivacyPage() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const preview = useErasurePreview();
  const [checked, setChecked] = useState<{ email: string; found: ErasurePreview } | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [done, setDone] = useState(false);
  const form = useForm<ErasureLookupForm>({ resolver: zodResolver(erasureLookupSchema), defaultValues: { email: "" } });
  const lookup = form.handleSubmit(({ email }) => {
    setDone(false);
    setChecked(null);
    preview.mutate(email.trim(), { onSuccess: (found) => setChecked({ email: email.trim(), found }) });
  });
  const emailError = form.formState.errors.email?.message;
  return (
    <Box>
      <Typography variant="h1" sx={{ mb: 2 }}>
        {t("privacy.title")}
      </Typography>
      <Paper variant="outlined" sx={{ p: 2, maxWidth: 760 }}>
        <Typography variant="h3" component="h2" sx={{ mb: 1 }}>
          {t("privacy.erasureTitle")}
        </Typography>
        <Typography variant="body2" sx={{ mb: 2 }}>
          {t("privacy.erasureText")}
        </Typography>
        <Box component="form" noValidate onSubmit={lookup} data-testid="erasure-lookup">
          <Stack direction={{ xs: "column", sm: "row" }} spacing={1.5} sx={{ alignItems: { sm: "flex-start" } }}>
            <TextField
              size="small"
              type="email"
              label={t("privacy.email")}
              sx={{ minWidth: { sm: 320 } }}
              error={Boolean(emailError)}
              helperText={messageText(emailError, t)}
              slotProps={{ htmlInput: { "data-testid": "erasure-email" } }}
              {...form.register("email")}
            />
            <Button type="submit" variant="outlined" disabled={preview.isPending} data-testid="erasure-check">
              {t("privacy.check")}
            </Button>
          </Stack>
        </Box>
        {preview.isError && (
          <Alert severity="warning" sx={{ mt: 2 }} data-testid="erasure-lookup-error">
            {errorText(preview.error, t)}
          </Alert>
        )}
        {checked && (
          <Box sx={{ mt: 2 }} data-testid="erasure-preview">
            <Typography variant="body2">{t("privacy.found")}</Typography>
            <Box component="dl" sx={{ display: "grid", gridTemplateColumns: "auto 1fr", columnGap: 2, my: 1 }}>
              <dt>{t("privacy.registrations")}</dt>
              <dd style={{ margin: 0 }}>{checked.found.registrations}</dd>
              <dt>{t("privacy.applications")}</dt>
              <dd style={{ margin: 0 }}>{checked.found.applications}</dd>
              <dt>{t("privacy.kept")}</dt>
              <dd style={{ margin: 0 }}>{checked.found.payout_records_kept}</dd>
              <dt>{t("privacy.settlementKept")}</dt>
              <dd style={{ margin: 0 }}>{checked.found.settlement_items_kept}</dd>
            </Box>
            <Button color="error" variant="contained" onClick={() => setConfirming(true)} data-testid="erasure-start">
              {t("privacy.erase")}
            </Button>
          </Box>
        )}
        {done && (
          <Alert severity="success" sx={{ mt: 2 }} data-testid="erasure-done">
            {t("privacy.erased")}
          </Alert>
        )}
      </Paper>
      {confirming && checked && (
        <ErasureDialog
          email={checked.email}
          onClose={() => setConfirming(false)}
          onErased={() => {
            setConfirming(false);
            setChecked(null);
            setDone(true);
            form.reset();
            // Lists, figures and the audit log changed.
            void client.invalidateQueries({ queryKey: ["partner"] });
          }}
        />
      )}
    </Box>
  );
}
