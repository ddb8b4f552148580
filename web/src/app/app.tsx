import Box from "@mui/material/Box";
import CircularProgress from "@mui/material/CircularProgress";
import CssBaseline from "@mui/material/CssBaseline";
import { ThemeProvider } from "@mui/material/styles";
import Typography from "@mui/material/Typography";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, useEffect, useMemo, useState } from "react";
import { BrowserRouter } from "react-router";

import { ConfigNotFound, fetchPartnerConfig, type PartnerConfig, currentSubdomain } from "@/api/config";
import { FrontendDeactivated } from "@/flow/routes/frontend-deactivated";
import { browser } from "@/shared/lib/browser";
import { onSessionEnded } from "@/shared/lib/http";
import { isB2BPath } from "@/shared/lib/navigation";
import { clearSession } from "@/shared/lib/session-store";
import { ToasterProvider } from "@/shared/ui/toaster";
import { buildTheme } from "@/theme/build-theme";

import { applyPartnerHead } from "./partner-head";
import { installPreloadRecovery } from "./preload-recovery";
import { PartnerContext, usePartner } from "@/shared/lib/partner-context";
import { AppRoutes } from "./router";

export type AppState =
  | { status: "loading" }
  | { status: "missing" }
  | { status: "failed" }
  | { status: "ready"; config: PartnerConfig };

/** The partner configuration of this host, loaded and applied to the page's head; the state
 * the app starts in once the call has settled. */
export function loadPartner(hostname: string = window.location.hostname, signal?: AbortSignal): Promise<AppState> {
  return fetchPartnerConfig(currentSubdomain(document, hostname), signal).then(
    (config): AppState => {
      applyPartnerHead(config);
      return { status: "ready", config };
    },
    (error: unknown): AppState => {
      if (signal?.aborted) throw error;
      return { status: error instanceof ConfigNotFound ? "missing" : "failed" };
    },
  );
}

/**
 * Loads the partner configuration once, then renders the partner's themed app. Given the
 * settled state (main.tsx waits for it while the server's page shows its spinner), the first
 * render is the partner's screen, not a loading state first.
 */
export function App({ hostname = window.location.hostname, initial }: { hostname?: string; initial?: AppState }) {
  const [state, setState] = useState<AppState>(initial ?? { status: "loading" });

  useEffect(() => {
    if (initial) return;
    const controller = new AbortController();
    loadPartner(hostname, controller.signal).then(setState, () => {});
    return () => controller.abort();
  }, [hostname, initial]);

  if (state.status !== "ready") return <Neutral state={state.status} />;
  return <PartnerApp config={state.config} />;
}

export function PartnerApp({ config }: { config: PartnerConfig }) {
  return (
    <PartnerProviders config={config}>
      <BrowserRouter>
        <PartnerScreens />
      </BrowserRouter>
    </PartnerProviders>
  );
}

installPreloadRecovery();

// A refresh that failed ends the session: the flow starts again where a visitor starts.
onSessionEnded(() => {
  clearSession();
  browser.assign(isB2BPath(window.location.pathname) ? "/b2b/login" : "/terms");
});

/** The partner's configuration and compiled theme, server state and toaster for everything below. */
export function PartnerProviders({ config, children }: { config: PartnerConfig; children: ReactNode }) {
  const theme = useMemo(() => buildTheme(config.theme), [config.theme]);
  const [queries] = useState(() => new QueryClient({ defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } } }));
  return (
    <PartnerContext.Provider value={config}>
      <QueryClientProvider client={queries}>
        <ThemeProvider theme={theme}>
          <CssBaseline />
          <ToasterProvider>{children}</ToasterProvider>
        </ThemeProvider>
      </QueryClientProvider>
    </PartnerContext.Provider>
  );
}

/** A deactivated partner shows only FrontendDeactivated, on every route; a console preview
 * link's visit says above every screen that it is a preview. */
export function PartnerScreens() {
  const partner = usePartner();
  return (
    <>
      {partner.preview && <PreviewBanner />}
      {partner.frontend_active ? <AppRoutes /> : <FrontendDeactivated />}
    </>
  );
}

function PreviewBanner() {
  return (
    <Box
      role="status"
      data-testid="preview-banner"
      sx={{ bgcolor: "#1f2933", color: "#ffffff", px: 2, py: 1, textAlign: "center", fontSize: "0.875rem", lineHeight: 1.45 }}
    >
      <strong>Vorschau</strong> – diese Fassung der Website ist noch nicht veröffentlicht.
    </Box>
  );
}

function Neutral({ state }: { state: "loading" | "missing" | "failed" }) {
  return (
    <Box sx={{ minHeight: "100vh", display: "grid", placeItems: "center", fontFamily: "sans-serif", p: 3 }}>
      {state === "loading" ? (
        // The colour the server inlined for the host's partner (tenants.web_views.theme_style).
        <CircularProgress aria-label="Wird geladen" sx={{ color: "var(--thg-primary, #1976d2)" }} />
      ) : (
        <Typography role="alert">
          {state === "missing" ? "Diese Seite wurde nicht gefunden." : "Die Seite konnte nicht geladen werden. Bitte versuchen Sie es später erneut."}
        </Typography>
      )}
    </Box>
  );
}
