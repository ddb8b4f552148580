import Box from "@mui/material/Box";
import Paper from "@mui/material/Paper";
import Typography from "@mui/material/Typography";
import { useTheme } from "@mui/material/styles";
import { BarChart } from "@mui/x-charts/BarChart";
import { LineChart } from "@mui/x-charts/LineChart";
import { PieChart } from "@mui/x-charts/PieChart";
import type { ReactNode } from "react";
import { useLayoutEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";

import type { Stats } from "../api/admin";
import { count, day, euros } from "../lib/format";
import { statusColour, statusColours } from "../lib/status-colours";
import { KpiTiles } from "./kpi-tiles";

export const FUNNEL = ["flow_started", "code_verified", "scan_accepted", "billing_locked"] as const;
const HEIGHT = 260;
const DONUT_MAX = 240;

/** The funnel's steps that are known (with a sub-partner only the last), each with its share of the first. */
export function funnelSteps(
  funnel: Stats["funnel"],
): { step: (typeof FUNNEL)[number]; value: number; share: number | null }[] {
  const known = FUNNEL.flatMap((step) => {
    const value = funnel[step];
    return value === null ? [] : [{ step, value }];
  });
  const first = known[0]?.value ?? 0;
  return known.map((item) => ({ ...item, share: first > 0 ? item.value / first : null }));
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Every day from the first to the last of the answer, a day without registrations as 0: the
 * server lists only days with some, and one point per listed day drew 03.11. beside 07.11.
 */
export function everyDay(perDay: Stats["per_day"]): Stats["per_day"] {
  if (perDay.length < 2) return perDay;
  const counts = new Map(perDay.map((item) => [item.date, item.count]));
  const last = Date.parse(`${perDay[perDay.length - 1].date}T00:00:00Z`);
  const days: Stats["per_day"] = [];
  for (let time = Date.parse(`${perDay[0].date}T00:00:00Z`); time <= last; time += DAY_MS) {
    const date = new Date(time).toISOString().slice(0, 10);
    days.push({ date, count: counts.get(date) ?? 0 });
  }
  return days;
}

/** The width of an element, followed as it changes (0 before the first layout). */
function useWidth<T extends HTMLElement>(): [React.RefObject<T | null>, number] {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    setWidth(element.getBoundingClientRect().width);
    if (typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(([entry]) => setWidth(entry.contentRect.width));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

/** A chart with its title and, for screen readers, the same figures as a table. */
function ChartCard({
  title,
  table,
  children,
  note,
  wide = false,
  testId,
}: {
  title: string;
  table: [string, string][];
  children: ReactNode;
  note?: string;
  wide?: boolean;
  testId?: string;
}) {
  const { t } = useTranslation();
  return (
    <Paper
      variant="outlined"
      component="section"
      sx={{ position: "relative", p: 2, gridColumn: wide ? { md: "1 / -1" } : undefined, minWidth: 0 }}
      aria-label={title}
      data-testid={testId}
    >
      <Typography variant="h3" component="h2" sx={{ mb: note ? 0.5 : 1 }}>
        {title}
      </Typography>
      {note && (
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
          {note}
        </Typography>
      )}
      <Box sx={{ width: "100%", minWidth: 0 }}>{children}</Box>
      {/* visually hidden in a 1 px box that clips it (as a 100 % wide table its rows reached past
          the card, and the page had to hide what stuck out) */}
      <Box
        sx={{
          position: "absolute",
          width: "1px",
          height: "1px",
          m: "-1px",
          p: 0,
          border: 0,
          overflow: "hidden",
          clip: "rect(0 0 0 0)",
          whiteSpace: "nowrap",
        }}
      >
        <table>
          <caption>{t("dashboard.tableOf", { title })}</caption>
          <tbody>
            {table.map(([label, value]) => (
              <tr key={label}>
                <th scope="row">{label}</th>
                <td>{value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Box>
    </Paper>
  );
}

/** The status donut, as wide as its card allows (never clipped on a phone), with its legend below. */
function StatusDonut({ stats, colours }: { stats: Stats; colours: Record<string, string> }) {
  const { i18n } = useTranslation();
  const theme = useTheme();
  const [ref, width] = useWidth<HTMLDivElement>();
  const size = Math.max(120, Math.min(DONUT_MAX, width || DONUT_MAX));
  const outer = size / 2 - 4;
  return (
    <Box ref={ref} sx={{ width: "100%", minWidth: 0 }}>
      <Box sx={{ display: "flex", justifyContent: "center" }}>
        <PieChart
          width={size}
          height={size}
          margin={{ top: 0, right: 0, bottom: 0, left: 0 }}
          series={[
            {
              data: stats.status_distribution.map((item) => ({
                id: item.status,
                value: item.count,
                label: item.label,
                color: statusColour(colours, item.status, theme),
              })),
              innerRadius: outer * 0.55,
              outerRadius: outer,
              cx: size / 2,
              cy: size / 2,
            },
          ]}
          hideLegend
        />
      </Box>
      <Box
        component="ul"
        data-testid="status-legend"
        sx={{
          listStyle: "none",
          p: 0,
          m: 0,
          mt: 1.5,
          display: "grid",
          gap: 0.5,
          gridTemplateColumns: "repeat(auto-fill, minmax(200px, 1fr))",
        }}
      >
        {stats.status_distribution.map((item) => (
          <Box
            component="li"
            key={item.status}
            data-status={item.status}
            sx={{ display: "flex", alignItems: "center", gap: 1, minWidth: 0 }}
          >
            <Box
              aria-hidden
              data-colour={statusColour(colours, item.status, theme)}
              sx={{
                width: 12,
                height: 12,
                borderRadius: "2px",
                flex: "none",
                bgcolor: statusColour(colours, item.status, theme),
              }}
            />
            <Typography variant="body2" sx={{ minWidth: 0, overflowWrap: "anywhere" }}>
              {item.label}: {count(item.count, i18n.language)}
            </Typography>
          </Box>
        ))}
      </Box>
    </Box>
  );
}

/** The tiles and the charts of the dashboard (MUI X Charts), each status in its one colour. */
export function DashboardCharts({ stats, language }: { stats: Stats; language: string }) {
  const { t } = useTranslation();
  const theme = useTheme();
  const colours = statusColours(theme);
  const total =
    stats.per_day.reduce((sum, item) => sum + item.count, 0) +
    stats.status_distribution.reduce((sum, item) => sum + item.count, 0);
  const steps = funnelSteps(stats.funnel);
  const moved = stats.tiles.some((tile) => Number(tile.value) > 0);
  if (total === 0 && !moved && !steps.some((step) => step.value > 0)) {
    return (
      <Paper variant="outlined" sx={{ p: 3 }} data-testid="stats-empty">
        <Typography>{t("dashboard.empty")}</Typography>
      </Paper>
    );
  }
  const perDay = everyDay(stats.per_day);
  const days = perDay.map((item) => day(item.date, language));
  const percent = (share: number | null) =>
    share === null
      ? ""
      : ` (${new Intl.NumberFormat(language === "en" ? "en-GB" : "de-DE", { style: "percent" }).format(share)})`;
  const funnel = steps.map((item) => ({ ...item, label: t(`dashboard.${item.step}`) }));
  const subPartners = stats.per_sub_partner.map((item) => ({
    ...item,
    name: item.id === null ? t("dashboard.noSubPartner") : item.name,
  }));
  const money = (value: number | null) => euros(value ?? 0, language);
  return (
    <>
      <KpiTiles stats={stats} />
      <Box
        sx={{ display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr", md: "1fr 1fr" } }}
        data-testid="stats-charts"
      >
        <ChartCard
          wide
          title={t("dashboard.perDay")}
          table={perDay.map((item, index) => [days[index] ?? item.date, count(item.count, language)])}
        >
          <LineChart
            height={HEIGHT}
            xAxis={[
              {
                data: days,
                scaleType: "point",
                label: t("dashboard.date"),
                // day and month under the axis ("28.11."; the full date was cut to "28.11…"), the year in the tooltip
                valueFormatter: (value: string, context) => (context.location === "tick" ? value.slice(0, 6) : value),
              },
            ]}
            yAxis={[{ label: t("dashboard.count"), width: 56, tickMinStep: 1 }]}
            series={[
              {
                data: perDay.map((item) => item.count),
                label: t("dashboard.count"),
                color: statusColour(colours, "qa_created", theme),
                area: true,
                showMark: false,
                // straight between the days: a smoothed curve drew peaks between two days' counts
                curve: "linear",
              },
            ]}
            hideLegend
          />
        </ChartCard>
        <ChartCard
          title={t("dashboard.funnel")}
          note={t("dashboard.funnelNote")}
          testId="stats-funnel"
          table={funnel.map((step) => [step.label, `${count(step.value, language)}${percent(step.share)}`])}
        >
          <BarChart
            height={HEIGHT}
            layout="horizontal"
            // as wide as its longest step's name ("Zahlungsdaten abgeschlossen" was cut at 130 px)
            yAxis={[{ data: funnel.map((step) => step.label), scaleType: "band", width: "auto" }]}
            xAxis={[{ label: t("dashboard.people"), tickMinStep: 1 }]}
            series={[
              {
                data: funnel.map((step) => step.value),
                label: t("dashboard.people"),
                color: theme.palette.primary.main,
                valueFormatter: (value: number | null) => count(value ?? 0, language),
                barLabel: "value",
              },
            ]}
            hideLegend
          />
        </ChartCard>
        <ChartCard
          title={t("dashboard.statuses")}
          testId="stats-statuses"
          table={stats.status_distribution.map((item) => [item.label, count(item.count, language)])}
        >
          <StatusDonut stats={stats} colours={colours} />
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
            xAxis={[
              {
                data: [t("dashboard.owed"), t("dashboard.paid")],
                scaleType: "band",
                colorMap: {
                  type: "ordinal",
                  values: [t("dashboard.owed"), t("dashboard.paid")],
                  colors: [statusColour(colours, "qa_to_pay", theme), statusColour(colours, "qa_paid", theme)],
                },
              },
            ]}
            yAxis={[{ valueFormatter: money, width: 96, label: t("dashboard.amountAxis") }]}
            series={[
              {
                data: [Number(stats.payouts.owed_gross), Number(stats.payouts.paid_gross)],
                label: t("dashboard.amount"),
                valueFormatter: money,
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
            xAxis={[
              { data: subPartners.map((item) => item.name), scaleType: "band", label: t("dashboard.subPartner") },
            ]}
            yAxis={[{ label: t("dashboard.count"), width: 56, tickMinStep: 1 }]}
            series={[
              {
                data: subPartners.map((item) => item.count),
                label: t("dashboard.count"),
                color: theme.palette.secondary.main,
              },
            ]}
            hideLegend
          />
        </ChartCard>
      </Box>
    </>
  );
}
