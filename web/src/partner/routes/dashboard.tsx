import Box from "@mui/material/Box";
import MenuItem from "@mui/material/MenuItem";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { useTheme } from "@mui/material/styles";
import { BarChart } from "@mui/x-charts/BarChart";
import { LineChart } from "@mui/x-charts/LineChart";
import { PieChart } from "@mui/x-charts/PieChart";
import type { ReactNode } from "react";
import { useMemo } from "react";
import { useTranslation } from "react-i18next";
import { useSearchParams } from "react-router";

import { isIsoDay } from "@/shared/lib/german-date";
import { DateField } from "@/shared/ui/date-field";

import { useFilterOptions } from "../api/applications";
import { type Stats, useStats } from "../api/admin";
import { Loading } from "../components/layout";
import { QueryError } from "../components/query-error";
import { count, day, euros } from "../lib/format";

const FUNNEL = ["flow_started", "code_verified", "scan_accepted", "billing_locked"] as const;
const HEIGHT = 260;

/** A chart with its title and, for screen readers, the same figures as a table. */
function ChartCard({
  title,
  table,
  children,
  wide = false,
}: {
  title: string;
  table: [string, string][];
  children: ReactNode;
  wide?: boolean;
}) {
  const { t } = useTranslation();
  return (
    <Paper
      variant="outlined"
      component="section"
      sx={{ position: "relative", p: 2, gridColumn: wide ? { md: "1 / -1" } : undefined, minWidth: 0 }}
      aria-label={title}
    >
      <Typography variant="h3" component="h2" sx={{ mb: 1 }}>
        {title}
      </Typography>
      <Box sx={{ width: "100%", minWidth: 0 }}>{children}</Box>
      <Box
        component="table"
        sx={{
          position: "absolute",
          width: 1,
          height: 1,
          overflow: "hidden",
          clip: "rect(0 0 0 0)",
          whiteSpace: "nowrap",
        }}
      >
        <caption>{t("dashboard.tableOf", { title })}</caption>
        <tbody>
          {table.map(([label, value]) => (
            <tr key={label}>
              <th scope="row">{label}</th>
              <td>{value}</td>
            </tr>
          ))}
        </tbody>
      </Box>
    </Paper>
  );
}

/** The partner's figures: registrations per day, funnel, statuses, payouts, sub-partners (MUI X Charts). */
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

  return (
    // The charts size themselves to their card; a few pixels of axis labels must not scroll a phone sideways.
    <Box sx={{ minWidth: 0, overflowX: "hidden" }}>
      <Typography variant="h1" sx={{ mb: 2 }}>
        {t("dashboard.title")}
      </Typography>
      <Stack
        direction="row"
        sx={{ flexWrap: "wrap", gap: 1.5, mb: 2 }}
        component="section"
        aria-label={t("applications.filters")}
      >
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
      {stats.data && <Charts stats={stats.data} language={i18n.language} />}
    </Box>
  );
}

function Charts({ stats, language }: { stats: Stats; language: string }) {
  const { t } = useTranslation();
  const theme = useTheme();
  const colors = [
    theme.palette.primary.main,
    theme.palette.secondary.main,
    theme.palette.success.main,
    theme.palette.warning.main,
    theme.palette.info.main,
    theme.palette.error.main,
    theme.palette.grey[600],
  ];
  const total =
    stats.per_day.reduce((sum, item) => sum + item.count, 0) +
    stats.status_distribution.reduce((sum, item) => sum + item.count, 0);
  if (total === 0 && stats.funnel.flow_started === 0) {
    return (
      <Paper variant="outlined" sx={{ p: 3 }} data-testid="stats-empty">
        <Typography>{t("dashboard.empty")}</Typography>
      </Paper>
    );
  }
  const days = stats.per_day.map((item) => day(item.date, language));
  const funnel = FUNNEL.map((step) => ({ label: t(`dashboard.${step}`), value: stats.funnel[step] }));
  const subPartners = stats.per_sub_partner.map((item) => ({
    ...item,
    name: item.id === null ? t("dashboard.noSubPartner") : item.name,
  }));
  return (
    <Box sx={{ display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr", md: "1fr 1fr" } }} data-testid="stats-charts">
      <ChartCard
        wide
        title={t("dashboard.perDay")}
        table={stats.per_day.map((item, index) => [days[index] ?? item.date, count(item.count, language)])}
      >
        <LineChart
          height={HEIGHT}
          xAxis={[{ data: days, scaleType: "point" }]}
          series={[
            {
              data: stats.per_day.map((item) => item.count),
              label: t("dashboard.count"),
              color: colors[0],
              area: true,
              showMark: false,
            },
          ]}
          hideLegend
        />
      </ChartCard>
      <ChartCard title={t("dashboard.funnel")} table={funnel.map((step) => [step.label, count(step.value, language)])}>
        <BarChart
          height={HEIGHT}
          layout="horizontal"
          yAxis={[{ data: funnel.map((step) => step.label), scaleType: "band", width: 150 }]}
          series={[{ data: funnel.map((step) => step.value), label: t("dashboard.count"), color: colors[0] }]}
          hideLegend
        />
      </ChartCard>
      <ChartCard
        title={t("dashboard.statuses")}
        table={stats.status_distribution.map((item) => [item.label, count(item.count, language)])}
      >
        <PieChart
          height={HEIGHT}
          series={[
            {
              data: stats.status_distribution.map((item, index) => ({
                id: item.status,
                value: item.count,
                label: item.label,
                color: colors[index % colors.length],
              })),
              innerRadius: 50,
            },
          ]}
        />
      </ChartCard>
      <ChartCard
        title={t("dashboard.payouts")}
        table={[
          [t("dashboard.owed"), euros(stats.payouts.owed_gross, language)],
          [t("dashboard.paid"), euros(stats.payouts.paid_gross, language)],
        ]}
      >
        <BarChart
          height={HEIGHT}
          xAxis={[{ data: [t("dashboard.owed"), t("dashboard.paid")], scaleType: "band" }]}
          yAxis={[{ valueFormatter: (value: number | null) => euros(value ?? 0, language), width: 90 }]}
          series={[
            {
              data: [Number(stats.payouts.owed_gross), Number(stats.payouts.paid_gross)],
              label: t("dashboard.amount"),
              color: colors[1],
              valueFormatter: (value: number | null) => euros(value ?? 0, language),
            },
          ]}
          hideLegend
        />
      </ChartCard>
      <ChartCard
        title={t("dashboard.perSubPartner")}
        table={subPartners.map((item) => [
          item.name,
          `${count(item.count, language)} · ${euros(item.fee_share_gross, language)}`,
        ])}
      >
        <BarChart
          height={HEIGHT}
          xAxis={[{ data: subPartners.map((item) => item.name), scaleType: "band" }]}
          series={[{ data: subPartners.map((item) => item.count), label: t("dashboard.count"), color: colors[2] }]}
          hideLegend
        />
      </ChartCard>
    </Box>
  );
}
