import { zodResolver } from "@hookform/resolvers/zod";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogContentText from "@mui/material/DialogContentText";
import DialogTitle from "@mui/material/DialogTitle";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import { useState } from "react";
import { Controller, type Path, useForm } from "react-hook-form";
import { useTranslation } from "react-i18next";

import { DateField } from "@/shared/ui/date-field";

import { useFilterOptions } from "../api/applications";
import { errorText, fieldErrors, messageText } from "../api/client";
import { type Skipped, useBatchCreate } from "../api/settlement-batches";
import { type BatchForm, batchFormSchema, batchPayload, EMPTY_BATCH } from "../forms/money-schemas";
import { PriceMissingAlert } from "./price-missing-alert";

export type BatchCreated = { id: number; skipped: Skipped };

/**
 * A new settlement batch of qa_to_pay applications: by the filters, or (`ids`) of the rows
 * selected in the applications grid, then only the execution date is asked for. What the server
 * left out is shown after (or here, when nothing could go).
 */
export function BatchCreateDialog({
  ids,
  onClose,
}: {
  ids?: number[];
  onClose: (created: BatchCreated | null) => void;
}) {
  const { t } = useTranslation();
  const selection = ids !== undefined;
  const options = useFilterOptions();
  const create = useBatchCreate();
  const [error, setError] = useState<{ text: string; skipped: Skipped } | null>(null);
  const form = useForm<BatchForm>({ resolver: zodResolver(batchFormSchema), defaultValues: EMPTY_BATCH });
  const filterFields: { name: Path<BatchForm>; label: string; type: string; choices?: [string, string][] }[] = [
    {
      name: "legislation_year",
      label: t("settlement.year"),
      type: "select",
      choices: [
        ["", t("settlement.allYears")],
        ...(options.data?.years ?? []).map((y): [string, string] => [String(y), String(y)]),
      ],
    },
    {
      name: "vehicle_class",
      label: t("settlement.vehicleClass"),
      type: "select",
      choices: [
        ["", t("settlement.allClasses")],
        ...(options.data?.vehicle_classes ?? []).map((c): [string, string] => [c, c]),
      ],
    },
    { name: "created_from", label: t("settlement.createdFrom"), type: "date" },
    { name: "created_to", label: t("settlement.createdTo"), type: "date" },
  ];
  const fields = [
    ...(selection ? [] : filterFields),
    { name: "execution_date" as const, label: t("settlement.executionDate"), type: "date" },
  ];
  const submit = form.handleSubmit(async (values) => {
    setError(null);
    const { filters, ...rest } = batchPayload(values);
    try {
      const created = await create.mutateAsync(selection ? { ids, ...rest } : { filters, ...rest });
      onClose({ id: created.id, skipped: created.skipped });
    } catch (failure) {
      const server = fieldErrors(failure);
      for (const field of fields) if (server[field.name]) form.setError(field.name, { message: server[field.name] });
      const body = (failure as { body?: { skipped?: Skipped } }).body;
      if (!fields.some((field) => server[field.name]))
        setError({ text: errorText(failure, t), skipped: body?.skipped ?? [] });
    }
  });
  return (
    <Dialog open onClose={() => onClose(null)} fullWidth maxWidth="sm" aria-labelledby="batch-create-title">
      <form noValidate onSubmit={submit} data-testid="batch-create-form">
        <DialogTitle id="batch-create-title">{t("settlement.create")}</DialogTitle>
        <DialogContent>
          <Stack spacing={2}>
            <DialogContentText data-testid="batch-create-text">
              {selection ? t("settlement.selectionText", { count: ids.length }) : t("settlement.createText")}
            </DialogContentText>
            <PriceMissingAlert />
            {fields.map((field) => {
              const message = form.formState.errors[field.name]?.message;
              if (field.type === "date")
                return (
                  <Controller
                    key={field.name}
                    control={form.control}
                    name={field.name}
                    render={({ field: input }) => (
                      <DateField
                        label={field.label}
                        name={input.name}
                        value={input.value}
                        onChange={input.onChange}
                        onBlur={input.onBlur}
                        inputRef={input.ref}
                        error={message ? true : undefined}
                        helperText={messageText(message, t)}
                        placeholder={t("form.datePlaceholder")}
                        invalidText={t("form.dateFormat")}
                        testId={`batch-${field.name}`}
                      />
                    )}
                  />
                );
              return (
                <TextField
                  key={field.name}
                  label={field.label}
                  select={field.type === "select"}
                  error={Boolean(message)}
                  helperText={messageText(message, t)}
                  slotProps={{
                    htmlInput: { "data-testid": `batch-${field.name}` },
                    inputLabel: { shrink: true },
                    select: { native: true },
                  }}
                  {...form.register(field.name)}
                >
                  {"choices" in field &&
                    field.choices?.map(([value, label]) => (
                      <option key={value} value={value}>
                        {label}
                      </option>
                    ))}
                </TextField>
              );
            })}
            {error && (
              <Alert severity="error" data-testid="batch-create-error">
                {error.text}
                {error.skipped.length > 0 && (
                  <Box component="ul" sx={{ m: 0, pl: 2 }}>
                    {error.skipped.slice(0, 20).map((item) => (
                      <li key={item.id}>
                        {item.sequence ?? item.id}: {item.detail}
                      </li>
                    ))}
                  </Box>
                )}
              </Alert>
            )}
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => onClose(null)}>{t("form.cancel")}</Button>
          <Button type="submit" variant="contained" disabled={create.isPending} data-testid="batch-create-submit">
            {t("settlement.createSubmit")}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}
