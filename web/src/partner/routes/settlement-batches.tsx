import Add from "@mui/icons-material/Add";
import UploadFile from "@mui/icons-material/UploadFile";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import type { GridColDef } from "@mui/x-data-grid";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Link as RouterLink, useNavigate } from "react-router";

import { can } from "../api/auth";
import { type Batch, useBatchList } from "../api/settlement-batches";
import { BatchCreateDialog } from "../components/batch-create-dialog";
import { PagedList } from "../components/paged-list";
import { ReturnUploadDialog } from "../components/return-upload-dialog";
import { Forbidden } from "../components/query-error";
import { StatusChip } from "../components/status-chip";
import { dateTime, day, euros } from "../lib/format";
import { useListQuery } from "../lib/list-query";
import { PARTNER_PATHS } from "../lib/paths";
import { useStaffMember } from "../lib/staff-context";
import { localGet } from "../lib/storage";

export function BatchStatus({ status }: { status: string }) {
  const { t } = useTranslation();
  return (
    <StatusChip
      tone={status === "settled" ? "success" : "info"}
      label={t(`settlement.statuses.${status}`, { defaultValue: status })}
      data-status={status}
    />
  );
}

/** Settlement batches (partner admins): the list, a new batch, the batch last opened. */
export function SettlementBatches() {
  const { t, i18n } = useTranslation();
  const me = useStaffMember();
  const navigate = useNavigate();
  const { query } = useListQuery();
  const admin = can.admin(me.role);
  const list = useBatchList(query, admin);
  const [creating, setCreating] = useState(false);
  const [returns, setReturns] = useState(false);
  const language = i18n.language;
  if (!admin) return <Forbidden />;
  const lastId = localGet<number>("settlementBatchId");
  const last = list.data?.results.find((batch) => batch.id === lastId);

  const money = (key: "net" | "vat" | "gross") => (_value: unknown, row: Batch) => euros(row.totals.all[key], language);
  const columns: GridColDef<Batch>[] = [
    {
      field: "reference",
      headerName: t("settlement.reference"),
      minWidth: 170,
      flex: 1,
      renderCell: ({ row }) => (
        <RouterLink to={PARTNER_PATHS.settlementBatch(row.id)} data-testid={`batch-open-${row.id}`}>
          {row.reference}
        </RouterLink>
      ),
    },
    {
      field: "status",
      headerName: t("settlement.status"),
      width: 100,
      renderCell: ({ row }) => <BatchStatus status={row.status} />,
    },
    {
      field: "count",
      headerName: t("settlement.count"),
      width: 100,
      align: "right",
      headerAlign: "right",
      valueGetter: (_value, row) => row.totals.all.count,
    },
    {
      field: "net",
      headerName: t("settlement.net"),
      width: 120,
      align: "right",
      headerAlign: "right",
      valueGetter: money("net"),
    },
    {
      field: "vat",
      headerName: t("settlement.vat"),
      width: 110,
      align: "right",
      headerAlign: "right",
      valueGetter: money("vat"),
    },
    {
      field: "gross",
      headerName: t("settlement.gross"),
      width: 130,
      align: "right",
      headerAlign: "right",
      valueGetter: money("gross"),
    },
    {
      field: "execution_date",
      headerName: t("settlement.execution"),
      width: 120,
      valueFormatter: (value: string) => day(value, language),
    },
    {
      field: "created_at",
      headerName: t("settlement.created"),
      width: 170,
      valueFormatter: (value: string) => dateTime(value, language),
    },
  ];

  return (
    <Box>
      <Typography variant="h1" sx={{ mb: 2 }}>
        {t("settlement.title")}
      </Typography>
      <Stack direction={{ xs: "column", sm: "row" }} spacing={1.5} sx={{ mb: 2, alignItems: { sm: "center" } }}>
        <Button variant="contained" startIcon={<Add />} onClick={() => setCreating(true)} data-testid="batch-add">
          {t("settlement.create")}
        </Button>
        <Button
          variant="outlined"
          startIcon={<UploadFile />}
          onClick={() => setReturns(true)}
          data-testid="returns-open"
        >
          {t("payout.returns")}
        </Button>
        {last && (
          <Button component={RouterLink} to={PARTNER_PATHS.settlementBatch(last.id)} data-testid="batch-last">
            {t("settlement.lastOpened", { reference: last.reference })}
          </Button>
        )}
      </Stack>
      <PagedList<Batch>
        label={t("settlement.title")}
        list={list}
        columns={columns}
        emptyText={t("settlement.empty")}
        testid="batch-list"
      />
      {returns && <ReturnUploadDialog onClose={() => setReturns(false)} />}
      {creating && (
        <BatchCreateDialog
          onClose={(created) => {
            setCreating(false);
            if (created) navigate(PARTNER_PATHS.settlementBatch(created.id), { state: { skipped: created.skipped } });
          }}
        />
      )}
    </Box>
  );
}
