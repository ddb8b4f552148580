import Box from "@mui/material/Box";
import type { SxProps, Theme } from "@mui/material/styles";
import DOMPurify from "dompurify";
import { useMemo } from "react";

/** Partner HTML stays inside a phone's width (long links and words wrap, wide tables scroll
 * in their own box) and its headings stay below the screen's title. */
const PARTNER_HTML: SxProps<Theme> = (theme) => ({
  whiteSpace: "pre-line",
  overflowWrap: "anywhere",
  minWidth: 0,
  maxWidth: "100%",
  // the theme's link colour (themes.compiler: palette.link), never the button's
  "& a": { color: "link.main" },
  "& h1, & h2, & h3": { ...theme.typography.h3, mt: 2, mb: 1 },
  "& h4, & h5, & h6": { ...theme.typography.h4, mt: 2, mb: 1 },
  "& img, & video, & iframe": { maxWidth: "100%", height: "auto" },
  "& table": { display: "block", maxWidth: "100%", overflowX: "auto" },
  "& pre": { whiteSpace: "pre-wrap" },
});

/** Partner HTML (already sanitised on save) sanitised again before it reaches the DOM. */
export function SafeHtml({ html, testId }: { html: string; testId?: string }) {
  const clean = useMemo(() => DOMPurify.sanitize(html, { USE_PROFILES: { html: true } }), [html]);
  return <Box data-testid={testId} sx={PARTNER_HTML} dangerouslySetInnerHTML={{ __html: clean }} />;
}

/** Text the configuration keeps base64-encoded (UTF-8), decoded; bad input gives "". */
export function decodeBase64(value: string): string {
  if (!value) return "";
  try {
    const bytes = Uint8Array.from(atob(value), (char) => char.charCodeAt(0));
    return new TextDecoder().decode(bytes);
  } catch {
    return "";
  }
}
