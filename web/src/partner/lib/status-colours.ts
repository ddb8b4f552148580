import { darken, decomposeColor, lighten, recomposeColor, type Theme } from "@mui/material/styles";

/**
 * The application statuses as the status catalogue groups them (platform/quota/catalogue.py):
 * the expected path in its order, the payment failure that rejoins it, the rejections, the test
 * status. Every chart and tile of the dashboard takes a status's colour from one map built from
 * these groups and the partner's theme, so a status looks the same everywhere and no two
 * statuses share a colour, for every partner kind.
 */
export const STATUS_GROUPS = {
  path: [
    "qa_created",
    "qa_entered",
    "qa_picked_up",
    "qa_sent_to_uba",
    "qa_accepted",
    "qa_to_pay",
    "qa_to_settle",
    "qa_paid",
    "qa_completed",
  ],
  payment_failure: ["qa_payment_failure"],
  rejected: [
    "qa_double_registration",
    "qa_color_copy_unreadable",
    "qa_not_an_electric_car",
    "qa_approval_date_in_the_future",
    "qa_rejected_by_platform",
    "qa_manually_rejected",
    "qa_rejected_by_authority",
    "qa_rejected_by_partner",
  ],
  test: ["qa_test"],
} as const;

/** `a` and `b` mixed in RGB, `share` of `b`. */
function mix(a: string, b: string, share: number): string {
  const [from, to] = [decomposeColor(a), decomposeColor(b)];
  const channel = (index: number) => Math.round(from.values[index] * (1 - share) + to.values[index] * share);
  return recomposeColor({ type: "rgb", values: [channel(0), channel(1), channel(2)] });
}

/** `count` shades of one colour, from darker to lighter. */
function shades(base: string, count: number): string[] {
  if (count === 1) return [base];
  return Array.from({ length: count }, (_, index) => {
    const step = -0.35 + (0.8 * index) / (count - 1); // -0.35 (darker) .. 0.45 (lighter)
    return step < 0 ? darken(base, -step) : lighten(base, step);
  });
}

/**
 * One colour per status: the path from the theme's info colour to its success colour (darkest
 * at the end, where the money is; every other step lighter, so neighbours stand apart), the failure in its warning colour, the rejections in shades
 * of its error colour, the test status grey. Unknown codes get the grey.
 */
export function statusColours(theme: Theme): Record<string, string> {
  const { info, success, warning, error, grey } = theme.palette;
  const colours: Record<string, string> = {};
  const path = STATUS_GROUPS.path;
  path.forEach((status, index) => {
    const step = mix(info.main, success.dark, index / (path.length - 1));
    // every other step lighter: two neighbours of the path were hardly apart (CIEDE2000 3.8,
    // "Registrierung eingegangen" and "Erfasst"), now each differs from the next in lightness
    colours[status] = index % 2 === 1 ? lighten(step, 0.35) : step;
  });
  colours.qa_payment_failure = warning.main;
  shades(error.main, STATUS_GROUPS.rejected.length).forEach((colour, index) => {
    colours[STATUS_GROUPS.rejected[index]] = colour;
  });
  colours.qa_test = grey[500];
  return colours;
}

export function statusColour(colours: Record<string, string>, status: string | null, theme: Theme): string {
  return (status && colours[status]) || theme.palette.grey[500];
}
