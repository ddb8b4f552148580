import Add from "@mui/icons-material/Add";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import type { GridColDef } from "@mui/x-data-grid";
import type { UseMutationResult, UseQueryResult } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";

import { type ResponsiveColumns, useResponsiveColumns } from "../lib/grid-columns";
import { useListQuery } from "../lib/list-query";
import { ListSearch } from "./list-search";
import { QueryError } from "./query-error";
import { GridEmpty, ServerGrid } from "./server-grid";

type Row = { id: number; name: string; is_active: boolean };

type Props<R extends Row> = {
  /** The screen's texts: `{prefix}.title`, `.search`, `.add`, `.edit`, `.empty`. */
  prefix: "subPartners" | "singleDeals";
  /** Test ids: `{testid}-add` and `{testid}-form` (the dialog's own). */
  testid: string;
  columns: GridColDef<R>[];
  /** Columns that step aside on a smaller screen (the column menu shows them again). */
  responsive: ResponsiveColumns;
  list: UseQueryResult<{ count: number; results: R[] }>;
  deactivate: UseMutationResult<void, Error, number>;
  editable: boolean;
  onAdd: () => void;
  onEdit: (row: R) => void;
  /** The open editor, if any. */
  dialog: ReactNode;
};

/**
 * The page of sub-partners or single deals: title, search, "add", the server-paged grid with
 * edit and deactivate per row (for roles that may write), and the editor dialog.
 */
export function OperationList<R extends Row>({
  prefix,
  testid,
  columns,
  responsive,
  list,
  deactivate,
  editable,
  onAdd,
  onEdit,
  dialog,
}: Props<R>) {
  const { t } = useTranslation();
  const { query, set, paginationModel } = useListQuery();
  const visibility = useResponsiveColumns(responsive);
  const actions: GridColDef<R>[] = editable
    ? [
        {
          field: "actions",
          headerName: "",
          width: 215,
          sortable: false,
          hideable: false,
          renderCell: ({ row }) => (
            <Stack direction="row" spacing={1} sx={{ alignItems: "center", height: "100%" }}>
              <Button
                size="small"
                onClick={() => onEdit(row)}
                data-testid={`edit-${row.id}`}
                aria-label={`${t(`${prefix}.edit`)}: ${row.name}`}
              >
                {t("form.edit")}
              </Button>
              {row.is_active && (
                <Button
                  size="small"
                  color="error"
                  onClick={() => deactivate.mutate(row.id)}
                  data-testid={`deactivate-${row.id}`}
                  aria-label={`${t("form.deactivate")}: ${row.name}`}
                >
                  {t("form.deactivate")}
                </Button>
              )}
            </Stack>
          ),
        },
      ]
    : [];

  return (
    <Box>
      <Typography variant="h1" sx={{ mb: 2 }}>
        {t(`${prefix}.title`)}
      </Typography>
      <Stack direction={{ xs: "column", sm: "row" }} spacing={1.5} sx={{ mb: 2, alignItems: { sm: "center" } }}>
        <ListSearch label={t(`${prefix}.search`)} value={query.get("q") ?? ""} onSearch={(q) => set({ q })} />
        {editable && (
          <Button variant="contained" startIcon={<Add />} onClick={onAdd} data-testid={`${testid}-add`}>
            {t(`${prefix}.add`)}
          </Button>
        )}
      </Stack>
      {deactivate.isError && <QueryError error={deactivate.error} />}
      {list.isError ? (
        <QueryError error={list.error} retry={() => void list.refetch()} />
      ) : (
        <Paper variant="outlined" sx={{ overflow: "hidden" }}>
          <ServerGrid<R>
            label={t(`${prefix}.title`)}
            rows={list.data?.results ?? []}
            columns={[...columns, ...actions].map((column) => ({ ...column, sortable: false }))}
            columnVisibilityModel={visibility.model}
            onColumnVisibilityModelChange={visibility.onChange}
            rowCount={list.data?.count ?? 0}
            loading={list.isFetching}
            pageSizeOptions={[10, 25, 50, 100]}
            paginationModel={paginationModel}
            onPaginationModelChange={(model) =>
              set({ page: String(model.page + 1), page_size: String(model.pageSize) })
            }
            slots={{ noRowsOverlay: () => <GridEmpty text={t(`${prefix}.empty`)} /> }}
          />
        </Paper>
      )}
      {dialog}
    </Box>
  );
}
