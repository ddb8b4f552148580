import { zodResolver } from "@hookform/resolvers/zod";
import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogTitle from "@mui/material/DialogTitle";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import { useEffect, useState } from "react";
import { type DefaultValues, type FieldValues, type Path, useForm } from "react-hook-form";
import { useTranslation } from "react-i18next";
import type { z } from "zod";

import { errorText, fieldErrors, messageText } from "../api/client";

export type FieldSpec<T> = {
  name: Path<T> & string;
  label: string;
  help?: string;
  type?: string;
  inputMode?: "decimal" | "numeric" | "email" | "tel";
};

/**
 * A create/edit form in a dialog: react-hook-form with the zod rules, the server's field
 * errors under their fields, anything else above the buttons. `onDraft` sees every change
 * (the page keeps the unsaved form in localStorage).
 */
export function EntityDialog<T extends FieldValues>({
  title,
  fields,
  schema,
  initial,
  save,
  onDraft,
  onClose,
  testid,
}: {
  title: string;
  fields: FieldSpec<T>[];
  schema: z.ZodType<T, z.ZodTypeDef, T>;
  initial: T;
  save: (values: T) => Promise<unknown>;
  onDraft?: (values: T) => void;
  onClose: (saved: boolean) => void;
  testid: string;
}) {
  const { t } = useTranslation();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useForm<T>({ resolver: zodResolver(schema), defaultValues: initial as DefaultValues<T> });
  useEffect(() => {
    if (!onDraft) return;
    const watcher = form.watch((values) => onDraft(values as T));
    return () => watcher.unsubscribe();
  }, [form, onDraft]);

  const submit = form.handleSubmit(async (values) => {
    setError(null);
    setBusy(true);
    try {
      await save(values);
      onClose(true);
    } catch (failure) {
      const server = fieldErrors(failure);
      const known = fields.map((field) => field.name as string);
      Object.entries(server).forEach(([name, message]) => {
        if (known.includes(name)) form.setError(name as Path<T>, { message });
      });
      const rest = Object.entries(server).filter(([name]) => !known.includes(name));
      if (Object.keys(server).length === 0) setError(errorText(failure, t));
      else if (rest.length) setError(rest.map(([name, message]) => `${name}: ${message}`).join(" "));
    } finally {
      setBusy(false);
    }
  });

  return (
    <Dialog open onClose={() => onClose(false)} fullWidth maxWidth="sm" aria-labelledby={`${testid}-title`}>
      <form noValidate onSubmit={submit} data-testid={testid}>
        <DialogTitle id={`${testid}-title`}>{title}</DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            {fields.map((field) => {
              const message = form.formState.errors[field.name]?.message as string | undefined;
              return (
                <TextField
                  key={field.name}
                  label={field.label}
                  type={field.type ?? "text"}
                  error={Boolean(message)}
                  helperText={messageText(message, t) ?? field.help}
                  slotProps={{ htmlInput: { inputMode: field.inputMode, "data-testid": `field-${field.name}` } }}
                  {...form.register(field.name)}
                />
              );
            })}
            {error && (
              <Alert severity="error" data-testid="form-error">
                {error}
              </Alert>
            )}
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => onClose(false)}>{t("form.cancel")}</Button>
          <Button type="submit" variant="contained" disabled={busy} data-testid="form-save">
            {t("form.save")}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}
