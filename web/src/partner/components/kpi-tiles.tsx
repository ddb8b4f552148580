import Box from "@mui/material/Box";
import Paper from "@mui/material/Paper";
import Typography from "@mui/material/Typography";
import { useTheme } from "@mui/material/styles";
import { useTranslation } from "react-i18next";

import type { Stats, StatsTile } from "../api/admin";
import { count, day, euros } from "../lib/format";
import { statusColour, statusColours } from "../lib/status-colours";

export type Change = { sign: "up" | "down" | "same"; text: string };

/**
 * A tile's change against the previous period: the signed difference and, where the previous
 * period had any, the signed percentage (from nothing there is no percentage, the difference
 * still says how much came); null without a previous period.
 */
export function tileChange(tile: StatsTile, language: string): Change | null {
  if (tile.previous === null) return null;
  const [now, before] = [Number(tile.value), Number(tile.previous)];
  const difference = now - before;
  const sign = difference > 0 ? "up" : difference < 0 ? "down" : "same";
  const prefix = difference > 0 ? "+" : difference < 0 ? "−" : "±";
  const amount =
    tile.key === "payout_sum" ? euros(Math.abs(difference), language) : count(Math.abs(difference), language);
  if (before === 0) return { sign, text: `${prefix}${amount}` };
  const percent = new Intl.NumberFormat(language === "en" ? "en-GB" : "de-DE", { maximumFractionDigits: 0 }).format(
    Math.abs((difference / before) * 100),
  );
  return { sign, text: `${prefix}${amount} (${prefix}${percent} %)` };
}

/** The dashboard's key figures in the period, each with its change against the previous one. */
export function KpiTiles({ stats }: { stats: Stats }) {
  const { t, i18n } = useTranslation();
  const theme = useTheme();
  const colours = statusColours(theme);
  const language = i18n.language;
  const previous = stats.previous_period;
  return (
    <Box component="section" aria-label={t("dashboard.tiles")} sx={{ mb: 2 }} data-testid="stats-tiles">
      <Box
        component="ul"
        sx={{
          listStyle: "none",
          p: 0,
          m: 0,
          display: "grid",
          gap: 1.5,
          gridTemplateColumns: {
            xs: "repeat(2, minmax(0, 1fr))",
            sm: "repeat(3, minmax(0, 1fr))",
            lg: "repeat(6, minmax(0, 1fr))",
          },
        }}
      >
        {stats.tiles.map((tile) => {
          const change = tileChange(tile, language);
          const value = tile.key === "payout_sum" ? euros(tile.value, language) : count(Number(tile.value), language);
          return (
            <Paper
              key={tile.key}
              component="li"
              variant="outlined"
              data-testid={`tile-${tile.key}`}
              sx={{
                p: 1.5,
                minWidth: 0,
                borderLeftWidth: 6,
                borderLeftColor: statusColour(
                  colours,
                  tile.status ?? (tile.key === "new" ? "qa_created" : "qa_paid"),
                  theme,
                ),
              }}
            >
              <Typography variant="body2" color="text.secondary" component="h2" sx={{ fontWeight: 500 }}>
                {t(`dashboard.tile.${tile.key}`)}
              </Typography>
              <Typography
                variant="h5"
                component="p"
                sx={{ fontWeight: 600, overflowWrap: "anywhere" }}
                data-testid={`tile-${tile.key}-value`}
              >
                {value}
              </Typography>
              {change && (
                <Typography
                  variant="body2"
                  data-testid={`tile-${tile.key}-change`}
                  data-sign={change.sign}
                  sx={{ color: "text.secondary" }}
                >
                  <Box component="span" sx={{ fontWeight: 600, color: "text.primary" }}>
                    {change.text}
                  </Box>{" "}
                  {t("dashboard.vsPrevious")}
                </Typography>
              )}
            </Paper>
          );
        })}
      </Box>
      <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }} data-testid="stats-period">
        {previous
          ? t("dashboard.comparedWith", { from: day(previous.from, language), to: day(previous.to, language) })
          : t("dashboard.noComparison")}
      </Typography>
    </Box>
  );
}
