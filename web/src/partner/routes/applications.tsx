import Download from "@mui/icons-material/Download";
import Payments from "@mui/icons-material/Payments";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Link from "@mui/material/Link";
import MenuItem from "@mui/material/MenuItem";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import type { GridColDef, GridPaginationModel, GridRowSelectionModel, GridSortModel } from "@mui/x-data-grid";
import { type FormEvent, useEffect, useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate, useSearchParams } from "react-router";

import { isIsoDay } from "@/shared/lib/german-date";
import { DateField } from "@/shared/ui/date-field";

import {
  type ApplicationRow,
  exportUrl,
  type FilterOptions,
  useApplications,
  useFilterOptions,
} from "../api/applications";
import { can } from "../api/auth";
import { EXPORTS } from "../api/exports";
import { ApplicationDrawer } from "../components/application-drawer";
import { BatchCreateDialog } from "../components/batch-create-dialog";
import { MoveDialog } from "../components/move-dialog";
import { QueryError } from "../components/query-error";
import { GridEmpty, ServerGrid } from "../components/server-grid";
import { dateTime, euros } from "../lib/format";
import {
  hasListParams,
  type ListParam,
  listQuery,
  PAGE_SIZES,
  storedFilter,
  storeFilter,
  withFilter,
} from "../lib/filters";
import { useResponsiveColumns } from "../lib/grid-columns";
import { PARTNER_PATHS } from "../lib/paths";
import { selectedRowIds } from "../lib/selection";
import { useStaffMember } from "../lib/staff-context";
import { useExportTexts } from "../texts/exports";

/** Grid column → the API's ordering name. */
const SORTABLE: Record<string, string> = {
  sequence: "sequence",
  created_at: "created_at",
  status_label: "status",
  legislation_year: "legislation_year",
  owner_name: "last_name",
};

/** Entered and left only by settlement batches (quota.catalogue.MONEY_STATES). */
const MONEY_STATES = new Set(["qa_to_settle", "qa_paid", "qa_payment_failure"]);

const EMPTY_SELECTION: GridRowSelectionModel = { type: "include", ids: new Set() };

/**
 * The applications: server-side paging, order and filters in the URL (and `filter-values`),
 * bulk moves, a settlement batch of the selected rows (partner admins), CSV, detail.
 */
