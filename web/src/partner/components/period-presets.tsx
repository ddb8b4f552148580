import ToggleButton from "@mui/material/ToggleButton";
import ToggleButtonGroup from "@mui/material/ToggleButtonGroup";
import { useTranslation } from "react-i18next";

export const PRESETS = ["last7", "last30", "last90", "year", "all"] as const;
export type Preset = (typeof PRESETS)[number];

/** A local day as YYYY-MM-DD (not toISOString: that is UTC's day). */
function iso(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The range of a preset ending today (both days included); null for everything. */
export function presetRange(preset: Preset, today: Date = new Date()): { from: string; to: string } | null {
  if (preset === "all") return null;
  const from = new Date(today.getFullYear(), today.getMonth(), today.getDate());
  if (preset === "year") from.setMonth(0, 1);
  else from.setDate(from.getDate() - ({ last7: 7, last30: 30, last90: 90 }[preset] - 1));
  return { from: iso(from), to: iso(today) };
}

/** The preset the chosen range is, if any. */
export function presetOf(from: string, to: string, today: Date = new Date()): Preset | null {
  return (
    PRESETS.find((preset) => {
      const range = presetRange(preset, today);
      return range ? range.from === from && range.to === to : from === "" && to === "";
    }) ?? null
  );
}

/**
 * Quick periods for the dashboard: the last 7, 30 or 90 days, this year, everything. A period
 * with a first day is compared with the one of the same length before it.
 */
export function PeriodPresets({
  from,
  to,
  onChange,
}: {
  from: string;
  to: string;
  onChange: (range: { from: string; to: string } | null) => void;
}) {
  const { t } = useTranslation();
  return (
    <ToggleButtonGroup
      exclusive
      size="small"
      value={presetOf(from, to)}
      onChange={(_, preset: Preset | null) => preset && onChange(presetRange(preset))}
      aria-label={t("dashboard.presets")}
      sx={{ flexWrap: "wrap", alignSelf: "center" }}
    >
      {PRESETS.map((preset) => (
        <ToggleButton
          key={preset}
          value={preset}
          data-testid={`preset-${preset}`}
          sx={{ textTransform: "none", py: 0.5 }}
        >
          {t(`dashboard.preset.${preset}`)}
        </ToggleButton>
      ))}
    </ToggleButtonGroup>
  );
}
