import Download from "@mui/icons-material/Download";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import LinearProgress from "@mui/material/LinearProgress";
import Link from "@mui/material/Link";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import type { GridColDef } from "@mui/x-data-grid";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Link as RouterLink, useParams } from "react-router";

import { useFilterOptions } from "../api/applications";
import { can } from "../api/auth";
import { type BulkItem, FINISHED, RUNNING, useBulkUpload, useBulkUploadRollback } from "../api/bulk-uploads";
import { ApiError, errorText } from "../api/client";
import { EXPORTS } from "../api/exports";
import { BulkOwnerDialog } from "../components/bulk-owner-dialog";
import { ConfirmDialog } from "../components/confirm-dialog";
import { Loading } from "../components/layout";
import { QueryError } from "../components/query-error";
import { ServerGrid } from "../components/server-grid";
import { StatusChip } from "../components/status-chip";
import { count, dateTime } from "../lib/format";
import { PARTNER_PATHS } from "../lib/paths";
import { useStaffMember } from "../lib/staff-context";
import { useExportTexts } from "../texts/exports";
import { BulkStatus } from "./bulk-uploads";

const ITEM_COLOUR = { accepted: "success", refused: "error", duplicate: "warning", pending: "default" } as const;

/** One upload: live progress per file (polled while it runs), rollback, owner data per scan. */
export function BulkUploadDetail() {
  const { t, i18n } = useTranslation();
  const filterOptions = useFilterOptions();
  const me = useStaffMember();
  const id = Number(useParams().id);
  const upload = useBulkUpload(id);
  const rollback = useBulkUploadRollback(id);
  const [confirming, setConfirming] = useState(false);
  const [owner, setOwner] = useState<BulkItem | null>(null);
  const [page, setPage] = useState({ page: 0, pageSize: 100 });
  const x = useExportTexts();
  const language = i18n.language;

  if (upload.isPending) return <Loading />;
  if (upload.isError) return <QueryError error={upload.error} retry={() => void upload.refetch()} />;
  const data = upload.data;
  const running = RUNNING.includes(data.status);
  const done = data.file_count - data.counts.pending;
  const editable = can.edit(me.role);
  const ownersMissing = !data.has_csv && FINISHED.includes(data.status);

  const reason = (item: BulkItem) => {
    if (!item.error_code) return "";
    const text = t(`bulk.codes.${item.error_code}`, { ...item.details, defaultValue: "" });
    return text ? `${item.error_code}: ${text}` : item.error_code;
  };

  // A status as the partner reads it (the catalogue's wording from the filter options), never its code.
  const statuses = new Map((filterOptions.data?.statuses ?? []).map((item) => [item.value, item.label]));
  const statusText = (status: string) => statuses.get(status) ?? "…";
  const columns: GridColDef<BulkItem>[] = [
    { field: "position", headerName: t("bulk.position"), width: 70, valueFormatter: (value: number) => value + 1 },
    { field: "file_name", headerName: t("bulk.fileName"), minWidth: 160, flex: 1 },
    {
      field: "status",
      headerName: t("bulk.status"),
      width: 130,
      renderCell: ({ row }) => (
        <StatusChip
          tone={ITEM_COLOUR[row.status]}
          label={t(`bulk.${row.status}`)}
          data-testid={`item-status-${row.position}`}
        />
      ),
    },
    {
      field: "error_code",
      headerName: t("bulk.code"),
      minWidth: 220,
      flex: 1,
      valueGetter: (_value, row) => reason(row),
    },
    {
      field: "registration",
      headerName: t("bulk.registration"),
      width: 200,
      valueGetter: (_value, row) =>
        row.registration
          ? `${row.registration.sequence}${row.registration.vin ? ` · ${row.registration.vin}` : ""}`
          : "",
    },
    {
      field: "applications",
      headerName: t("bulk.applications"),
      minWidth: 180,
      flex: 1,
      valueGetter: (_value, row) =>
        row.applications
          .map((application) => `${application.legislation_year}: ${statusText(application.status)}`)
          .join(", "),
    },
  ];
  if (ownersMissing)
    columns.push({
      field: "owner",
      headerName: "",
      width: 190,
      renderCell: ({ row }) =>
        row.status !== "accepted" ? null : row.has_owner ? (
          <Typography variant="body2" sx={{ pt: 2 }}>
            {t("bulk.ownerDone")}
          </Typography>
        ) : editable ? (
          <Button size="small" onClick={() => setOwner(row)} data-testid={`owner-add-${row.position}`}>
            {t("bulk.addOwner")}
          </Button>
        ) : null,
    });

  const refusal = rollback.error instanceof ApiError ? rollback.error : null;
  const past = (refusal?.body as { applications?: { id: number; status: string }[] } | null)?.applications ?? [];

  return (
    <Box>
      <Link component={RouterLink} to={PARTNER_PATHS.bulkUploads} sx={{ display: "inline-block", mb: 1 }}>
        {t("bulk.back")}
      </Link>
      <Typography variant="h1" sx={{ mb: 2, wordBreak: "break-all" }}>
        {t("bulk.detailTitle", { name: data.file_name })}
      </Typography>
      <Paper variant="outlined" sx={{ p: 2, mb: 2 }} data-testid="bulk-summary">
        <Stack direction={{ xs: "column", sm: "row" }} spacing={2} sx={{ alignItems: { sm: "center" }, mb: 1.5 }}>
          <BulkStatus status={data.status} label={data.status_label} />
          <Typography variant="body2">{dateTime(data.created_at, language)}</Typography>
          <Typography variant="body2">{data.has_csv ? t("bulk.withCsv") : t("bulk.withoutCsv")}</Typography>
          {running && (
            <Typography variant="body2" sx={{ color: "text.secondary", fontStyle: "italic" }} data-testid="bulk-live">
              {t("bulk.live")}
            </Typography>
          )}
        </Stack>
        <LinearProgress
          variant="determinate"
          value={Math.round(data.progress * 100)}
          aria-label={t("bulk.progress")}
          sx={{ height: 8, borderRadius: 1, mb: 1 }}
        />
        <Typography variant="body2" role="status" aria-live="polite" data-testid="bulk-progress">
          {t("bulk.progressText", { done: count(done, language), total: count(data.file_count, language) })} ·{" "}
          {t("bulk.accepted")}: {data.counts.accepted} · {t("bulk.refused")}: {data.counts.refused} ·{" "}
          {t("bulk.duplicate")}: {data.counts.duplicate}
        </Typography>
        <Stack direction="row" spacing={1} sx={{ mt: 1.5, flexWrap: "wrap", rowGap: 1 }}>
          {(["csv", "xlsx"] as const).map((kind) => (
            <Button
              key={kind}
              size="small"
              variant="outlined"
              component="a"
              href={EXPORTS.bulkResults(id, kind)}
              download
              startIcon={<Download />}
              data-testid={`bulk-results-${kind}`}
            >
              {x(kind === "csv" ? "resultsCsv" : "resultsXlsx")}
            </Button>
          ))}
        </Stack>
        {editable && data.status !== "bevRegistration_bulk_is_rolled_back" && (
          <Box sx={{ mt: 2 }}>
            <Button
              variant="outlined"
              color="error"
              disabled={!data.can_roll_back}
              onClick={() => {
                rollback.reset();
                setConfirming(true);
              }}
              data-testid="bulk-rollback"
            >
              {t("bulk.rollback")}
            </Button>
            {!data.can_roll_back && (
              <Typography variant="body2" sx={{ mt: 1, color: "text.secondary" }}>
                {t("bulk.rollbackNotYet")}
              </Typography>
            )}
          </Box>
        )}
        {rollback.isSuccess && (
          <Alert severity="success" sx={{ mt: 2 }} data-testid="bulk-rolled-back">
            {t("bulk.rolledBack", {
              applications: rollback.data.removed.applications ?? 0,
              registrations: rollback.data.removed.registrations ?? 0,
            })}
          </Alert>
        )}
      </Paper>
      <Paper variant="outlined" sx={{ overflow: "hidden" }}>
        <ServerGrid<BulkItem>
          label={t("bulk.files")}
          rows={data.items}
          columns={columns.map((column) => ({ ...column, sortable: false }))}
          paginationMode="client"
          pageSizeOptions={[25, 50, 100]}
          paginationModel={page}
          onPaginationModelChange={setPage}
          getRowHeight={() => "auto"}
        />
      </Paper>
      {confirming && (
        <ConfirmDialog
          title={t("bulk.rollbackTitle")}
          text={t("bulk.rollbackText")}
          confirm={t("bulk.rollbackConfirm")}
          busy={rollback.isPending}
          testid="bulk-rollback-dialog"
          error={
            rollback.isError && (
              <>
                {errorText(rollback.error, t)}
                {past.length > 0 && (
                  <Box component="span" sx={{ display: "block", mt: 1 }}>
                    {t("bulk.rollbackRefused")}{" "}
                    {past.map((application) => `${application.id} (${statusText(application.status)})`).join(", ")}
                  </Box>
                )}
              </>
            )
          }
          onConfirm={() => rollback.mutate(undefined, { onSuccess: () => setConfirming(false) })}
          onClose={() => setConfirming(false)}
        />
      )}
      {owner && <BulkOwnerDialog uploadId={id} item={owner} onClose={() => setOwner(null)} />}
    </Box>
  );
}