export function Applications() {
  const { t, i18n } = useTranslation();
  const x = useExportTexts();
  const me = useStaffMember();
  const [search, setSearch] = useSearchParams();
  const [selection, setSelection] = useState<GridRowSelectionModel>(EMPTY_SELECTION);
  const [moving, setMoving] = useState(false);
  const [settling, setSettling] = useState(false);
  const navigate = useNavigate();

  // A bare /partner/applications opens the list as it was left (once, when the screen opens).
  const restore = useRef(!hasListParams(search) && storedFilter().toString() !== "");
  const restoring = restore.current && !hasListParams(search);
  useEffect(() => {
    if (!restore.current) return;
    const next = storedFilter();
    const open = search.get("open");
    if (open) next.set("open", open);
    setSearch(next, { replace: true });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only when the screen opens
  }, []);

  const query = useMemo(() => listQuery(search), [search]);
  useEffect(() => {
    if (!restoring) storeFilter(query);
  }, [query, restoring]);

  const list = useApplications(query);
  const options = useFilterOptions();
  const openId = Number(search.get("open")) || null;

  const update = (next: URLSearchParams) => {
    const open = search.get("open");
    if (open) next.set("open", open);
    setSearch(next);
  };
  const setOpen = (id: number | null) => {
    const next = new URLSearchParams(search);
    if (id === null) next.delete("open");
    else next.set("open", String(id));
    setSearch(next);
  };

  const ordering = query.get("ordering") ?? "-created_at";
  const sortField = Object.entries(SORTABLE).find(([, name]) => name === ordering.replace(/^-/, ""))?.[0];
  const sortModel: GridSortModel = sortField
    ? [{ field: sortField, sort: ordering.startsWith("-") ? "desc" : "asc" }]
    : [];
  const paginationModel: GridPaginationModel = {
    page: Math.max(Number(query.get("page")) - 1, 0),
    pageSize: Number(query.get("page_size")),
  };

  const language = i18n.language;
  // Eleven columns do not fit beside the menu on a 1440 px screen (about 1150 px for the grid):
  // the vehicle class and the single deal step aside below 1700 px, the sub-partner and the
  // creation time below 1400 px, the VIN and the year on a phone. The column menu shows them again.
  const visibility = useResponsiveColumns({
    wide: ["vehicle_class", "single_deal"],
    desktop: ["sub_partner", "created_at"],
    phone: ["vin", "legislation_year"],
  });
  const baseColumns: GridColDef<ApplicationRow>[] = [
    {
      field: "sequence",
      headerName: t("applications.sequence"),
      width: 105,
      hideable: false,
      renderCell: ({ row }) => (
        <Link
          component="button"
          type="button"
          onClick={() => setOpen(row.id)}
          aria-label={t("applications.open", { sequence: row.sequence })}
          data-testid={`open-${row.id}`}
        >
          {row.sequence}
        </Link>
      ),
    },
    {
      field: "created_at",
      headerName: t("applications.created"),
      width: 150,
      valueFormatter: (value: string) => dateTime(value, language),
    },
    { field: "status_label", headerName: t("applications.status"), minWidth: 150, flex: 1 },
    { field: "legislation_year", headerName: t("applications.year"), width: 80 },
    { field: "vehicle_class", headerName: t("applications.vehicleClass"), width: 90, sortable: false },
    { field: "owner_name", headerName: t("applications.owner"), minWidth: 140, flex: 1 },
    { field: "vin", headerName: t("applications.vin"), width: 180, sortable: false },
    {
      field: "sub_partner",
      headerName: t("applications.subPartner"),
      width: 130,
      sortable: false,
      valueGetter: (_value, row) => row.sub_partner?.name ?? "",
    },
    {
      field: "single_deal",
      headerName: t("applications.singleDeal"),
      width: 130,
      sortable: false,
      valueGetter: (_value, row) => row.single_deal?.name ?? "",
    },
    {
      field: "fee_gross",
      headerName: t("applications.fee"),
      width: 120,
      sortable: false,
      align: "right",
      headerAlign: "right",
      valueFormatter: (value: string | null) => euros(value, language),
    },
  ];
  const columns = baseColumns.map((column) => ({ ...column, sortable: column.sortable ?? column.field in SORTABLE }));

  const rows = list.data?.results ?? [];
  const selectedIds = selectedRowIds(
    selection,
    rows.map((row) => row.id),
  );
  const labels = Object.fromEntries(rows.map((row) => [row.id, String(row.sequence)]));
  // Payout statuses are the settlement batches' alone (issue 46): the server refuses them here.
  const targets = (options.data?.statuses ?? [])
    .filter((status) => !MONEY_STATES.has(status.value))
    .map((status) => ({
      status: status.value,
      status_label: status.label,
    }));

  return (
    <Box>
      <Typography variant="h1" sx={{ mb: 2 }}>
        {t("applications.title")}
      </Typography>
      <FilterBar query={query} options={options.data} onChange={update} />
      <Stack direction={{ xs: "column", sm: "row" }} spacing={1} sx={{ my: 2, alignItems: { sm: "center" } }}>
        {can.move(me.role) && (
          <Button
            variant="contained"
            disabled={selectedIds.length === 0 || targets.length === 0}
            onClick={() => setMoving(true)}
            data-testid="bulk-move"
          >
            {t("applications.move", { count: selectedIds.length })}
          </Button>
        )}
        {can.admin(me.role) && (
          <Button
            variant="outlined"
            startIcon={<Payments />}
            disabled={selectedIds.length === 0}
            onClick={() => setSettling(true)}
            data-testid="batch-from-selection"
          >
            {t("settlement.fromSelection", { count: selectedIds.length })}
          </Button>
        )}
        {can.export(me.role) && (
          <Button
            variant="outlined"
            component="a"
            href={exportUrl(query)}
            download
            startIcon={<Download />}
            data-testid="csv-download"
          >
            {t("applications.csv")}
          </Button>
        )}
        {can.export(me.role) && (
          <Button
            variant="outlined"
            component="a"
            href={EXPORTS.applicationsXlsx(query)}
            download
            startIcon={<Download />}
            data-testid="xlsx-download"
          >
            {x("applicationsXlsx")}
          </Button>
        )}
        <Box sx={{ flex: 1 }} />
        {list.data && (
          <Typography
            variant="body2"
            sx={{ color: "text.secondary" }}
            data-testid="application-count"
            aria-live="polite"
          >
            {list.data.count_exact
              ? list.data.count.toLocaleString(language)
              : t("applications.countAbout", { n: list.data.count.toLocaleString(language) })}
          </Typography>
        )}
      </Stack>
      {list.isError ? (
        <QueryError error={list.error} retry={() => void list.refetch()} />
      ) : (
        <Paper variant="outlined" sx={{ overflow: "hidden" }}>
          <ServerGrid<ApplicationRow>
            label={t("applications.list")}
            rows={rows}
            columns={columns}
            columnVisibilityModel={visibility.model}
            onColumnVisibilityModelChange={visibility.onChange}
            rowCount={list.data?.count ?? 0}
            loading={list.isFetching}
            pageSizeOptions={[...PAGE_SIZES]}
            paginationModel={paginationModel}
            onPaginationModelChange={(model) => {
              let next = withFilter(query, "page", [String(model.page + 1)]);
              if (model.pageSize !== paginationModel.pageSize)
                next = withFilter(withFilter(next, "page_size", [String(model.pageSize)]), "page", ["1"]);
              update(next);
            }}
            sortModel={sortModel}
            onSortModelChange={(model) => {
              const first = model[0];
              const name = first ? SORTABLE[first.field] : undefined;
              update(
                withFilter(query, "ordering", [name ? `${first?.sort === "desc" ? "-" : ""}${name}` : "-created_at"]),
              );
            }}
            checkboxSelection={can.move(me.role)}
            keepNonExistentRowsSelected
            // "Select all" selects the loaded page's rows by their ids: an `exclude` model would
            // also stand for rows of other pages the grid has never seen, which no move can name.
            disableRowSelectionExcludeModel
            rowSelectionModel={selection}
            onRowSelectionModelChange={setSelection}
            slots={{ noRowsOverlay: () => <GridEmpty text={t("applications.empty")} /> }}
          />
        </Paper>
      )}
      <ApplicationDrawer id={openId} onClose={() => setOpen(null)} />
      {settling && (
        <BatchCreateDialog
          ids={selectedIds}
          onClose={(created) => {
            setSettling(false);
            if (!created) return;
            setSelection(EMPTY_SELECTION);
            navigate(PARTNER_PATHS.settlementBatch(created.id), { state: { skipped: created.skipped } });
          }}
        />
      )}
      {moving && (
        <MoveDialog
          open
          ids={selectedIds}
          labels={labels}
          targets={targets}
          onClose={(moved) => {
            setMoving(false);
            if (moved) setSelection(EMPTY_SELECTION);
          }}
        />
      )}
    </Box>
  );
}

