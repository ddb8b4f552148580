import Box from "@mui/material/Box";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import type { GridColDef } from "@mui/x-data-grid";
import { useTranslation } from "react-i18next";

import { type AuditEntry, useAudit } from "../api/admin";
import { can } from "../api/auth";
import { ListSearch } from "../components/list-search";
import { Forbidden, QueryError } from "../components/query-error";
import { GridEmpty, ServerGrid } from "../components/server-grid";
import { dateTime } from "../lib/format";
import { useListQuery } from "../lib/list-query";
import { useStaffMember } from "../lib/staff-context";

/** A change as "field: before → after" for the fields that differ. */
export function describeChange(before: unknown, after: unknown): string {
  const old = (before && typeof before === "object" ? before : {}) as Record<string, unknown>;
  const now = (after && typeof after === "object" ? after : {}) as Record<string, unknown>;
  const show = (value: unknown) =>
    value === undefined || value === null || value === ""
      ? "–"
      : typeof value === "object"
        ? JSON.stringify(value)
        : String(value);
  return [...new Set([...Object.keys(old), ...Object.keys(now)])]
    .filter((key) => JSON.stringify(old[key]) !== JSON.stringify(now[key]))
    .map((key) => `${key}: ${show(old[key])} → ${show(now[key])}`)
    .join("; ");
}

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
    { field: "action", headerName: t("audit.action"), minWidth: 160, flex: 1 },
    {
      field: "object_type",
      headerName: t("audit.object"),
      width: 170,
      valueGetter: (_value, row) => `${row.object_type}${row.object_id ? ` #${row.object_id}` : ""}`,
    },
    {
      field: "after",
      headerName: t("audit.change"),
      minWidth: 260,
      flex: 2,
      valueGetter: (_value, row) => describeChange(row.before, row.after),
    },
  ];
  return (
    <Box>
      <Typography variant="h1" sx={{ mb: 2 }}>
        {t("audit.title")}
      </Typography>
      <Stack direction={{ xs: "column", sm: "row" }} spacing={1.5} sx={{ mb: 2 }}>
        <ListSearch
          label={t("audit.filterObject")}
          value={query.get("object_type") ?? ""}
          onSearch={(object_type) => set({ object_type })}
          testid="audit-object"
        />
        <ListSearch
          label={t("audit.filterAction")}
          value={query.get("action") ?? ""}
          onSearch={(action) => set({ action })}
          testid="audit-action"
        />
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
