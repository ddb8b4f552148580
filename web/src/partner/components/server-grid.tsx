import Box from "@mui/material/Box";
import LinearProgress from "@mui/material/LinearProgress";
import Typography from "@mui/material/Typography";
import { DataGrid, type DataGridProps, type GridValidRowModel } from "@mui/x-data-grid";
import { deDE, enUS } from "@mui/x-data-grid/locales";
import { useTranslation } from "react-i18next";

/**
 * MUI X Data Grid as the partner area uses it: German (or English) texts, the server pages
 * and sorts (the query decides), the grid grows with its page (at most 100 rows, so every row
 * is rendered: no virtualisation, which also keeps jsdom tests honest). A grid whose columns
 * step aside on a smaller screen (`columnVisibilityModel`) has the column menu to show them again.
 */
export function ServerGrid<R extends GridValidRowModel>({ label, ...props }: DataGridProps<R> & { label: string }) {
  const { t, i18n } = useTranslation();
  const locale = (i18n.language === "en" ? enUS : deDE).components.MuiDataGrid.defaultProps.localeText;
  if (props.loading && (props.rows?.length ?? 0) === 0) {
    // The first page is on its way: a grid without rows is no valid ARIA grid (axe's
    // aria-required-children), so a status says what is happening until the rows are there.
    return (
      <Box role="status" aria-label={label} sx={{ bgcolor: "background.paper", p: 2, borderRadius: 1 }}>
        <Typography variant="body2" sx={{ mb: 1 }}>
          {t("area.loading")}
        </Typography>
        <LinearProgress aria-label={t("area.loading")} />
      </Box>
    );
  }
  return (
    <DataGrid<R>
      autoHeight
      disableVirtualization
      disableColumnFilter
      // The column menu (sort, hide, show columns) only where columns may be hidden by width.
      disableColumnMenu={!props.columnVisibilityModel}
      disableRowSelectionOnClick
      paginationMode="server"
      sortingMode="server"
      sortingOrder={["asc", "desc"]}
      label={label}
      localeText={locale}
      sx={{
        bgcolor: "background.paper",
        "& .MuiDataGrid-columnHeaderTitle": { fontWeight: 600 },
        // Rows as tall as their text (getRowHeight "auto") get the cell padding a fixed row has
        // around its line (MUI's advice for dynamic row height): without it a row is only its
        // text, which sits on the row lines.
        ...(props.getRowHeight && { "& .MuiDataGrid-cell": { py: "15px" } }),
      }}
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

/** A grid's empty state: the text in the middle of the grid. */
export function GridEmpty({ text }: { text: string }) {
  return (
    <Box sx={{ height: "100%", display: "grid", placeItems: "center", p: 2 }} data-testid="list-empty">
      <Typography>{text}</Typography>
    </Box>
  );
}