/** The filters above the grid; every change goes into the URL (page 1 again). */
function FilterBar({
  query,
  options,
  onChange,
}: {
  query: URLSearchParams;
  options?: FilterOptions;
  onChange: (next: URLSearchParams) => void;
}) {
  const { t } = useTranslation();
  const [text, setText] = useState(query.get("q") ?? "");
  useEffect(() => setText(query.get("q") ?? ""), [query]);
  const set = (name: ListParam, values: string[]) => onChange(withFilter(query, name, values));
  const submitText = (event: FormEvent) => {
    event.preventDefault();
    set("q", [text]);
  };
  const single = (name: ListParam, label: string, items: { value: string; label: string }[], testid: string) => (
    <TextField
      select
      size="small"
      label={label}
      value={query.get(name) ?? ""}
      onChange={(event) => set(name, [event.target.value])}
      sx={{ minWidth: 140 }}
      slotProps={{ select: { SelectDisplayProps: { "data-testid": testid } as object } }}
    >
      <MenuItem value="">{t("applications.any")}</MenuItem>
      {items.map((item) => (
        <MenuItem key={item.value} value={item.value}>
          {item.label}
        </MenuItem>
      ))}
    </TextField>
  );
  const statuses = query.getAll("status");
  const reset = () => {
    const next = new URLSearchParams();
    for (const name of ["page_size", "ordering"] as const) {
      const value = query.get(name);
      if (value) next.set(name, value);
    }
    next.set("page", "1");
    onChange(next);
  };
  return (
    <Box component="section" aria-label={t("applications.filters")} data-testid="filter-bar">
      <Box component="form" role="search" onSubmit={submitText} sx={{ mb: 1.5 }}>
        <TextField
          size="small"
          fullWidth
          label={t("applications.search")}
          value={text}
          onChange={(event) => setText(event.target.value)}
          onBlur={() => text !== (query.get("q") ?? "") && set("q", [text])}
          slotProps={{ htmlInput: { "data-testid": "filter-q", type: "search" } }}
        />
      </Box>
      <Stack direction="row" sx={{ flexWrap: "wrap", gap: 1.5 }}>
        <TextField
          select
          size="small"
          label={t("applications.status")}
          value={statuses}
          onChange={(event) => {
            const value = event.target.value as unknown as string[] | string;
            set("status", typeof value === "string" ? value.split(",") : value);
          }}
          sx={{ minWidth: 200, maxWidth: 360 }}
          slotProps={{
            select: {
              multiple: true,
              renderValue: (selected) =>
                (selected as string[])
                  .map((value) => options?.statuses.find((status) => status.value === value)?.label ?? value)
                  .join(", "),
              SelectDisplayProps: { "data-testid": "filter-status" } as object,
            },
          }}
        >
          {(options?.statuses ?? []).map((status) => (
            <MenuItem key={status.value} value={status.value}>
              {status.label}
            </MenuItem>
          ))}
        </TextField>
        {single(
          "legislation_year",
          t("applications.year"),
          (options?.years ?? []).map((year) => ({ value: String(year), label: String(year) })),
          "filter-year",
        )}
        {single(
          "vehicle_class",
          t("applications.vehicleClass"),
          (options?.vehicle_classes ?? []).map((value) => ({ value, label: value })),
          "filter-class",
        )}
        {single(
          "sub_partner",
          t("applications.subPartner"),
          (options?.sub_partners ?? []).map((item) => ({ value: String(item.id), label: item.name })),
          "filter-sub-partner",
        )}
        {single(
          "single_deal",
          t("applications.singleDeal"),
          (options?.single_deals ?? []).map((item) => ({ value: String(item.id), label: item.name })),
          "filter-single-deal",
        )}
        <DateField
          size="small"
          sx={{ width: 170 }}
          label={t("applications.from")}
          value={query.get("created_from") ?? ""}
          onChange={(day) => (day === "" || isIsoDay(day)) && set("created_from", [day])}
          placeholder={t("form.datePlaceholder")}
          invalidText={t("form.dateFormat")}
          testId="filter-from"
        />
        <DateField
          size="small"
          sx={{ width: 170 }}
          label={t("applications.to")}
          value={query.get("created_to") ?? ""}
          onChange={(day) => (day === "" || isIsoDay(day)) && set("created_to", [day])}
          placeholder={t("form.datePlaceholder")}
          invalidText={t("form.dateFormat")}
          testId="filter-to"
        />
        <Button onClick={reset} data-testid="filter-reset">
          {t("applications.reset")}
        </Button>
      </Stack>
    </Box>
  );
}
