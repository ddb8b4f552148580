import Box from "@mui/material/Box";
import Typography from "@mui/material/Typography";

import type { TimelineEntry } from "../api/quota-applications";

/** Rejections whose subtitles are the reason, shown in italics (section 4). */
const REJECTED = new Set(["qa_manually_rejected", "qa_rejected_by_authority", "qa_rejected_by_platform", "qa_rejected_by_partner", "qa_double_registration", "qa_color_copy_unreadable", "qa_not_a_electric_car", "qa_approval_date_in_the_future"]);

/** The card's timeline: past and current entries filled, future ones faint; only the current one shows its subtitles. */
export function StatusTimeline({ entries }: { entries: TimelineEntry[] }) {
  return (
    <Box component="ol" sx={{ listStyle: "none", p: 0, m: 0 }} data-testid="status-timeline">
      {entries.map((entry, index) => {
        const future = entry.position === "future";
        const current = entry.position === "current";
        const rejected = REJECTED.has(entry.status);
        return (
          <Box
            component="li"
            key={`${entry.status}-${index}`}
            data-position={entry.position}
            aria-current={current ? "step" : undefined}
            sx={{ display: "flex", gap: 1.5, pb: 1.5, position: "relative", color: future ? "text.secondary" : "text.primary" }}
          >
            <Box
              aria-hidden
              sx={{
                mt: 0.5,
                width: 14,
                height: 14,
                flex: "0 0 14px",
                borderRadius: "50%",
                border: 2,
                borderColor: rejected && current ? "error.main" : future ? "text.disabled" : "primary.main",
                bgcolor: future ? "transparent" : rejected && current ? "error.main" : "primary.main",
              }}
            />
            <Box>
              <Typography sx={{ fontWeight: current ? 700 : 400, fontStyle: future ? "italic" : "normal" }}>{entry.details.title}</Typography>
              {current &&
                entry.details.subtitles.map((subtitle) => (
                  <Typography
                    key={subtitle}
                    variant="body2"
                    data-testid="timeline-subtitle"
                    sx={rejected ? { fontStyle: "italic", color: "error.main" } : { color: "text.secondary" }}
                  >
                    {subtitle}
                  </Typography>
                ))}
            </Box>
          </Box>
        );
      })}
    </Box>
  );
}
