import { zodResolver } from "@hookform/resolvers/zod";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogContentText from "@mui/material/DialogContentText";
import DialogTitle from "@mui/material/DialogTitle";
import FormHelperText from "@mui/material/FormHelperText";
import LinearProgress from "@mui/material/LinearProgress";
import Link from "@mui/material/Link";
import MenuItem from "@mui/material/MenuItem";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { type ReactNode, useState } from "react";
import { Controller, useForm } from "react-hook-form";
import { useTranslation } from "react-i18next";

import { type BulkUpload, useBulkUploadCreate } from "../api/bulk-uploads";
import { ApiError, errorText, messageText } from "../api/client";
import { EXPORTS, useUploadYears } from "../api/exports";
import { useExportTexts } from "../texts/exports";
import { type BulkUploadForm, bulkUploadFormSchema } from "../forms/money-schemas";

type Refusal = { error_code?: string; message?: string; details?: Record<string, unknown> };
type T = (key: string, options?: Record<string, unknown>) => string;

const list = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);

/** What the server's details say, as lines: the archive's files, the CSV's columns and rows. */
export function refusalDetails(refusal: Refusal, t: T): ReactNode[] {
  const details = refusal.details ?? {};
  const lines: ReactNode[] = [];
  const named: [string, string][] = [
    ["files", "bulk.files"],
    ["unknown", "bulk.unknownColumns"],
    ["missing", "bulk.missingColumns"],
    ["twice", "bulk.twiceColumns"],
    ["unknown_files", "bulk.unknownFiles"],
    ["rows_twice", "bulk.rowsTwice"],
    ["without_row", "bulk.withoutRow"],
  ];
  for (const [key, label] of named) {
    const values = list(details[key]);
    if (values.length) lines.push(`${t(label)}: ${values.slice(0, 20).join(", ")}${values.length > 20 ? " …" : ""}`);
  }
  const rows = Array.isArray(details.rows)
    ? (details.rows as { row: number; file_name?: string; errors: object }[])
    : [];
  for (const row of rows.slice(0, 20)) {
    const errors = Object.entries(row.errors ?? {}).map(([field, value]) => {
      const text = Array.isArray(value)
        ? value.join(" ")
        : ((value as { error_code?: string; message?: string }).message ??
          (value as { error_code?: string }).error_code ??
          "");
      return `${field}: ${text}`;
    });
    lines.push(`${t("bulk.row", { row: row.row })}${row.file_name ? ` (${row.file_name})` : ""}: ${errors.join("; ")}`);
  }
  return lines;
}

function FilePick({
  label,
  accept,
  file,
  error,
  onChange,
  testid,
}: {
  label: string;
  accept: string;
  file: File | null;
  error?: string;
  onChange: (file: File | null) => void;
  testid: string;
}) {
  const { t } = useTranslation();
  return (
    <Box>
      <Typography variant="subtitle2" component="p" sx={{ mb: 0.5 }}>
        {label}
      </Typography>
      <Stack direction="row" spacing={1} sx={{ alignItems: "center" }}>
        <Button variant="outlined" component="label">
          {t("bulk.choose")}
          <input
            hidden
            type="file"
            accept={accept}
            aria-label={label}
            data-testid={testid}
            onChange={(event) => {
              onChange(event.target.files?.[0] ?? null);
              event.target.value = "";
            }}
          />
        </Button>
        <Typography variant="body2" sx={{ wordBreak: "break-all" }} data-testid={`${testid}-name`}>
          {file
            ? `${file.name} (${(file.size / 1024 / 1024).toLocaleString(undefined, { maximumFractionDigits: 1 })} MB)`
            : ""}
        </Typography>
        {file && (
          <Button size="small" onClick={() => onChange(null)}>
            {t("bulk.remove")}
          </Button>
        )}
      </Stack>
      {error && (
        <FormHelperText error data-testid={`${testid}-error`}>
          {error}
        </FormHelperText>
      )}
    </Box>
  );
}

/**
 * The ZIP (and optional owner CSV) checked in the browser first (type, size), then sent; the
 * server's refusals (docs/partner-api.md: archive, owners_csv, 413) shown with their details.
 */
