import Box from "@mui/material/Box";
import Container from "@mui/material/Container";
import Typography from "@mui/material/Typography";
import type { ReactNode } from "react";

import { usePartner } from "@/shared/lib/partner-context";

import { PartnerLogo } from "./partner-logo";

/** The shell of every flow screen: partner logo, the wallbox header, the content. */
export function Layout({ children }: { children: ReactNode }) {
  const partner = usePartner();
  const { tokens } = partner.theme;
  return (
    <Box sx={{ minHeight: "100vh", display: "flex", flexDirection: "column", color: tokens.text }}>
      <Box component="header" sx={{ px: 2, py: 1.5, display: "flex", justifyContent: "center", borderBottom: 1, borderColor: "divider" }}>
        <PartnerLogo />
      </Box>
      {tokens.headerImage && (
        <Box component="section" aria-label="Partnerinformation">
          <img
            src={tokens.headerImage}
            alt=""
            data-testid="wallbox-header-image"
            style={{ display: "block", width: "100%", maxHeight: 200, objectFit: "cover" }}
          />
          {tokens.headerInfoText && (
            <Typography data-testid="wallbox-info-text" sx={{ px: 2, py: 1.5, textAlign: tokens.itemAlignment, bgcolor: tokens.desktopBox }}>
              {tokens.headerInfoText}
            </Typography>
          )}
        </Box>
      )}
      <Container component="main" maxWidth="sm" sx={{ flex: 1, py: 3 }}>
        {children}
      </Container>
    </Box>
  );
}
