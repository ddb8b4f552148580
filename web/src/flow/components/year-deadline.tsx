import Typography from "@mui/material/Typography";

import { usePartner } from "@/shared/lib/partner-context";
import type { PartnerConfig } from "@/api/config";

type QuotaYears = NonNullable<PartnerConfig["quota_years"]>;

function germanDate(iso: string): string {
  const [year, month, day] = iso.split("-");
  return `${day}.${month}.${year}`;
}

/**
 * Until when the first open quota year is taken (the server's calendar, reported by the config
 * call for the day): in its last 14 days with a countdown; after the running year's cut-off it
 * says that year is closed and which one is registered instead. Null when no year is open.
 */
export function yearDeadlineText(quotaYears: QuotaYears | undefined): string | null {
  const first = quotaYears?.open_years[0];
  if (!quotaYears || !first) return null;
  const until = `Registrierungen für das Quotenjahr ${first.year} sind bis zum ${germanDate(first.open_until)} möglich.`;
  const runningYear = Number(quotaYears.today.slice(0, 4));
  const closed = first.year > runningYear ? `Für ${runningYear} ist die Registrierung geschlossen. ` : "";
  if (first.days_left === null) return closed + until;
  if (first.days_left === 0) return `${closed}Nur noch heute: ${until}`;
  const days = first.days_left === 1 ? "1 Tag" : `${first.days_left} Tage`;
  return `${closed}Noch ${days}: ${until}`;
}

export function YearDeadline() {
  const partner = usePartner();
  const text = yearDeadlineText(partner.quota_years);
  if (!text) return null;
  return (
    <Typography
      variant="body2"
      sx={{ mb: 2, textAlign: partner.theme.tokens.itemAlignment, fontWeight: 600 }}
      data-testid="year-deadline"
    >
      {text}
    </Typography>
  );
}