export function BulkUploadDialog({ onClose }: { onClose: (created: BulkUpload | null) => void }) {
  const { t } = useTranslation();
  const x = useExportTexts();
  const create = useBulkUploadCreate();
  const years = useUploadYears();
  const [pickedYear, setPickedYear] = useState<number | null>(null);
  const year = pickedYear ?? years.data?.default ?? null;
  const [refusal, setRefusal] = useState<{ field: string; message: string; lines: ReactNode[] } | null>(null);
  const form = useForm<BulkUploadForm>({
    resolver: zodResolver(bulkUploadFormSchema) as never,
    defaultValues: { archive: null, owners_csv: null },
  });

  const submit = form.handleSubmit(async (values) => {
    setRefusal(null);
    try {
      const created = await create.mutateAsync({
        archive: values.archive as File,
        owners_csv: values.owners_csv,
        registration_year: year,
      });
      onClose(created);
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 413) {
        form.setError("archive", { message: t("bulk.tooLarge") });
        return;
      }
      const body = failure instanceof ApiError ? (failure.body as Record<string, unknown> | null) : null;
      for (const field of ["archive", "owners_csv"] as const) {
        const value = body?.[field] as Refusal | undefined;
        if (value && typeof value === "object") {
          const message = value.message ?? value.error_code ?? "";
          form.setError(field, { message });
          setRefusal({
            field,
            message: `${value.error_code ?? ""} ${message}`.trim(),
            lines: refusalDetails(value, t),
          });
          return;
        }
      }
      const years = Array.isArray(body?.registration_years) ? String(body.registration_years[0]) : null;
      setRefusal({ field: "", message: years ?? errorText(failure, t), lines: [] });
    }
  });

  const message = (name: "archive" | "owners_csv") =>
    messageText(form.formState.errors[name]?.message as string | undefined, t);

  return (
    <Dialog open onClose={() => onClose(null)} fullWidth maxWidth="sm" aria-labelledby="bulk-upload-title">
      <form noValidate onSubmit={submit} data-testid="bulk-upload-form">
        <DialogTitle id="bulk-upload-title">{t("bulk.uploadTitle")}</DialogTitle>
        <DialogContent>
          <Stack spacing={2}>
            <DialogContentText>{t("bulk.uploadText")}</DialogContentText>
            {years.data && years.data.years.length === 0 ? (
              <Alert severity="warning" data-testid="bulk-no-year">
                {x("noYear")}
              </Alert>
            ) : (
              <TextField
                select
                label={x("year")}
                helperText={x("yearHelp")}
                value={year ?? ""}
                onChange={(event) => setPickedYear(Number(event.target.value))}
                disabled={!years.data}
                slotProps={{ select: { SelectDisplayProps: { "data-testid": "bulk-year" } as object } }}
              >
                {(years.data?.years ?? []).map((option) => (
                  <MenuItem key={option} value={option}>
                    {option}
                  </MenuItem>
                ))}
              </TextField>
            )}
            <Controller
              control={form.control}
              name="archive"
              render={({ field }) => (
                <FilePick
                  label={t("bulk.archive")}
                  accept=".zip,application/zip"
                  file={field.value}
                  error={message("archive")}
                  onChange={field.onChange}
                  testid="bulk-archive"
                />
              )}
            />
            <Controller
              control={form.control}
              name="owners_csv"
              render={({ field }) => (
                <FilePick
                  label={t("bulk.ownersCsv")}
                  accept=".csv,text/csv"
                  file={field.value}
                  error={message("owners_csv")}
                  onChange={field.onChange}
                  testid="bulk-csv"
                />
              )}
            />
            <Typography variant="body2">
              <Link href={EXPORTS.ownerTemplate()} download data-testid="bulk-template">
                {x("template")}
              </Link>
              {" – "}
              {x("templateHelp")}
            </Typography>
            {refusal && (
              <Alert severity="error" data-testid="bulk-refusal">
                <Typography variant="body2">{refusal.message}</Typography>
                {refusal.lines.length > 0 && (
                  <Box component="ul" sx={{ m: 0, pl: 2 }}>
                    {refusal.lines.map((line, index) => (
                      <li key={index}>
                        <Typography variant="body2">{line}</Typography>
                      </li>
                    ))}
                  </Box>
                )}
              </Alert>
            )}
            {create.isPending && <LinearProgress aria-label={t("bulk.sending")} />}
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => onClose(null)}>{t("form.cancel")}</Button>
          <Button
            type="submit"
            variant="contained"
            disabled={create.isPending || years.data?.years.length === 0}
            data-testid="bulk-send"
          >
            {create.isPending ? t("bulk.sending") : t("bulk.send")}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}
