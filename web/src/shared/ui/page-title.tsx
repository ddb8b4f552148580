import Box from "@mui/material/Box";
import Typography from "@mui/material/Typography";
import type { ReactNode } from "react";

import { usePartner } from "@/shared/lib/partner-context";

// The end of a title glued to its dot: a short last word whole, a long one by its last
// letters, so a long German word may still break (overflow-wrap: anywhere) before them.
const GLUED_WORD = 10;
const GLUED_TAIL = 4;

/** The title's text before the glued end, and the glued end; a title that is no plain text
 * glues nothing. */
export function titleTail(children: ReactNode): [ReactNode, string] {
  if (typeof children !== "string") return [children, ""];
  const text = children.trimEnd();
  const lastWord = text.slice(text.search(/\S+$/));
  const tail = lastWord.length <= GLUED_WORD ? lastWord : lastWord.slice(-GLUED_TAIL);
  return [text.slice(0, text.length - tail.length), tail];
}

/** A screen title: alignment, title dot and the utility underline come from the theme tokens.
 * The dot never wraps onto a line of its own: it shares a no-wrap span with the title's end. */
export function PageTitle({ children }: { children: ReactNode }) {
  const { tokens } = usePartner().theme;
  const [head, tail] = tokens.titleDot ? titleTail(children) : [children, ""];
  return (
    <Box sx={{ textAlign: tokens.itemAlignment, mb: 2 }}>
      <Typography variant="h1" component="h1" data-testid="page-title">
        {head}
        {tokens.titleDot && (
          <Box component="span" data-testid="title-end" sx={{ whiteSpace: "nowrap" }}>
            {tail}
            <Box
              component="span"
              aria-hidden
              data-testid="title-dot"
              sx={{ display: "inline-block", width: 10, height: 10, ml: 0.75, borderRadius: "50%", bgcolor: tokens.circle }}
            />
          </Box>
        )}
      </Typography>
      {tokens.titleStyle === "utility" && (
        <Box
          aria-hidden
          sx={{
            width: 56,
            height: 4,
            mt: 1,
            bgcolor: tokens.circle,
            mx: tokens.itemAlignment === "center" ? "auto" : 0,
            ml: tokens.itemAlignment === "right" ? "auto" : undefined,
          }}
        />
      )}
    </Box>
  );
}
