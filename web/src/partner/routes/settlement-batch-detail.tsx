import { zodResolver } from "@hookform/resolvers/zod";
import Download from "@mui/icons-material/Download";
import MoreVert from "@mui/icons-material/MoreVert";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogContentText from "@mui/material/DialogContentText";
import DialogTitle from "@mui/material/DialogTitle";
import IconButton from "@mui/material/IconButton";
import Link from "@mui/material/Link";
import Menu from "@mui/material/Menu";
import MenuItem from "@mui/material/MenuItem";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableContainer from "@mui/material/TableContainer";
import TableHead from "@mui/material/TableHead";
import TableRow from "@mui/material/TableRow";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import useMediaQuery from "@mui/material/useMediaQuery";
import type { GridColDef, GridColumnVisibilityModel } from "@mui/x-data-grid";
import { useEffect, useState } from "react";
import { type FieldValues, type Path, useForm } from "react-hook-form";
import { useTranslation } from "react-i18next";
import { Link as RouterLink, useLocation, useParams } from "react-router";
import { z } from "zod";

import { can } from "../api/auth";
import { errorText, fieldErrors, messageText } from "../api/client";
import { useItemPaid, useItemRequeue } from "../api/payout-documents";
import {
  type BatchDetail,
  type SettlementItem,
  type Skipped,
  type Sum,
  useBatch,
  useBatchApprove,
  useItemFail,
  useItemIban,
  useMarkPaid,
  useSepaDownload,
} from "../api/settlement-batches";
import { ConfirmDialog } from "../components/confirm-dialog";
import { Loading } from "../components/layout";
import { BatchDocuments } from "../components/payout-documents";
import { Forbidden, QueryError } from "../components/query-error";
import { ServerGrid } from "../components/server-grid";
import { failFormSchema, ibanFormSchema } from "../forms/money-schemas";
import { dateTime, day, euros } from "../lib/format";
import { PARTNER_PATHS } from "../lib/paths";
import { useStaffMember } from "../lib/staff-context";
import { localSet } from "../lib/storage";

const paidFormSchema = z.object({ note: z.string().trim().max(300, "payout.noteTooLong") });

/** A failed payout's further actions: pay again as it is, or confirm the bank paid it after all. */
function FailedItemMenu({
  item,
  onRequeue,
  onPaid,
}: {
  item: SettlementItem;
  onRequeue: (item: SettlementItem) => void;
  onPaid: (item: SettlementItem) => void;
}) {
  const { t } = useTranslation();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const choose = (action: (item: SettlementItem) => void) => () => {
    setAnchor(null);
    action(item);
  };
  return (
    <>
      <IconButton
        size="small"
        aria-label={t("payout.more")}
        aria-haspopup="menu"
        onClick={(event) => setAnchor(event.currentTarget)}
        data-testid={`more-${item.id}`}
      >
        <MoreVert fontSize="small" />
      </IconButton>
      <Menu anchorEl={anchor} open={anchor !== null} onClose={() => setAnchor(null)}>
        <MenuItem onClick={choose(onRequeue)} data-testid={`requeue-${item.id}`}>
          {t("payout.requeue")}
        </MenuItem>
        <MenuItem onClick={choose(onPaid)} data-testid={`paid-${item.id}`}>
          {t("payout.paid")}
        </MenuItem>
      </Menu>
    </>
  );
}

const cents = (amount: string) => Math.round(Number(amount) * 100);
const fromCents = (value: number) => (value / 100).toFixed(2);

/** Totals per owner type (private, business) of the items that are paid or to be paid. */
export function ownerTypeTotals(batch: BatchDetail): Record<"private" | "business", Sum> {
  const result = {
    private: { count: 0, net: 0, vat: 0, gross: 0 },
    business: { count: 0, net: 0, vat: 0, gross: 0 },
  };
  for (const item of [...batch.items, ...batch.charge_card_items]) {
    // An erased owner's item has no owner type any more: only in the batch's own totals.
    if (item.status === "failed" || item.owner_type === null) continue;
    const sum = result[item.owner_type];
    sum.count += 1;
    sum.net += cents(item.net);
    sum.vat += cents(item.vat);
    sum.gross += cents(item.gross);
  }
  const shaped = (sum: typeof result.private): Sum => ({
    count: sum.count,
    net: fromCents(sum.net),
    vat: fromCents(sum.vat),
    gross: fromCents(sum.gross),
  });
  return { private: shaped(result.private), business: shaped(result.business) };
}

