import LinearProgress from "@mui/material/LinearProgress";
import { DataGrid, type DataGridProps, type GridValidRowModel } from "@mui/x-data-grid";
import { deDE, enUS } from "@mui/x-data-grid/locales";
import { useTranslation } from "react-i18next";

/**
 * MUI X Data Grid as the partner area uses it: German (or English) texts, the server pages
 * and sorts (the query decides), the grid grows with its page (at most 100 rows, so every row
 * is rendered: no virtualisation, which also keeps jsdom tests honest).
 */
export function ServerGrid<R extends GridValidRowModel>({ label, ...props }: DataGridProps<R> & { label: string }) {
  const { t, i18n } = useTranslation();
  const locale = (i18n.language === "en" ? enUS : deDE).components.MuiDataGrid.defaultProps.localeText;
  return (
    <DataGrid<R>
      autoHeight
      disableVirtualization
      disableColumnFilter
      disableColumnMenu
      disableRowSelectionOnClick
      paginationMode="server"
      sortingMode="server"
      sortingOrder={["asc", "desc"]}
      label={label}
      localeText={locale}
      sx={{ bgcolor: "background.paper", "& .MuiDataGrid-columnHeaderTitle": { fontWeight: 600 } }}
      {...props}
      slots={{
        loadingOverlay: () => (
          <LinearProgress aria-label={t("area.loading")} sx={{ position: "absolute", top: 0, left: 0, right: 0 }} />
        ),
        ...props.slots,
      }}
    />
  );
}
