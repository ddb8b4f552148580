import Upload from "@mui/icons-material/Upload";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import LinearProgress from "@mui/material/LinearProgress";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import type { GridColDef } from "@mui/x-data-grid";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Link as RouterLink, useNavigate } from "react-router";

import { can } from "../api/auth";
import { type BulkUpload, RUNNING, useBulkUploadList } from "../api/bulk-uploads";
import { BulkUploadDialog } from "../components/bulk-upload-dialog";
import { PagedList } from "../components/paged-list";
import { StatusChip, type Tone } from "../components/status-chip";
import { dateTime } from "../lib/format";
import { useListQuery } from "../lib/list-query";
import { PARTNER_PATHS } from "../lib/paths";
import { useStaffMember } from "../lib/staff-context";

/** The chip colour of an upload status (spec/customer-portal.md section 4). */
export function bulkStatusColour(status: string): Tone {
  if (status === "bevRegistration_bulk_created") return "success";
  if (status === "bevRegistration_bulk_rejected" || status === "unstructured_data_upload_failed") return "error";
  if (status === "ready") return "warning";
  if (RUNNING.includes(status)) return "info";
  return "default";
}

export function BulkStatus({ status, label }: { status: string; label?: string }) {
  const { t } = useTranslation();
  const text = t(`bulk.statuses.${status}`, { defaultValue: label ?? status });
  return <StatusChip tone={bulkStatusColour(status)} label={text} data-status={status} />;
}

/** Bulk uploads: every role follows them; back office and partner admins upload. */
export function BulkUploads() {
  const { t, i18n } = useTranslation();
  const me = useStaffMember();
  const navigate = useNavigate();
  const { query } = useListQuery();
  const list = useBulkUploadList(query);
  const [uploading, setUploading] = useState(false);
  const language = i18n.language;

  const columns: GridColDef<BulkUpload>[] = [
    {
      field: "file_name",
      headerName: t("bulk.fileName"),
      minWidth: 180,
      flex: 1,
      renderCell: ({ row }) => (
        <RouterLink to={PARTNER_PATHS.bulkUpload(row.id)} data-testid={`bulk-open-${row.id}`}>
          {row.file_name}
        </RouterLink>
      ),
    },
    {
      field: "status",
      headerName: t("bulk.status"),
      minWidth: 220,
      renderCell: ({ row }) => <BulkStatus status={row.status} label={row.status_label} />,
    },
    {
      field: "progress",
      headerName: t("bulk.progress"),
      width: 150,
      renderCell: ({ row }) => (
        <Box sx={{ width: "100%", pt: 2.5 }}>
          <LinearProgress
            variant="determinate"
            value={Math.round(row.progress * 100)}
            aria-label={`${t("bulk.progress")}: ${row.file_name}`}
          />
        </Box>
      ),
    },
    { field: "file_count", headerName: t("bulk.fileCount"), width: 80, align: "right", headerAlign: "right" },
    {
      field: "accepted",
      headerName: t("bulk.accepted"),
      width: 110,
      align: "right",
      headerAlign: "right",
      valueGetter: (_value, row) => row.counts.accepted,
    },
    {
      field: "refused",
      headerName: t("bulk.refused"),
      width: 100,
      align: "right",
      headerAlign: "right",
      valueGetter: (_value, row) => row.counts.refused + row.counts.duplicate,
    },
    {
      field: "created_at",
      headerName: t("bulk.created"),
      width: 170,
      valueFormatter: (value: string) => dateTime(value, language),
    },
  ];

  return (
    <Box>
      <Typography variant="h1" sx={{ mb: 2 }}>
        {t("bulk.title")}
      </Typography>
      {can.edit(me.role) && (
        <Stack direction="row" sx={{ mb: 2 }}>
          <Button variant="contained" startIcon={<Upload />} onClick={() => setUploading(true)} data-testid="bulk-add">
            {t("bulk.upload")}
          </Button>
        </Stack>
      )}
      <PagedList<BulkUpload>
        label={t("bulk.title")}
        list={list}
        columns={columns}
        emptyText={t("bulk.empty_list")}
        testid="bulk-list"
      />
      {uploading && (
        <BulkUploadDialog
          onClose={(created) => {
            setUploading(false);
            if (created) navigate(PARTNER_PATHS.bulkUpload(created.id));
          }}
        />
      )}
    </Box>
  );
}
