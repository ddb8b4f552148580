import { zodResolver } from "@hookform/resolvers/zod";
import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogTitle from "@mui/material/DialogTitle";
import MenuItem from "@mui/material/MenuItem";
import Stack from "@mui/material/Stack";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableHead from "@mui/material/TableHead";
import TableRow from "@mui/material/TableRow";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { useState } from "react";
import { Controller, useForm } from "react-hook-form";
import { useTranslation } from "react-i18next";

import { type MoveResult, useApplicationsMove } from "../api/applications";
import { errorText, fieldErrors, messageText } from "../api/client";
import { moveSchema } from "../forms/schemas";

export type MoveTarget = { status: string; status_label: string };

/**
 * Moves the chosen applications through the status catalogue with a reason; the answer has
 * one result per id, and the refusals are listed with the catalogue's words.
 */
export function MoveDialog({
  ids,
  labels,
  targets,
  open,
  onClose,
  initialResult = null,
}: {
  ids: number[];
  labels?: Record<number, string>;
  targets: MoveTarget[];
  open: boolean;
  onClose: (moved: boolean) => void;
  initialResult?: MoveResult | null;
}) {
  const { t } = useTranslation();
  const move = useApplicationsMove();
  const [result, setResult] = useState<MoveResult | null>(initialResult);
  const [error, setError] = useState<string | null>(null);
  const form = useForm({
    resolver: zodResolver(moveSchema),
    defaultValues: { status: targets.length === 1 ? targets[0].status : "", reason: "" },
  });
  const close = () => {
    const moved = result !== null;
    setResult(null);
    setError(null);
    form.reset();
    onClose(moved);
  };
  const submit = form.handleSubmit((values) => {
    setError(null);
    move.mutate(
      { ids, ...values },
      {
        onSuccess: setResult,
        onError: (failure) => {
          const fields = fieldErrors(failure);
          Object.entries(fields).forEach(([field, message]) => {
            if (field === "status" || field === "reason") form.setError(field, { message });
          });
          if (!fields.status && !fields.reason) setError(errorText(failure, t));
        },
      },
    );
  });
  const errors = form.formState.errors;
  const refused = result?.results.filter((item) => !item.ok) ?? [];
  const moved = (result?.results.length ?? 0) - refused.length;
  const notices = result?.results.filter((item) => item.ok && item.notice) ?? [];

  return (
    <Dialog open={open} onClose={close} fullWidth maxWidth="sm" aria-labelledby="move-title">
      <DialogTitle id="move-title">{t("move.title")}</DialogTitle>
      {result ? (
        <>
          <DialogContent data-testid="move-result">
            <Alert severity={refused.length ? "warning" : "success"} sx={{ mb: 2 }} data-testid="move-summary">
              {t("move.result", { ok: moved, refused: refused.length })}
            </Alert>
            {notices.map((item) => (
              <Alert key={item.id} severity="info" sx={{ mb: 2 }} data-testid={`move-notice-${item.id}`}>
                {labels?.[item.id] ?? item.id}: {item.notice}
              </Alert>
            ))}
            {refused.length > 0 && (
              <Table size="small" aria-label={t("move.refused")} data-testid="move-refusals">
                <TableHead>
                  <TableRow>
                    <TableCell>{t("move.application")}</TableCell>
                    <TableCell>{t("move.detail")}</TableCell>
                  </TableRow>
                </TableHead>
                <TableBody>
                  {refused.map((item) => (
                    <TableRow key={item.id}>
                      <TableCell>{labels?.[item.id] ?? item.id}</TableCell>
                      <TableCell>{item.detail ?? t("move.refused")}</TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            )}
          </DialogContent>
          <DialogActions>
            <Button variant="contained" onClick={close} data-testid="move-close">
              {t("move.close")}
            </Button>
          </DialogActions>
        </>
      ) : (
        <form noValidate onSubmit={submit} data-testid="move-form">
          <DialogContent>
            <Typography sx={{ mb: 2 }}>{t("move.text", { count: ids.length })}</Typography>
            <Stack spacing={2}>
              <Controller
                control={form.control}
                name="status"
                render={({ field }) => (
                  <TextField
                    select
                    label={t("move.target")}
                    error={Boolean(errors.status)}
                    helperText={messageText(errors.status?.message, t)}
                    {...field}
                    slotProps={{ select: { SelectDisplayProps: { "data-testid": "move-status" } as object } }}
                  >
                    {targets.map((target) => (
                      <MenuItem key={target.status} value={target.status}>
                        {target.status_label}
                      </MenuItem>
                    ))}
                  </TextField>
                )}
              />
              <TextField
                label={t("move.reason")}
                multiline
                minRows={2}
                error={Boolean(errors.reason)}
                helperText={messageText(errors.reason?.message, t)}
                slotProps={{ htmlInput: { "data-testid": "move-reason", maxLength: 500 } }}
                {...form.register("reason")}
              />
              {error && (
                <Alert severity="error" data-testid="move-error">
                  {error}
                </Alert>
              )}
            </Stack>
          </DialogContent>
          <DialogActions>
            <Button onClick={close}>{t("move.cancel")}</Button>
            <Button
              type="submit"
              variant="contained"
              disabled={move.isPending || ids.length === 0}
              data-testid="move-submit"
            >
              {t("move.submit")}
            </Button>
          </DialogActions>
        </form>
      )}
    </Dialog>
  );
}
