import Download from "@mui/icons-material/Download";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import type { GridColDef } from "@mui/x-data-grid";
import { useTranslation } from "react-i18next";

import { type AuditEntry, useAudit } from "../api/admin";
import { can } from "../api/auth";
import { EXPORTS } from "../api/exports";
import { Forbidden, QueryError } from "../components/query-error";
import { GridEmpty, ServerGrid } from "../components/server-grid";
import { dateTime } from "../lib/format";
import { useListQuery } from "../lib/list-query";
import { useStaffMember } from "../lib/staff-context";
import { useAuditTexts } from "../texts/audit";
import { useExportTexts } from "../texts/exports";

/** Who changed what, when (partner admins). */
export function Audit() {
  const me = useStaffMember();
  if (!can.admin(me.role)) return <Forbidden />;
  return <AuditPage />;
}

function AuditPage() {
  const { t, i18n } = useTranslation();
  const { query, set, paginationModel } = useListQuery(50);
  const audit = useAudit(query);
  const x = useExportTexts();
  const labels = useAuditTexts();
  const language = i18n.language;
  const columns: GridColDef<AuditEntry>[] = [
    {
      field: "created_at",
      headerName: t("audit.when"),
      width: 170,
      valueFormatter: (value: string) => dateTime(value, language),
    },
    {
      field: "actor",
      headerName: t("audit.actor"),
      minWidth: 160,
      flex: 1,
      valueFormatter: (value: string | null) => value || t("audit.system"),
    },
    {
      field: "action",
      headerName: t("audit.action"),
      minWidth: 200,
      flex: 1,
      valueFormatter: (value: string) => labels.action(value),
    },
    {
      field: "object_type",
      headerName: t("audit.object"),
      width: 170,
      valueGetter: (_value, row) => labels.object(row.object_type, row.object_id),
    },
    {
      field: "after",
      headerName: t("audit.change"),
      minWidth: 260,
      flex: 2,
      valueGetter: (_value, row) => labels.change(row.before, row.after),
    },
  ];
  return (
    <Box>
      <Typography variant="h1" sx={{ mb: 2 }}>
        {t("audit.title")}
      </Typography>
      <Stack direction={{ xs: "column", sm: "row" }} spacing={1.5} sx={{ mb: 2 }}>
        <FilterSelect
          label={t("audit.filterObject")}
          all={t("audit.allObjects")}
          value={query.get("object_type") ?? ""}
          options={labels.objectOptions}
          onChange={(object_type) => set({ object_type })}
          testid="audit-object"
        />
        <FilterSelect
          label={t("audit.filterAction")}
          all={t("audit.allActions")}
          value={query.get("action") ?? ""}
          options={labels.actionOptions}
          onChange={(action) => set({ action })}
          testid="audit-action"
        />
        {(["csv", "xlsx"] as const).map((kind) => (
          <Button
            key={kind}
            variant="outlined"
            component="a"
            href={EXPORTS.audit(kind, query)}
            download
            startIcon={<Download />}
            sx={{ alignSelf: { sm: "center" }, flexShrink: 0 }}
            data-testid={`audit-export-${kind}`}
          >
            {x(kind === "csv" ? "auditCsv" : "auditXlsx")}
          </Button>
        ))}
      </Stack>
      {audit.isError ? (
        <QueryError error={audit.error} retry={() => void audit.refetch()} />
      ) : (
        <Paper variant="outlined" sx={{ overflow: "hidden" }}>
          <ServerGrid<AuditEntry>
            label={t("audit.title")}
            rows={audit.data?.results ?? []}
            columns={columns.map((column) => ({ ...column, sortable: false }))}
            rowCount={audit.data?.count ?? 0}
            loading={audit.isFetching}
            pageSizeOptions={[25, 50, 100]}
            paginationModel={paginationModel}
            onPaginationModelChange={(model) =>
              set({ page: String(model.page + 1), page_size: String(model.pageSize) })
            }
            getRowHeight={() => "auto"}
            slots={{ noRowsOverlay: () => <GridEmpty text={t("audit.empty")} /> }}
          />
        </Paper>
      )}
    </Box>
  );
}

/** A filter by the log's codes, offered by their names (the server filters by the code). A code
 * in the address that has no name yet stays selectable as it is. */
function FilterSelect({
  label,
  all,
  value,
  options,
  onChange,
  testid,
}: {
  label: string;
  all: string;
  value: string;
  options: { value: string; label: string }[];
  onChange: (value: string) => void;
  testid: string;
}) {
  const shown =
    value && !options.some((option) => option.value === value) ? [...options, { value, label: value }] : options;
  return (
    <TextField
      select
      size="small"
      label={label}
      value={value}
      onChange={(event) => onChange(event.target.value)}
      sx={{ flex: 1, minWidth: 200 }}
      slotProps={{ select: { native: true }, inputLabel: { shrink: true }, htmlInput: { "data-testid": testid } }}
    >
      <option value="">{all}</option>
      {shown.map((option) => (
        <option key={option.value} value={option.value}>
          {option.label}
        </option>
      ))}
    </TextField>
  );
}
