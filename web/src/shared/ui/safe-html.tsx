import Box from "@mui/material/Box";
import DOMPurify from "dompurify";
import { useMemo } from "react";

/** Partner HTML (already sanitised on save) sanitised again before it reaches the DOM. */
export function SafeHtml({ html, testId }: { html: string; testId?: string }) {
  const clean = useMemo(() => DOMPurify.sanitize(html, { USE_PROFILES: { html: true } }), [html]);
  return <Box data-testid={testId} sx={{ whiteSpace: "pre-line", "& a": { color: "primary.main" } }} dangerouslySetInnerHTML={{ __html: clean }} />;
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
