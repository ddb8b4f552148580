import Box from "@mui/material/Box";
import Paper from "@mui/material/Paper";
import { Outlet } from "react-router";

import { usePartner } from "@/shared/lib/partner-context";
import { PartnerLogo } from "@/shared/ui/partner-logo";

import { LanguageSwitch } from "./language-switch";

/** The auth group: the partner's logo above a card, on the partner's gradient. */
export function AuthLayout() {
  const partner = usePartner();
  const { colors } = partner;
  return (
    <Box
      component="main"
      sx={{
        minHeight: "100vh",
        display: "grid",
        placeItems: "center",
        p: 2,
        background: `linear-gradient(135deg, ${colors.gradient_start}, ${colors.gradient_end})`,
      }}
    >
      <Paper sx={{ width: "100%", maxWidth: 440, p: { xs: 3, sm: 4 } }}>
        <Box sx={{ display: "flex", flexWrap: "wrap", justifyContent: "space-between", alignItems: "center", gap: 1, mb: 3 }}>
          <PartnerLogo />
          <LanguageSwitch />
        </Box>
        <Outlet />
      </Paper>
    </Box>
  );
}
