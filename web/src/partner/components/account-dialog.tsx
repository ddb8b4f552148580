import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import ButtonBase from "@mui/material/ButtonBase";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogTitle from "@mui/material/DialogTitle";
import FormControlLabel from "@mui/material/FormControlLabel";
import FormHelperText from "@mui/material/FormHelperText";
import Switch from "@mui/material/Switch";
import { type ReactNode, useState } from "react";

import { useDigest, useDigestSwitch } from "../api/exports";
import { useExportTexts } from "../texts/exports";

/** The member's own settings (issue 49): the daily mail digest on or off (PATCH me/). */
export function AccountDialog({ name, onClose }: { name: string; onClose: () => void }) {
  const x = useExportTexts();
  const digest = useDigest();
  const change = useDigestSwitch();
  const enabled = change.isPending ? Boolean(change.variables) : (digest.data ?? true);
  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="xs" aria-labelledby="account-title">
      <DialogTitle id="account-title">{x("accountOf", { name })}</DialogTitle>
      <DialogContent>
        <FormControlLabel
          control={
            <Switch
              checked={enabled}
              disabled={!digest.isSuccess || change.isPending}
              onChange={(event) => change.mutate(event.target.checked)}
              slotProps={{ input: { "data-testid": "digest-switch" } as object }}
            />
          }
          label={x("digest")}
        />
        <FormHelperText>{x("digestHelp")}</FormHelperText>
        {change.isSuccess && (
          <Alert severity="success" sx={{ mt: 2 }} role="status" data-testid="digest-saved">
            {x(change.data ? "digestOn" : "digestOff")}
          </Alert>
        )}
        {change.isError && (
          <Alert severity="error" sx={{ mt: 2 }} data-testid="digest-failed">
            {x("saveFailed")}
          </Alert>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{x("close")}</Button>
      </DialogActions>
    </Dialog>
  );
}

/** The header's name and role, as a button that opens the member's own settings. */
export function AccountButton({ name, children }: { name: string; children: ReactNode }) {
  const x = useExportTexts();
  const [open, setOpen] = useState(false);
  return (
    <>
      <ButtonBase
        onClick={() => setOpen(true)}
        // the accessible name is what the button shows (name and role); the title says what it opens
        title={x("accountOf", { name })}
        aria-haspopup="dialog"
        sx={{ display: "block", textAlign: "inherit", borderRadius: 1 }}
        data-testid="partner-account"
      >
        {children}
      </ButtonBase>
      {open && <AccountDialog name={name} onClose={() => setOpen(false)} />}
    </>
  );
}
