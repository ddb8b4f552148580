import Box from "@mui/material/Box";
import Paper from "@mui/material/Paper";
import Typography from "@mui/material/Typography";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";

import { usePartner } from "@/shared/lib/partner-context";

import { LanguageSwitch } from "./language-switch";

/** Login and invite: the partner's logo above a card, on the partner's gradient. */
export function AuthCard({ title, children }: { title: string; children: ReactNode }) {
  const partner = usePartner();
  const { t } = useTranslation();
  return (
    <Box
      component="main"
      sx={{
        minHeight: "100vh",
        display: "grid",
        placeItems: "center",
        p: 2,
        background: `linear-gradient(135deg, ${partner.colors.gradient_start}, ${partner.colors.gradient_end})`,
      }}
    >
      <Paper sx={{ width: "100%", maxWidth: 460, p: { xs: 3, sm: 4 } }}>
        <Box sx={{ display: "flex", justifyContent: "space-between", alignItems: "center", mb: 2, gap: 1 }}>
          {partner.theme.assets.logo ? (
            <img src={partner.theme.assets.logo} alt={`${partner.name} Logo`} style={{ height: 36, maxWidth: "60%" }} />
          ) : (
            <Typography component="span">{partner.name}</Typography>
          )}
          <LanguageSwitch />
        </Box>
        <Typography variant="overline" component="p" sx={{ color: "text.secondary" }}>
          {t("area.title")}
        </Typography>
        <Typography variant="h1" sx={{ mb: 2 }}>
          {title}
        </Typography>
        {children}
      </Paper>
    </Box>
  );
}
