import { zodResolver } from "@hookform/resolvers/zod";
import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import Checkbox from "@mui/material/Checkbox";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogContentText from "@mui/material/DialogContentText";
import DialogTitle from "@mui/material/DialogTitle";
import FormControlLabel from "@mui/material/FormControlLabel";
import FormHelperText from "@mui/material/FormHelperText";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import { Controller, useForm } from "react-hook-form";
import { useTranslation } from "react-i18next";

import { errorText, fieldErrors, messageText } from "../api/client";
import { type ErasureResult, useErasure } from "../api/privacy";
import { type ErasureConfirmForm, erasureConfirmSchema } from "../forms/erasure-schema";

/**
 * The last step of an erasure on request: where the request came from (kept in the audit
 * log) and the admin's word that the requester holds the address; then the server erases.
 */
export function ErasureDialog({
  email,
  onClose,
  onErased,
}: {
  email: string;
  onClose: () => void;
  onErased: (result: ErasureResult) => void;
}) {
  const { t } = useTranslation();
  const erase = useErasure();
  const form = useForm<ErasureConfirmForm>({
    resolver: zodResolver(erasureConfirmSchema),
    defaultValues: { reference: "", identity: false },
  });
  const errors = form.formState.errors;
  const submit = form.handleSubmit((values) => {
    erase.mutate(
      { email, reference: values.reference.trim() },
      {
        onSuccess: onErased,
        onError: (failure) => {
          const fields = fieldErrors(failure);
          if (fields.reference) form.setError("reference", { message: fields.reference });
        },
      },
    );
  });
  const serverFields = fieldErrors(erase.error);
  return (
    <Dialog
      open
      onClose={erase.isPending ? undefined : onClose}
      aria-labelledby="erasure-title"
      fullWidth
      maxWidth="sm"
    >
      <DialogTitle id="erasure-title">{t("privacy.dialogTitle")}</DialogTitle>
      <DialogContent>
        <Stack component="form" id="erasure-form" noValidate spacing={2} onSubmit={submit} data-testid="erasure-form">
          <DialogContentText>{t("privacy.dialogText", { email })}</DialogContentText>
          <TextField
            label={t("privacy.reference")}
            error={Boolean(errors.reference)}
            helperText={messageText(errors.reference?.message, t) ?? t("privacy.referenceHelp")}
            slotProps={{ htmlInput: { "data-testid": "erasure-reference", maxLength: 200 } }}
            {...form.register("reference")}
          />
          <div>
            <Controller
              control={form.control}
              name="identity"
              render={({ field }) => (
                <FormControlLabel
                  control={
                    <Checkbox
                      checked={field.value}
                      onChange={(event) => field.onChange(event.target.checked)}
                      slotProps={{ input: { "data-testid": "erasure-identity" } as object }}
                    />
                  }
                  label={t("privacy.identity")}
                />
              )}
            />
            {errors.identity && <FormHelperText error>{messageText(errors.identity.message, t)}</FormHelperText>}
          </div>
          {erase.isError && !serverFields.reference && (
            <Alert severity="error" data-testid="erasure-error">
              {errorText(erase.error, t)}
            </Alert>
          )}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={erase.isPending}>
          {t("privacy.cancel")}
        </Button>
        <Button
          type="submit"
          form="erasure-form"
          color="error"
          variant="contained"
          disabled={erase.isPending}
          data-testid="erasure-confirm"
        >
          {t("privacy.confirm")}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