/** A one-purpose form in a dialog (fail reason, corrected IBAN); the server's errors under their fields. */
function SmallForm<T extends FieldValues>({
  title,
  text,
  fields,
  schema,
  initial,
  save,
  onClose,
  testid,
}: {
  title: string;
  text: string;
  fields: { name: Path<T>; label: string }[];
  schema: z.ZodTypeAny;
  initial: T;
  save: (values: T) => Promise<unknown>;
  onClose: () => void;
  testid: string;
}) {
  const { t } = useTranslation();
  const [error, setError] = useState<string | null>(null);
  const form = useForm<T>({ resolver: zodResolver(schema), defaultValues: initial as never });
  const submit = form.handleSubmit(async (values) => {
    setError(null);
    try {
      await save(values);
      onClose();
    } catch (failure) {
      const server = fieldErrors(failure);
      let placed = false;
      for (const field of fields)
        if (server[field.name]) {
          form.setError(field.name, { message: server[field.name] });
          placed = true;
        }
      if (!placed) setError(errorText(failure, t));
    }
  });
  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="sm" aria-labelledby={`${testid}-title`}>
      <form noValidate onSubmit={submit} data-testid={testid}>
        <DialogTitle id={`${testid}-title`}>{title}</DialogTitle>
        <DialogContent>
          <Stack spacing={2}>
            <DialogContentText>{text}</DialogContentText>
            {fields.map((field) => {
              const message = form.formState.errors[field.name]?.message as string | undefined;
              return (
                <TextField
                  key={field.name}
                  label={field.label}
                  error={Boolean(message)}
                  helperText={messageText(message, t)}
                  slotProps={{ htmlInput: { "data-testid": `${testid}-${field.name}` } }}
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
          <Button onClick={onClose}>{t("form.cancel")}</Button>
          <Button type="submit" variant="contained" data-testid={`${testid}-save`}>
            {t("form.save")}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}

function Totals({ batch }: { batch: BatchDetail }) {
  const { t, i18n } = useTranslation();
  const byType = ownerTypeTotals(batch);
  const rows: [string, string, Sum][] = [
    ["all", t("settlement.totalsAll"), batch.totals.all],
    ["private", t("settlement.totalsPrivate"), byType.private],
    ["business", t("settlement.totalsBusiness"), byType.business],
    ["sepa", t("settlement.totalsSepa"), batch.totals.sepa],
    ["charge_card", t("settlement.totalsCard"), batch.totals.charge_card],
    ["failed", t("settlement.totalsFailed"), batch.totals.failed],
  ];
  // Five columns of euro amounts need about 480 px: on a narrower phone the table scrolls
  // sideways inside its own box (focusable, so a keyboard can scroll it too), not the page.
  return (
    <TableContainer tabIndex={0} role="region" aria-label={t("settlement.totals")} data-testid="batch-totals-scroll">
      <Table size="small" aria-label={t("settlement.totals")} data-testid="batch-totals">
        <TableHead>
          <TableRow>
            <TableCell>{t("settlement.totals")}</TableCell>
            <TableCell align="right">{t("settlement.count")}</TableCell>
            <TableCell align="right">{t("settlement.net")}</TableCell>
            <TableCell align="right">{t("settlement.vat")}</TableCell>
            <TableCell align="right">{t("settlement.gross")}</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map(([key, label, sum]) => (
            <TableRow key={key} data-testid={`totals-${key}`}>
              <TableCell component="th" scope="row" sx={{ fontWeight: key === "all" ? 600 : undefined }}>
                {label}
              </TableCell>
              <TableCell align="right">{sum.count}</TableCell>
              <TableCell align="right">{euros(sum.net, i18n.language)}</TableCell>
              <TableCell align="right">{euros(sum.vat, i18n.language)}</TableCell>
              <TableCell align="right">{euros(sum.gross, i18n.language)}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

/** One batch: totals, SEPA download, mark paid (only from NEW), failed items and corrected IBANs. */
export function SettlementBatchDetail() {
  const { t, i18n } = useTranslation();
  const me = useStaffMember();
  const id = Number(useParams().id);
  const admin = can.admin(me.role);
  const batch = useBatch(id, admin);
  const paid = useMarkPaid(id);
  const download = useSepaDownload();
  const approve = useBatchApprove(id);
  const fail = useItemFail(id);
  const iban = useItemIban(id);
  const requeue = useItemRequeue(id);
  const confirmPaid = useItemPaid(id);
  const skipped = ((useLocation().state as { skipped?: Skipped } | null)?.skipped ?? []) as Skipped;
  const [confirming, setConfirming] = useState(false);
  const [failing, setFailing] = useState<SettlementItem | null>(null);
  const [correcting, setCorrecting] = useState<SettlementItem | null>(null);
  const [requeuing, setRequeuing] = useState<SettlementItem | null>(null);
  const [confirmingPaid, setConfirmingPaid] = useState<SettlementItem | null>(null);
  // Nine columns fit a 1440 px screen beside the menu (about 1150 px for the grid); on a smaller
  // one the owner type and the VAT (both in the totals above) step aside, on a phone the net
  // amount and the IBAN too, so the action column stays in reach. The grid's column menu shows
  // any of them again.
  const roomy = useMediaQuery("(min-width:1400px)", { noSsr: true });
  const phone = !useMediaQuery("(min-width:600px)", { noSsr: true });
  const [shown, setShown] = useState<GridColumnVisibilityModel>({});
  const visibility = { owner_type: roomy, vat: roomy, net: !phone, iban_masked: !phone, ...shown };
  const language = i18n.language;
  useEffect(() => {
    if (batch.data) localSet("settlementBatchId", batch.data.id);
  }, [batch.data]);

  if (!admin) return <Forbidden />;
  if (batch.isPending) return <Loading />;
  if (batch.isError) return <QueryError error={batch.error} retry={() => void batch.refetch()} />;
  const data = batch.data;
  const isNew = data.status === "new";

  const money = (key: "net" | "vat" | "gross") => (_value: unknown, row: SettlementItem) => euros(row[key], language);
  const columns: GridColDef<SettlementItem>[] = [
    {
      field: "application",
      headerName: t("settlement.application"),
      width: 115,
      valueGetter: (_value, row) => `${row.application.sequence}/${row.application.legislation_year}`,
    },
    {
      field: "payee_name",
      headerName: t("settlement.payee"),
      minWidth: 140,
      flex: 1,
      valueGetter: (_value, row) => (row.erased ? t("settlement.erased") : row.payee_name),
    },
    {
      field: "owner_type",
      headerName: t("settlement.ownerType"),
      width: 100,
      valueFormatter: (value: string | null) => (value ? t(`settlement.${value}`) : "–"),
    },
    {
      field: "net",
      headerName: t("settlement.net"),
      width: 95,
      align: "right",
      headerAlign: "right",
      valueGetter: money("net"),
    },
    {
      field: "vat",
      headerName: t("settlement.vat"),
      width: 80,
      align: "right",
      headerAlign: "right",
      valueGetter: money("vat"),
    },
    {
      field: "gross",
      headerName: t("settlement.gross"),
      width: 100,
      align: "right",
      headerAlign: "right",
      valueGetter: money("gross"),
    },
    {
      field: "iban_masked",
      headerName: t("settlement.iban"),
      width: 190,
      valueGetter: (_value, row) => (row.method === "sepa" ? row.iban_masked : row.charge_card),
    },
    {
      field: "status",
      headerName: t("settlement.itemStatus"),
      minWidth: 140,
      flex: 1,
      valueGetter: (_value, row) =>
        `${t(`settlement.itemStatuses.${row.status}`)}${row.failure_reason ? `: ${row.failure_reason}` : ""}`,
    },
    {
      field: "actions",
      headerName: "",
      width: 190,
      // An erased owner's item is kept as paid or failed: nothing left to act on. A failed
      // payout whose application still waits in payment failure: a corrected IBAN (bank items),
      // paying it again as it is, or the bank's word that it was paid after all.
      renderCell: ({ row }) =>
        row.erased ? null : row.status === "failed" ? (
          row.application.status === "qa_payment_failure" ? (
            <Stack direction="row" sx={{ alignItems: "center", height: "100%" }}>
              {row.method === "sepa" && (
                <Button size="small" onClick={() => setCorrecting(row)} data-testid={`iban-${row.id}`}>
                  {t("settlement.correctIban")}
                </Button>
              )}
              <FailedItemMenu
                item={row}
                onRequeue={(item) => {
                  requeue.reset();
                  setRequeuing(item);
                }}
                onPaid={setConfirmingPaid}
              />
            </Stack>
          ) : null
        ) : (
          <Button size="small" color="error" onClick={() => setFailing(row)} data-testid={`fail-${row.id}`}>
            {t("settlement.fail")}
          </Button>
        ),
    },
  ];
  const grid = (rows: SettlementItem[], label: string, testid: string) => (
    <Paper variant="outlined" sx={{ overflow: "hidden", mb: 2 }} data-testid={testid}>
      <ServerGrid<SettlementItem>
        label={label}
        rows={rows}
        columns={columns.map((column) => ({ ...column, sortable: false }))}
        columnVisibilityModel={visibility}
        onColumnVisibilityModelChange={setShown}
        paginationMode="client"
        initialState={{ pagination: { paginationModel: { pageSize: 100 } } }}
        pageSizeOptions={[25, 50, 100]}
      />
    </Paper>
  );

  return (
    <Box>
      <Link component={RouterLink} to={PARTNER_PATHS.settlementBatches} sx={{ display: "inline-block", mb: 1 }}>
        {t("settlement.back")}
      </Link>
      <Typography variant="h1" sx={{ mb: 2 }}>
        {t("settlement.detailTitle", { reference: data.reference })}
      </Typography>
      {skipped.length > 0 && (
        <Alert severity="info" sx={{ mb: 2 }} data-testid="batch-skipped">
          {t("settlement.skipped")}:{" "}
          {skipped
            .slice(0, 20)
            .map((item) => `${item.sequence ?? item.id} (${item.detail})`)
            .join(", ")}
        </Alert>
      )}
      <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
        <Stack direction={{ xs: "column", sm: "row" }} spacing={2} sx={{ mb: 2, alignItems: { sm: "center" } }}>
          <Typography variant="body2" data-testid="batch-status">
            {t("settlement.status")}: <strong>{t(`settlement.statuses.${data.status}`)}</strong>
          </Typography>
          <Typography variant="body2">
            {t("settlement.execution")}: {day(data.execution_date, language)}
          </Typography>
          {data.paid_at && (
            <Typography variant="body2">
              {t("settlement.paidAt")}: {dateTime(data.paid_at, language)}
            </Typography>
          )}
        </Stack>
        <Totals batch={data} />
        <Stack direction={{ xs: "column", sm: "row" }} spacing={1.5} sx={{ mt: 2 }}>
          <Button
            variant="contained"
            startIcon={<Download />}
            disabled={download.isPending || data.totals.sepa.count === 0}
            onClick={() => download.mutate({ batch: data, version: "09" })}
            data-testid="sepa-download"
          >
            {t("settlement.download")}
          </Button>
          <Button
            variant="outlined"
            disabled={download.isPending || data.totals.sepa.count === 0}
            onClick={() => download.mutate({ batch: data, version: "03" })}
            data-testid="sepa-download-03"
          >
            {t("settlement.download03")}
          </Button>
          {isNew && (
            <Button
              variant="contained"
              color="success"
              onClick={() => {
                paid.reset();
                setConfirming(true);
              }}
              data-testid="mark-paid"
            >
              {t("settlement.markPaid")}
            </Button>
          )}
        </Stack>
        {!isNew && (
          <Typography variant="body2" sx={{ mt: 1, color: "text.secondary" }}>
            {t("settlement.markPaidNotNew")}
          </Typography>
        )}
        {data.approval?.required && !data.approval.approved && (
          <Alert
            severity="info"
            sx={{ mt: 2 }}
            data-testid="approval-needed"
            action={
              <Button
                color="inherit"
                size="small"
                disabled={approve.isPending}
                onClick={() => approve.mutate()}
                data-testid="approve"
              >
                {t("settlement.approve")}
              </Button>
            }
          >
            {t("settlement.approvalNeeded")}
          </Alert>
        )}
        {data.approval?.approved && data.approval.approved_by && (
          <Typography variant="body2" sx={{ mt: 1 }} data-testid="approved-by">
            {t("settlement.approvedBy", { who: data.approval.approved_by })}
          </Typography>
        )}
        {approve.isError && (
          <Alert severity="error" sx={{ mt: 2 }} data-testid="approve-error">
            {errorText(approve.error, t)}
          </Alert>
        )}
        {data.sepa_file?.warning && (
          <Alert severity="warning" sx={{ mt: 2 }} data-testid="sepa-paid-warning">
            {data.sepa_file.warning}
          </Alert>
        )}
        {download.isError && (
          <Alert severity="error" sx={{ mt: 2 }} data-testid="sepa-error">
            {errorText(download.error, t)}
          </Alert>
        )}
        {paid.isSuccess && (
          <Alert severity="success" sx={{ mt: 2 }} data-testid="mark-paid-done">
            {t("settlement.markedPaid")}
          </Alert>
        )}
      </Paper>
      <Typography variant="h3" component="h2" sx={{ mb: 1 }}>
        {t("settlement.items")}
      </Typography>
      {grid(data.items, t("settlement.items"), "batch-items")}
      {data.charge_card_items.length > 0 && (
        <>
          <Typography variant="h3" component="h2" sx={{ mb: 1 }}>
            {t("settlement.cardItems")}
          </Typography>
          {grid(data.charge_card_items, t("settlement.cardItems"), "batch-card-items")}
        </>
      )}
      <BatchDocuments batch={data} />
      {confirming && (
        <ConfirmDialog
          title={t("settlement.markPaidTitle")}
          text={t("settlement.markPaidText")}
          confirm={t("settlement.markPaid")}
          busy={paid.isPending}
          testid="mark-paid-dialog"
          error={paid.isError && errorText(paid.error, t)}
          onConfirm={() => paid.mutate(undefined, { onSuccess: () => setConfirming(false) })}
          onClose={() => setConfirming(false)}
        />
      )}
      {failing && (
        <SmallForm<{ reason: string }>
          title={t("settlement.failTitle")}
          text={t("settlement.failText")}
          fields={[{ name: "reason", label: t("settlement.reason") }]}
          schema={failFormSchema}
          initial={{ reason: "" }}
          save={(values) => fail.mutateAsync({ itemId: failing.id, reason: values.reason })}
          onClose={() => setFailing(null)}
          testid="fail-form"
        />
      )}
      {requeuing && (
        <ConfirmDialog
          title={t("payout.requeueTitle")}
          text={t("payout.requeueText")}
          confirm={t("payout.requeue")}
          busy={requeue.isPending}
          testid="requeue-dialog"
          error={requeue.isError && errorText(requeue.error, t)}
          onConfirm={() => requeue.mutate(requeuing.id, { onSuccess: () => setRequeuing(null) })}
          onClose={() => setRequeuing(null)}
        />
      )}
      {confirmingPaid && (
        <SmallForm<{ note: string }>
          title={t("payout.paidTitle")}
          text={t("payout.paidText")}
          fields={[{ name: "note", label: t("payout.paidNote") }]}
          schema={paidFormSchema}
          initial={{ note: "" }}
          save={(values) => confirmPaid.mutateAsync({ itemId: confirmingPaid.id, note: values.note })}
          onClose={() => setConfirmingPaid(null)}
          testid="paid-form"
        />
      )}
      {correcting && (
        <SmallForm<{ account_iban: string; account_name: string }>
          title={t("settlement.ibanTitle")}
          text={t("settlement.ibanText")}
          fields={[
            { name: "account_iban", label: t("settlement.iban") },
            { name: "account_name", label: t("settlement.accountName") },
          ]}
          schema={ibanFormSchema}
          initial={{ account_iban: "", account_name: "" }}
          save={(values) =>
            iban.mutateAsync({
              itemId: correcting.id,
              account_iban: values.account_iban,
              account_name: values.account_name,
            })
          }
          onClose={() => setCorrecting(null)}
          testid="iban-form"
        />
      )}
    </Box>
  );
}
