import Box from "@mui/material/Box";
import MenuItem from "@mui/material/MenuItem";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { useMemo } from "react";
import { useTranslation } from "react-i18next";
import { useSearchParams } from "react-router";

import { isIsoDay } from "@/shared/lib/german-date";
import { DateField } from "@/shared/ui/date-field";

import { useFilterOptions } from "../api/applications";
import { useStats } from "../api/admin";
import { DashboardCharts } from "../components/dashboard-charts";
import { Loading } from "../components/layout";
import { PeriodPresets } from "../components/period-presets";
import { PriceMissingAlert } from "../components/price-missing-alert";
import { QueryError } from "../components/query-error";

/** The partner's figures: key figures against the previous period, registrations per day, funnel,
 * statuses, payouts, sub-partners (components/dashboard-charts.tsx). */
export function Dashboard() {
  const { t, i18n } = useTranslation();
  const [search, setSearch] = useSearchParams();
  const query = useMemo(() => {
    const next = new URLSearchParams();
    for (const name of ["created_from", "created_to", "sub_partner"]) {
      const value = search.get(name);
      if (value) next.set(name, value);
    }
    return next;
  }, [search]);
  const stats = useStats(query);
  const options = useFilterOptions();
  const set = (name: string, value: string) => {
    const next = new URLSearchParams(query);
    if (value) next.set(name, value);
    else next.delete(name);
    setSearch(next, { replace: true });
  };
  const setRange = (range: { from: string; to: string } | null) => {
    const next = new URLSearchParams(query);
    next.delete("created_from");
    next.delete("created_to");
    if (range) {
      next.set("created_from", range.from);
      next.set("created_to", range.to);
    }
    setSearch(next, { replace: true });
  };

  return (
    // The charts size themselves to their card; a few pixels of axis labels must not scroll a phone sideways.
    <Box sx={{ minWidth: 0, overflowX: "hidden" }}>
      <Typography variant="h1" sx={{ mb: 2 }}>
        {t("dashboard.title")}
      </Typography>
      <PriceMissingAlert />
      <Stack
        direction="row"
        sx={{ flexWrap: "wrap", gap: 1.5, mb: 2 }}
        component="section"
        aria-label={t("applications.filters")}
      >
        <PeriodPresets from={query.get("created_from") ?? ""} to={query.get("created_to") ?? ""} onChange={setRange} />
        <DateField
          size="small"
          sx={{ width: 170 }}
          label={t("dashboard.from")}
          value={query.get("created_from") ?? ""}
          onChange={(day) => (day === "" || isIsoDay(day)) && set("created_from", day)}
          placeholder={t("form.datePlaceholder")}
          invalidText={t("form.dateFormat")}
          testId="stats-from"
        />
        <DateField
          size="small"
          sx={{ width: 170 }}
          label={t("dashboard.to")}
          value={query.get("created_to") ?? ""}
          onChange={(day) => (day === "" || isIsoDay(day)) && set("created_to", day)}
          placeholder={t("form.datePlaceholder")}
          invalidText={t("form.dateFormat")}
          testId="stats-to"
        />
        <TextField
          select
          size="small"
          label={t("dashboard.subPartner")}
          value={query.get("sub_partner") ?? ""}
          onChange={(event) => set("sub_partner", event.target.value)}
          sx={{ minWidth: 180 }}
          slotProps={{ select: { SelectDisplayProps: { "data-testid": "stats-sub-partner" } as object } }}
        >
          <MenuItem value="">{t("dashboard.all")}</MenuItem>
          {(options.data?.sub_partners ?? []).map((item) => (
            <MenuItem key={item.id} value={String(item.id)}>
              {item.name}
            </MenuItem>
          ))}
        </TextField>
      </Stack>
      {stats.isPending && <Loading />}
      {stats.isError && <QueryError error={stats.error} retry={() => void stats.refetch()} />}
      {stats.data && <DashboardCharts stats={stats.data} language={i18n.language} />}
    </Box>
  );
}
