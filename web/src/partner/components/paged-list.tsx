import Paper from "@mui/material/Paper";
import type { GridColDef, GridValidRowModel } from "@mui/x-data-grid";
import type { UseQueryResult } from "@tanstack/react-query";

import { useListQuery } from "../lib/list-query";
import { QueryError } from "./query-error";
import { GridEmpty, ServerGrid } from "./server-grid";

export type Paged<R> = { count: number; results: R[] };

/**
 * A simple server-paged list (page and page size in the URL, no server sorting): the grid in
 * its frame, the empty text, and the query's error with a retry in place of the grid.
 */
export function PagedList<R extends GridValidRowModel>({
  label,
  list,
  columns,
  emptyText,
  testid,
}: {
  label: string;
  list: Pick<UseQueryResult<Paged<R>>, "data" | "error" | "isError" | "isFetching" | "refetch">;
  columns: GridColDef<R>[];
  emptyText: string;
  testid?: string;
}) {
  const { set, paginationModel } = useListQuery();
  if (list.isError) return <QueryError error={list.error} retry={() => void list.refetch()} />;
  return (
    <Paper variant="outlined" sx={{ overflow: "hidden" }} data-testid={testid}>
      <ServerGrid<R>
        label={label}
        rows={list.data?.results ?? []}
        columns={columns.map((column) => ({ ...column, sortable: false }))}
        rowCount={list.data?.count ?? 0}
        loading={list.isFetching && !list.data}
        pageSizeOptions={[10, 25, 50, 100]}
        paginationModel={paginationModel}
        onPaginationModelChange={(model) => set({ page: String(model.page + 1), page_size: String(model.pageSize) })}
        slots={{ noRowsOverlay: () => <GridEmpty text={emptyText} /> }}
      />
    </Paper>
  );
}
