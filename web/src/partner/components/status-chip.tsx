import Chip from "@mui/material/Chip";

export type Tone = "default" | "success" | "error" | "warning" | "info";

/**
 * A status as a chip: the tone in a border, the text in the body colour (a filled warning or
 * info chip's white text on the light tone fails WCAG AA contrast).
 */
export function StatusChip({ tone, label, ...rest }: { tone: Tone; label: string; [data: `data-${string}`]: string }) {
  return (
    <Chip
      size="small"
      variant="outlined"
      label={label}
      sx={{
        color: "text.primary",
        borderWidth: 2,
        borderColor: tone === "default" ? "divider" : `${tone}.main`,
        fontWeight: 500,
      }}
      {...rest}
    />
  );
}
