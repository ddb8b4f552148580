import { zodResolver } from "@hookform/resolvers/zod";
import Add from "@mui/icons-material/Add";
import DeleteOutline from "@mui/icons-material/DeleteOutline";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Card from "@mui/material/Card";
import CardContent from "@mui/material/CardContent";
import IconButton from "@mui/material/IconButton";
import Stack from "@mui/material/Stack";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableContainer from "@mui/material/TableContainer";
import TableHead from "@mui/material/TableHead";
import TableRow from "@mui/material/TableRow";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { useEffect, useMemo, useState } from "react";
import { type Path, useFieldArray, useForm } from "react-hook-form";
import { useTranslation } from "react-i18next";

import { can } from "../api/auth";
import { ApiError, errorText } from "../api/client";
import { type FeeTable, useFeeTable, useFeeTableSave, useFeeVersions } from "../api/fees";
import { Loading } from "../components/layout";
import { PriceMissingAlert } from "../components/price-missing-alert";
import { QueryError } from "../components/query-error";
import {
  amountText,
  type PriceForm,
  priceFormSchema,
  type PriceRowForm,
  rowForm,
  rowPayload,
} from "../forms/price-schema";
import { dateTime, euros } from "../lib/format";
import { useStaffMember } from "../lib/staff-context";

const VAT_MODES = ["plus_vat", "net_only"] as const;

/** A form message: a text key, or "key|amount" for a bound. */
function useMessage() {
  const { t, i18n } = useTranslation();
  return (message: string | undefined) => {
    if (!message) return undefined;
    const [key, amount] = message.split("|");
    return amount ? t(key, { amount: euros(amount, i18n.language) }) : t(key);
  };
}

/** The partner's fee table (issue 49): partner admins edit it, back office and viewers read it. */
export function Prices() {
  const { t } = useTranslation();
  const me = useStaffMember();
  const table = useFeeTable();
  return (
    <Box sx={{ minWidth: 0 }}>
      <Typography variant="h1" sx={{ mb: 1 }}>
        {t("prices.title")}
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 2, maxWidth: 760 }}>
        {t("prices.intro")}
      </Typography>
      <PriceMissingAlert link={false} />
      {table.isPending ? (
        <Loading />
      ) : table.isError ? (
        <QueryError error={table.error} retry={() => void table.refetch()} />
      ) : can.admin(me.role) ? (
        <PriceEditor table={table.data} />
      ) : (
        <PriceView table={table.data} />
      )}
      <Versions />
    </Box>
  );
}

function VersionLine({ table }: { table: FeeTable }) {
  const { t, i18n } = useTranslation();
  const saved = table.saved;
  return (
    <Typography variant="body2" color="text.secondary" data-testid="prices-version" sx={{ mb: 2 }}>
      {t("prices.version", { number: table.version })}
      {" · "}
      {saved && saved.number > 0
        ? t("prices.savedBy", { who: saved.created_by, when: dateTime(saved.created_at, i18n.language) })
        : t("prices.setup")}
    </Typography>
  );
}

