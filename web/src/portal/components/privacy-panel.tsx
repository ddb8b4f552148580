import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Card from "@mui/material/Card";
import CardContent from "@mui/material/CardContent";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogContentText from "@mui/material/DialogContentText";
import DialogTitle from "@mui/material/DialogTitle";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";

import { ApiError } from "@/shared/lib/http";
import { clearSession } from "@/shared/lib/session-store";
import { useToaster } from "@/shared/ui/toaster";

import { useDataExport, useErasureConfirm, useErasureRequest } from "../api/privacy";
import { portalClear } from "../lib/portal-store";
import { PORTAL_PATHS } from "../paths";

/** The server's own German message of a privacy error ({detail, error_code}), else a generic one. */
function message(error: unknown, fallback: string): string {
  const detail = error instanceof ApiError ? (error.body as { detail?: unknown } | null)?.detail : null;
  return typeof detail === "string" ? detail : fallback;
}

/** 'Meine Daten': download everything (mailed link) or delete the account (mailed code). */
export function PrivacyPanel() {
  const { t } = useTranslation();
  const toast = useToaster();
  const navigate = useNavigate();
  const exporting = useDataExport();
  const requesting = useErasureRequest();
  const confirming = useErasureConfirm();
  const [erasing, setErasing] = useState<"ask" | "code" | null>(null);
  const [code, setCode] = useState("");
  const [error, setError] = useState("");

  const download = () =>
    exporting.mutate(undefined, {
      onSuccess: (answer) => toast(answer.detail, { success: true }),
      onError: (failure) => toast(message(failure, t("generic.error"))),
    });
  const sendCode = () =>
    requesting.mutate(undefined, {
      onSuccess: () => {
        setError("");
        setErasing("code");
      },
      onError: (failure) => setError(message(failure, t("generic.error"))),
    });
  const confirm = () => {
    if (!/^\d{6}$/.test(code)) {
      setError(t("privacy.codeFormat"));
      return;
    }
    confirming.mutate(code, {
      onSuccess: (answer) => {
        clearSession();
        portalClear();
        toast(answer.detail, { success: true });
        navigate(PORTAL_PATHS.login, { replace: true });
      },
      onError: (failure) => setError(message(failure, t("generic.error"))),
    });
  };
  const close = () => {
    setErasing(null);
    setCode("");
    setError("");
  };

  return (
    <Card variant="outlined" sx={{ mt: 4 }} data-testid="privacy-panel">
      <CardContent>
        <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
          {t("privacy.title")}
        </Typography>
        <Typography sx={{ mb: 2 }}>{t("privacy.text")}</Typography>
        <Box sx={{ display: "flex", gap: 2, flexWrap: "wrap" }}>
          <Button variant="outlined" onClick={download} disabled={exporting.isPending} data-testid="data-export">
            {t("privacy.export")}
          </Button>
          <Button color="error" onClick={() => setErasing("ask")} data-testid="erasure-open">
            {t("privacy.erase")}
          </Button>
        </Box>
        <Dialog open={erasing !== null} onClose={close} aria-labelledby="erasure-title" data-testid="erasure-dialog">
          <DialogTitle id="erasure-title">{t("privacy.eraseTitle")}</DialogTitle>
          <DialogContent>
            <DialogContentText sx={{ mb: 2 }}>{t(erasing === "code" ? "privacy.codeText" : "privacy.eraseText")}</DialogContentText>
            {erasing === "code" && (
              <TextField
                // eslint-disable-next-line jsx-a11y/no-autofocus -- the dialog's one field: the mailed code
                autoFocus
                fullWidth
                label={t("privacy.code")}
                value={code}
                onChange={(event) => setCode(event.target.value.replace(/\D/g, "").slice(0, 6))}
                slotProps={{ htmlInput: { inputMode: "numeric", autoComplete: "one-time-code", "data-testid": "erasure-code" } }}
              />
            )}
            {error && (
              <Typography color="error" role="alert" sx={{ mt: 2 }}>
                {error}
              </Typography>
            )}
          </DialogContent>
          <DialogActions>
            <Button onClick={close}>{t("privacy.cancel")}</Button>
            {erasing === "code" ? (
              <Button color="error" variant="contained" onClick={confirm} disabled={confirming.isPending} data-testid="erasure-confirm">
                {t("privacy.confirm")}
              </Button>
            ) : (
              <Button color="error" variant="contained" onClick={sendCode} disabled={requesting.isPending} data-testid="erasure-send">
                {t("privacy.sendCode")}
              </Button>
            )}
          </DialogActions>
        </Dialog>
      </CardContent>
    </Card>
  );
}
