import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogContentText from "@mui/material/DialogContentText";
import DialogTitle from "@mui/material/DialogTitle";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";

/** "Really?" before an action that cannot be undone; the server's refusal shown inside. */
export function ConfirmDialog({
  title,
  text,
  confirm,
  busy,
  error,
  onConfirm,
  onClose,
  testid,
}: {
  title: string;
  text: string;
  confirm: string;
  busy: boolean;
  error?: ReactNode;
  onConfirm: () => void;
  onClose: () => void;
  testid: string;
}) {
  const { t } = useTranslation();
  return (
    <Dialog open onClose={onClose} aria-labelledby={`${testid}-title`} data-testid={testid}>
      <DialogTitle id={`${testid}-title`}>{title}</DialogTitle>
      <DialogContent>
        <DialogContentText>{text}</DialogContentText>
        {error && (
          <Alert severity="error" sx={{ mt: 2 }} data-testid={`${testid}-error`}>
            {error}
          </Alert>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t("form.cancel")}</Button>
        <Button variant="contained" color="error" onClick={onConfirm} disabled={busy} data-testid={`${testid}-confirm`}>
          {confirm}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
