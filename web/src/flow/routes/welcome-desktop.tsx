import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Typography from "@mui/material/Typography";
import { lazy, Suspense, useEffect, useState } from "react";
import { useLocation } from "react-router";

import { usePartner, useTexts } from "@/shared/lib/partner-context";
import { PATHS } from "@/shared/lib/routes";
import { isB2BPath, useFlowNavigate } from "@/shared/lib/navigation";
import { clearSession } from "@/shared/lib/session-store";
import { Layout } from "@/shared/ui/layout";
import { PageTitle } from "@/shared/ui/page-title";

// The QR code's library arrives after the first screen (it is the phone's way on, below the
// button): the first screen stays inside its byte budget; the box keeps its place meanwhile.
const QRCodeSVG = lazy(() => import("qrcode.react").then((module) => ({ default: module.QRCodeSVG })));
const QR_SIZE = 300;
const QR_BOX = { width: "100%", maxWidth: QR_SIZE, height: "auto", aspectRatio: "1 / 1" } as const;

/**
 * WelcomeDesktop (`/welcome`, and `/` on a desktop): continue here or on the phone via the QR
 * code of this very URL. 'Weiter auf Desktop-Computer' leads to the desktop welcome steps
 * (DesktopView), or to WelcomeB2B on the B2B path.
 */
export function WelcomeDesktop() {
  const t = useTexts();
  const { theme } = usePartner();
  const navigate = useFlowNavigate();
  const { pathname } = useLocation();
  const [url] = useState(() => window.location.href);

  useEffect(() => {
    clearSession();
  }, []);

  return (
    <Layout>
      <PageTitle>{t("welcomeDesktop.title")}</PageTitle>
      <Box
        sx={{
          display: "grid",
          gap: 3,
          justifyItems: "center",
          p: 3,
          bgcolor: theme.tokens.desktopBox,
          borderRadius: 2,
        }}
      >
        <Button
          variant="contained"
          color="primary"
          size="large"
          data-testid="welcome-desktop-continue"
          onClick={() => navigate(isB2BPath(pathname) ? PATHS.WelcomeB2B : PATHS.DesktopView)}
        >
          {t("welcomeDesktop.continue")}
        </Button>
        <Typography sx={{ textAlign: "center" }}>{t("welcomeDesktop.qrHint")}</Typography>
        {/* 300 px where there is room; in a narrow window (the screen is reachable at any width)
            the code shrinks with its box instead of pushing the page sideways. */}
        <Suspense fallback={<Box sx={QR_BOX} aria-hidden />}>
          <QRCodeSVG
            value={url}
            size={QR_SIZE}
            level="Q"
            marginSize={0}
            data-testid="welcome-qr"
            title={url}
            style={QR_BOX}
          />
        </Suspense>
      </Box>
    </Layout>
  );
}
