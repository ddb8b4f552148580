import Box from "@mui/material/Box";
import { type MouseEvent, useState } from "react";

/** The scan: the resized copy if there is one; zooms towards the pointer while it moves over it.
 * Its width and height hold its place before it has loaded: nothing below it moves when it comes. */
export function ScanImage({ src, width, height, alt }: { src: string; width: number; height: number; alt: string }) {
  const [origin, setOrigin] = useState<string | null>(null);
  const orientation = width >= height ? "landscape" : "portrait";
  const move = (event: MouseEvent<HTMLDivElement>) => {
    const box = event.currentTarget.getBoundingClientRect();
    const x = ((event.clientX - box.left) / Math.max(box.width, 1)) * 100;
    const y = ((event.clientY - box.top) / Math.max(box.height, 1)) * 100;
    setOrigin(`${x.toFixed(1)}% ${y.toFixed(1)}%`);
  };
  return (
    <Box
      className={orientation}
      data-testid="scan-image"
      onMouseMove={move}
      onMouseLeave={() => setOrigin(null)}
      sx={{ alignSelf: "start", overflow: "hidden", borderRadius: 1, border: 1, borderColor: "divider", maxWidth: orientation === "landscape" ? 360 : 240, cursor: "zoom-in" }}
    >
      <img
        src={src}
        alt={alt}
        width={width}
        height={height}
        loading="lazy"
        style={{ display: "block", width: "100%", height: "auto", transition: "transform 0.1s", transform: origin ? "scale(2)" : "none", transformOrigin: origin ?? "center" }}
      />
    </Box>
  );
}