function PriceView({ table }: { table: FeeTable }) {
  const { t, i18n } = useTranslation();
  return (
    <Card variant="outlined" sx={{ mb: 3 }}>
      <CardContent>
        <VersionLine table={table} />
        <Alert severity="info" sx={{ mb: 2 }}>
          {t("prices.readOnly")}
        </Alert>
        {table.rows.length === 0 ? (
          <Typography data-testid="prices-empty">{t("prices.empty")}</Typography>
        ) : (
          <TableContainer tabIndex={0}>
            <Table size="small" data-testid="prices-table">
              <TableHead>
                <TableRow>
                  <TableCell>{t("prices.year")}</TableCell>
                  <TableCell>{t("prices.vehicleClass")}</TableCell>
                  <TableCell align="right">{t("prices.privatePayout")}</TableCell>
                  <TableCell align="right">{t("prices.businessNet")}</TableCell>
                  <TableCell>{t("prices.businessVat")}</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {table.rows.map((row) => (
                  <TableRow key={`${row.legislation_year}/${row.vehicle_class}`}>
                    <TableCell>{row.legislation_year}</TableCell>
                    <TableCell>{row.vehicle_class}</TableCell>
                    <TableCell align="right">{euros(row.private_payout, i18n.language)}</TableCell>
                    <TableCell align="right">{euros(row.business_net, i18n.language)}</TableCell>
                    <TableCell>
                      {row.business_vat === "plus_vat"
                        ? `${t("prices.vatModes.plus_vat")} (${amountText(row.vat_percentage, i18n.language)} %)`
                        : t("prices.vatModes.net_only")}
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        )}
      </CardContent>
    </Card>
  );
}

function emptyRow(table: FeeTable, rows: PriceRowForm[]): PriceRowForm {
  const taken = new Set(rows.map((row) => `${row.legislation_year}/${row.vehicle_class}`));
  const years = table.open_years.length ? table.open_years : [new Date().getFullYear()];
  let year = String(years[0]);
  let vehicleClass = table.vehicle_classes[0] ?? "M1";
  outer: for (const each of years)
    for (const name of table.vehicle_classes)
      if (!taken.has(`${each}/${name}`)) {
        year = String(each);
        vehicleClass = name;
        break outer;
      }
  return {
    legislation_year: year,
    vehicle_class: vehicleClass,
    private_payout: "",
    business_net: "",
    business_vat: "plus_vat",
    vat_percentage: "19",
  };
}

function PriceEditor({ table }: { table: FeeTable }) {
  const { t, i18n } = useTranslation();
  const message = useMessage();
  const save = useFeeTableSave();
  const [notice, setNotice] = useState<{ severity: "success" | "info" | "error"; text: string } | null>(null);
  const schema = useMemo(() => priceFormSchema(table.bounds), [table.bounds]);
  const defaults = useMemo<PriceForm>(
    () => ({ rows: table.rows.map((row) => rowForm(row, i18n.language)), note: "" }),
    [table.rows, i18n.language],
  );
  const form = useForm<PriceForm>({ resolver: zodResolver(schema), defaultValues: defaults });
  const rows = useFieldArray({ control: form.control, name: "rows" });
  useEffect(() => form.reset(defaults), [defaults, form]);
  const years = useMemo(
    () => [...new Set([...table.open_years, ...table.rows.map((row) => row.legislation_year)])].sort(),
    [table],
  );
  const bound = (index: number) => {
    const row = form.watch(`rows.${index}`);
    const found = table.bounds.find(
      (b) => String(b.legislation_year) === row?.legislation_year && b.vehicle_class === row?.vehicle_class,
    );
    return found ? t("prices.bound", { amount: euros(found.max, i18n.language) }) : undefined;
  };

  const submit = form.handleSubmit(async (values) => {
    setNotice(null);
    try {
      const before = table.version;
      const saved = await save.mutateAsync({
        base_version: before,
        rows: values.rows.map(rowPayload),
        note: values.note.trim(),
      });
      setNotice(
        saved.version === before
          ? { severity: "info", text: t("prices.unchanged") }
          : { severity: "success", text: t("prices.saved", { number: saved.version }) },
      );
    } catch (failure) {
      const body =
        failure instanceof ApiError
          ? (failure.body as { fees?: { message?: string; details?: { row?: number; field?: string } } })
          : null;
      const fees = body?.fees;
      if (fees?.message) {
        const { row, field } = fees.details ?? {};
        if (row && field) form.setError(`rows.${row - 1}.${field}` as Path<PriceForm>, { message: fees.message });
        setNotice({ severity: "error", text: fees.message });
      } else setNotice({ severity: "error", text: errorText(failure, t) });
    }
  });

  const field = (index: number, name: keyof PriceRowForm) => {
    const error = form.formState.errors.rows?.[index]?.[name]?.message;
    return {
      error: Boolean(error),
      helperText: error ? (error.includes(" ") ? error : message(error)) : undefined,
      ...form.register(`rows.${index}.${name}`),
    };
  };

  return (
    <Card variant="outlined" sx={{ mb: 3 }}>
      <CardContent component="form" noValidate onSubmit={submit} data-testid="prices-form">
        <VersionLine table={table} />
        {table.reverse_charge && (
          <Alert severity="info" sx={{ mb: 2 }}>
            {t("prices.reverseCharge")}
          </Alert>
        )}
        {rows.fields.length === 0 && <Typography data-testid="prices-empty">{t("prices.empty")}</Typography>}
        {rows.fields.length > 0 && (
          <TableContainer tabIndex={0}>
            <Table size="small" data-testid="prices-table" sx={{ "& td": { verticalAlign: "top" } }}>
              <TableHead>
                <TableRow>
                  <TableCell>{t("prices.year")}</TableCell>
                  <TableCell>{t("prices.vehicleClass")}</TableCell>
                  <TableCell>{t("prices.privatePayout")}</TableCell>
                  <TableCell>{t("prices.businessNet")}</TableCell>
                  <TableCell>{t("prices.businessVat")}</TableCell>
                  <TableCell>{t("prices.vatPercentage")}</TableCell>
                  <TableCell />
                </TableRow>
              </TableHead>
              <TableBody>
                {rows.fields.map((item, index) => (
                  <TableRow key={item.id} data-testid={`prices-row-${index + 1}`}>
                    <TableCell sx={{ minWidth: 110 }}>
                      <TextField
                        select
                        size="small"
                        fullWidth
                        slotProps={{
                          select: { native: true },
                          htmlInput: { "aria-label": t("prices.year"), "data-testid": `price-year-${index + 1}` },
                        }}
                        {...field(index, "legislation_year")}
                      >
                        {[...new Set([...years.map(String), form.getValues(`rows.${index}.legislation_year`)])].map(
                          (year) => (
                            <option key={year} value={year}>
                              {year}
                            </option>
                          ),
                        )}
                      </TextField>
                    </TableCell>
                    <TableCell sx={{ minWidth: 100 }}>
                      <TextField
                        select
                        size="small"
                        fullWidth
                        slotProps={{
                          select: { native: true },
                          htmlInput: {
                            "aria-label": t("prices.vehicleClass"),
                            "data-testid": `price-class-${index + 1}`,
                          },
                        }}
                        {...field(index, "vehicle_class")}
                      >
                        {table.vehicle_classes.map((name) => (
                          <option key={name} value={name}>
                            {name}
                          </option>
                        ))}
                      </TextField>
                    </TableCell>
                    {(["private_payout", "business_net"] as const).map((name) => {
                      const props = field(index, name);
                      return (
                        <TableCell key={name} sx={{ minWidth: 150 }}>
                          <TextField
                            size="small"
                            fullWidth
                            {...props}
                            helperText={props.helperText ?? bound(index)}
                            slotProps={{
                              htmlInput: {
                                inputMode: "decimal",
                                "aria-label": t(
                                  name === "private_payout" ? "prices.privatePayout" : "prices.businessNet",
                                ),
                                "data-testid": `price-${name}-${index + 1}`,
                              },
                              input: { endAdornment: "€" },
                            }}
                          />
                        </TableCell>
                      );
                    })}
                    <TableCell sx={{ minWidth: 190 }}>
                      <TextField
                        select
                        size="small"
                        fullWidth
                        slotProps={{
                          select: { native: true },
                          htmlInput: { "aria-label": t("prices.businessVat"), "data-testid": `price-vat-${index + 1}` },
                        }}
                        {...field(index, "business_vat")}
                      >
                        {VAT_MODES.map((mode) => (
                          <option key={mode} value={mode}>
                            {t(`prices.vatModes.${mode}`)}
                          </option>
                        ))}
                      </TextField>
                    </TableCell>
                    <TableCell sx={{ minWidth: 90 }}>
                      <TextField
                        size="small"
                        fullWidth
                        {...field(index, "vat_percentage")}
                        slotProps={{
                          htmlInput: {
                            inputMode: "decimal",
                            "aria-label": t("prices.vatPercentage"),
                            "data-testid": `price-rate-${index + 1}`,
                          },
                        }}
                      />
                    </TableCell>
                    <TableCell padding="checkbox">
                      <IconButton
                        aria-label={t("prices.removeRow", { row: index + 1 })}
                        onClick={() => rows.remove(index)}
                        data-testid={`price-remove-${index + 1}`}
                      >
                        <DeleteOutline />
                      </IconButton>
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        )}
        <Stack direction={{ xs: "column", sm: "row" }} sx={{ gap: 2, mt: 2, alignItems: { sm: "flex-start" } }}>
          <Button
            startIcon={<Add />}
            onClick={() => rows.append(emptyRow(table, form.getValues("rows")))}
            data-testid="price-add"
          >
            {t("prices.addRow")}
          </Button>
          <TextField
            size="small"
            label={t("prices.note")}
            sx={{ flex: 1, minWidth: 0 }}
            slotProps={{ htmlInput: { maxLength: 300, "data-testid": "price-note" } }}
            {...form.register("note")}
          />
          <Button type="submit" variant="contained" disabled={save.isPending} data-testid="price-save">
            {t("prices.save")}
          </Button>
        </Stack>
        {notice && (
          <Alert severity={notice.severity} sx={{ mt: 2 }} data-testid="prices-notice" role="status">
            {notice.text}
          </Alert>
        )}
      </CardContent>
    </Card>
  );
}

function Versions() {
  const { t, i18n } = useTranslation();
  const versions = useFeeVersions();
  if (!versions.data) return null;
  return (
    <Box component="section" aria-labelledby="prices-versions-title">
      <Typography variant="h2" id="prices-versions-title" sx={{ mb: 1 }}>
        {t("prices.versions")}
      </Typography>
      {versions.data.length === 0 ? (
        <Typography color="text.secondary">{t("prices.versionsEmpty")}</Typography>
      ) : (
        <TableContainer tabIndex={0}>
          <Table size="small" data-testid="prices-versions">
            <TableHead>
              <TableRow>
                <TableCell>{t("prices.version", { number: "" }).trim()}</TableCell>
                <TableCell>{t("prices.validFrom")}</TableCell>
                <TableCell>{t("prices.by")}</TableCell>
                <TableCell>{t("prices.reason")}</TableCell>
                <TableCell align="right">{t("prices.count")}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {versions.data.map((version) => (
                <TableRow key={version.number}>
                  <TableCell>{version.number}</TableCell>
                  <TableCell>
                    {version.valid_from ? dateTime(version.valid_from, i18n.language) : t("prices.fromStart")}
                  </TableCell>
                  <TableCell>{version.number === 0 ? t("prices.setup") : version.created_by}</TableCell>
                  <TableCell>{version.note}</TableCell>
                  <TableCell align="right">{version.rows.length}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      )}
    </Box>
  );
}
