import Box from "@mui/material/Box";
import Typography from "@mui/material/Typography";
import type { TFunction } from "i18next";
import { useState } from "react";
import { useTranslation } from "react-i18next";

import type { FieldBox } from "../api/applications";

/** The German (or English) name of the reader's rule that decided a field, or of the reason it
 * was left unread; an unknown rule as the server names it. */
export function ruleLabel(t: TFunction, rule: string | null | undefined): string {
  if (!rule) return t("decided.rules.none");
  return t(`decided.rules.${rule}`, { defaultValue: rule });
}

const MARGIN = 0.01; // a little of the picture around the box: the value's edges stay visible

/**
 * A field's value cut from the display picture in the browser: the picture at its own aspect,
 * scaled so the box fills the frame's width, shifted so the box's corner is the frame's corner.
 * The frame takes the box's aspect once the picture's size is known.
 */
export function FieldCrop({ src, box, label }: { src: string; box: FieldBox | null; label: string }) {
  const { t } = useTranslation();
  const [natural, setNatural] = useState<{ width: number; height: number } | null>(null);
  if (!box) {
    return (
      <Typography variant="caption" sx={{ color: "text.secondary" }} data-testid="crop-missing">
        {t("review.noCrop")}
      </Typography>
    );
  }
  const x0 = Math.max(0, box[0] - MARGIN);
  const y0 = Math.max(0, box[1] - MARGIN);
  const width = Math.max(0.001, Math.min(1, box[2] + MARGIN) - x0);
  const height = Math.max(0.001, Math.min(1, box[3] + MARGIN) - y0);
  const aspect = natural ? (width * natural.width) / (height * natural.height) : 6;
  return (
    <Box
      role="img"
      aria-label={label}
      data-testid="field-crop"
      sx={{
        position: "relative",
        overflow: "hidden",
        width: "100%",
        maxWidth: 360,
        aspectRatio: String(Math.min(Math.max(aspect, 1), 20)),
        border: 1,
        borderColor: "divider",
        borderRadius: 0.5,
        bgcolor: "grey.100",
      }}
    >
      <img
        src={src}
        alt=""
        onLoad={(event) =>
          setNatural({ width: event.currentTarget.naturalWidth, height: event.currentTarget.naturalHeight })
        }
        style={{
          position: "absolute",
          maxWidth: "none",
          width: `${100 / width}%`,
          left: `${(-x0 / width) * 100}%`,
          top: `${(-y0 / height) * 100}%`,
        }}
      />
    </Box>
  );
}
