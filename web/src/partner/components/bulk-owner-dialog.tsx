import { zodResolver } from "@hookform/resolvers/zod";
import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogTitle from "@mui/material/DialogTitle";
import Grid from "@mui/material/Grid";
import TextField from "@mui/material/TextField";
import { useState } from "react";
import { type Path, useForm } from "react-hook-form";
import { useTranslation } from "react-i18next";
import type { z } from "zod";

import { usePartner } from "@/shared/lib/partner-context";
import { offeredGenders } from "@/shared/lib/genders";

import { type BulkItem, type OwnerPayload, useBulkItemOwner } from "../api/bulk-uploads";
import { errorText, fieldErrors, messageText } from "../api/client";
import { EMPTY_OWNER, type OwnerForm, ownerFormSchema, ownerPayload } from "../forms/money-schemas";

type Field = { name: Path<OwnerForm>; label: string; width?: number; type?: string; select?: [string, string][] };

/**
 * The owner of one scan of an upload without CSV: the CSV row's fields, checked here by the
 * same rules and again by the server (the flow's billing rules), whose messages go under
 * their fields.
 */
export function BulkOwnerDialog({
  uploadId,
  item,
  onClose,
}: {
  uploadId: number;
  item: BulkItem;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const partner = usePartner();
  // only the forms of address the partner offers (the server refuses any other), none when it asks for none
  const genders = partner.show_gender_option ? offeredGenders(partner.gender_option).map((gender) => gender.value) : [];
  const save = useBulkItemOwner(uploadId);
  const [error, setError] = useState<string | null>(null);
  const form = useForm<OwnerForm, unknown, z.output<typeof ownerFormSchema>>({
    resolver: zodResolver(ownerFormSchema),
    defaultValues: EMPTY_OWNER,
  });
  const business = form.watch("vehicle_owner_type") === "business";
  const vatMandatory = form.watch("is_vat_mandatory") === "yes";

  const fields: Field[] = [
    { name: "email", label: t("bulk.email"), width: 12, type: "email" },
    ...(genders.length
      ? [
          {
            name: "gender" as const,
            label: t("bulk.gender"),
            width: 4,
            select: [
              ["", t("bulk.genderNone")] as [string, string],
              ...genders.map((value): [string, string] => [value, t(`bulk.genders.${value}`)]),
            ],
          },
        ]
      : []),
    { name: "first_name", label: t("bulk.firstName"), width: 4 },
    { name: "last_name", label: t("bulk.lastName"), width: 4 },
    { name: "street_name", label: t("bulk.streetName"), width: 8 },
    { name: "street_number", label: t("bulk.streetNumber"), width: 4 },
    { name: "postal_code", label: t("bulk.postalCode"), width: 4 },
    { name: "city", label: t("bulk.city"), width: 8 },
    { name: "account_iban", label: t("bulk.iban"), width: 7 },
    { name: "account_name", label: t("bulk.accountName"), width: 5 },
    {
      name: "vehicle_owner_type",
      label: t("bulk.ownerType"),
      width: 6,
      select: [
        ["private", t("bulk.private")],
        ["business", t("bulk.business")],
      ],
    },
    ...(business
      ? ([
          {
            name: "is_vat_mandatory",
            label: t("bulk.vatMandatory"),
            width: 6,
            select: [
              ["", ""],
              ["yes", t("bulk.yes")],
              ["no", t("bulk.no")],
            ],
          },
          { name: "name_of_business", label: t("bulk.nameOfBusiness"), width: 6 },
          ...(vatMandatory ? [{ name: "vat_number", label: t("bulk.vatNumber"), width: 6 }] : []),
        ] as Field[])
      : []),
  ];

  const submit = form.handleSubmit(async (values) => {
    setError(null);
    try {
      await save.mutateAsync({ itemId: item.id, values: ownerPayload(values) as OwnerPayload });
      onClose();
    } catch (failure) {
      const server = fieldErrors(failure);
      const known = fields.map((field) => field.name as string);
      const rest: string[] = [];
      for (const [name, message] of Object.entries(server)) {
        if (known.includes(name)) form.setError(name as Path<OwnerForm>, { message });
        else if (name !== "error_code") rest.push(`${name}: ${message}`);
      }
      if (Object.keys(server).length === 0) setError(errorText(failure, t));
      else if (rest.length) setError(rest.join(" "));
    }
  });

  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="md" aria-labelledby="bulk-owner-title">
      <form noValidate onSubmit={submit} data-testid="bulk-owner-form">
        <DialogTitle id="bulk-owner-title">{t("bulk.ownerTitle", { file: item.file_name })}</DialogTitle>
        <DialogContent>
          <Grid container spacing={2} sx={{ pt: 1 }}>
            {fields.map((field) => {
              const message = form.formState.errors[field.name]?.message as string | undefined;
              const registered = form.register(field.name);
              return (
                <Grid key={field.name} size={{ xs: 12, sm: field.width ?? 6 }}>
                  <TextField
                    fullWidth
                    label={field.label}
                    type={field.type ?? "text"}
                    select={Boolean(field.select)}
                    error={Boolean(message)}
                    helperText={
                      message && /^[A-Z]+\d{3}$/.test(message)
                        ? t(`bulk.codes.${message}`, { defaultValue: message })
                        : messageText(message, t)
                    }
                    slotProps={{
                      htmlInput: { "data-testid": `owner-${field.name}` },
                      select: { native: true },
                      inputLabel: field.select ? { shrink: true } : undefined,
                    }}
                    {...registered}
                  >
                    {field.select?.map(([value, label]) => (
                      <option key={value} value={value}>
                        {label}
                      </option>
                    ))}
                  </TextField>
                </Grid>
              );
            })}
          </Grid>
          {error && (
            <Alert severity="error" sx={{ mt: 2 }} data-testid="form-error">
              {error}
            </Alert>
          )}
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>{t("form.cancel")}</Button>
          <Button type="submit" variant="contained" disabled={save.isPending} data-testid="owner-save">
            {t("form.save")}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}
