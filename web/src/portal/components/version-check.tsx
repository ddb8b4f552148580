import Button from "@mui/material/Button";
import Snackbar from "@mui/material/Snackbar";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";

import { browser } from "@/shared/lib/browser";

export const VERSION_CHECK_MS = 5 * 60 * 1000;

/**
 * The app's entry script in a page: a new build has a new hashed name. The portal's login names
 * it in a meta, loaded after the first paint (boot.ts), every other page in its script tag.
 */
export function entryScript(html: string): string | null {
  return (
    /<meta name="thg-entry" content="([^"]+)"/.exec(html)?.[1] ??
    /<script[^>]*type="module"[^>]*src="([^"]+)"/.exec(html)?.[1] ??
    /<script[^>]*src="([^"]+)"[^>]*type="module"/.exec(html)?.[1] ??
    null
  );
}

/** Checks now and then whether a new version was deployed and offers 'Update Now' or Cancel. */
export function VersionCheck() {
  const { t } = useTranslation();
  const [newer, setNewer] = useState<string | null>(null);
  const [dismissed, setDismissed] = useState<string | null>(null);

  useEffect(() => {
    const running = document.querySelector('script[type="module"][src]')?.getAttribute("src") ?? null;
    const check = () => {
      fetch("/portal", { cache: "no-store", headers: { Accept: "text/html" } })
        .then((response) => (response.ok ? response.text() : ""))
        .then((html) => {
          const deployed = entryScript(html);
          if (running && deployed && deployed !== running) setNewer(deployed);
        })
        .catch(() => {});
    };
    const timer = window.setInterval(check, VERSION_CHECK_MS);
    const visible = () => document.visibilityState === "visible" && check();
    document.addEventListener("visibilitychange", visible);
    return () => {
      window.clearInterval(timer);
      document.removeEventListener("visibilitychange", visible);
    };
  }, []);

  return (
    <Snackbar
      open={newer !== null && newer !== dismissed}
      anchorOrigin={{ vertical: "bottom", horizontal: "center" }}
      message={t("version.text")}
      data-testid="version-check"
      action={
        <>
          <Button color="inherit" onClick={() => setDismissed(newer)}>
            {t("version.cancel")}
          </Button>
          <Button color="secondary" variant="contained" size="small" onClick={() => browser.reload()}>
            {t("version.update")}
          </Button>
        </>
      }
    />
  );
}
