import Box from "@mui/material/Box";
import Typography from "@mui/material/Typography";

import type { ThemeBundle } from "@/api/config";
import { usePartner } from "@/shared/lib/partner-context";

type LogoBox = ThemeBundle["assets"]["logoBox"];

/** A wide logo gets its width (phone, from `sm` on the desktop's), a square one its height. */
export function logoSize(box: LogoBox) {
  if (!box) return { height: 40, width: "auto" };
  return box.wide
    ? { width: { xs: box.phone.width, sm: box.desktop.width }, height: "auto" }
    : { height: { xs: box.phone.height, sm: box.desktop.height }, width: "auto" };
}

/**
 * The partner's logo in a header, at the size the theme compiler chose (themes.logo): its
 * smallest text at least 12 px high on a phone and 14 px on a desktop. A wide logo is given
 * its width, a square one its height; a mark without text has the partner's name beside it;
 * no logo at all: the name alone.
 */
export function PartnerLogo() {
  const partner = usePartner();
  const { logo, logoBox } = partner.theme.assets;
  const name = (
    <Typography component="span" variant="subtitle1" data-testid="partner-name" sx={{ fontWeight: 700, lineHeight: 1.2, minWidth: 0 }}>
      {partner.name}
    </Typography>
  );
  if (!logo) return name;
  const size = logoSize(logoBox);
  return (
    <Box sx={{ display: "flex", alignItems: "center", gap: 1, minWidth: 0 }}>
      <Box
        component="img"
        src={logo}
        // the name beside it says it already
        alt={logoBox?.showName ? "" : `${partner.name} Logo`}
        data-testid="partner-logo"
        // for the layout checks: the smallest text's share of the logo's height
        data-text-share={logoBox?.textShare}
        sx={{ ...size, display: "block", maxWidth: "100%", objectFit: "contain", flexShrink: 0 }}
      />
      {logoBox?.showName && name}
    </Box>
  );
}
