import Box from "@mui/material/Box";
import Typography from "@mui/material/Typography";
import type { ReactNode } from "react";

import { usePartner } from "@/app/partner-context";

/** A screen title: alignment, title dot and the utility underline come from the theme tokens. */
export function PageTitle({ children }: { children: ReactNode }) {
  const { tokens } = usePartner().theme;
  return (
    <Box sx={{ textAlign: tokens.itemAlignment, mb: 2 }}>
      <Typography variant="h1" component="h1" data-testid="page-title">
        {children}
        {tokens.titleDot && (
          <Box
            component="span"
            aria-hidden
            data-testid="title-dot"
            sx={{ display: "inline-block", width: 10, height: 10, ml: 0.75, borderRadius: "50%", bgcolor: tokens.circle }}
          />
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
