import { useEffect, useRef } from "react";
import { useLocation } from "react-router";

import { inputModality, inputModalityInstall } from "@/shared/lib/input-modality";

import { usePartner } from "@/shared/lib/partner-context";
import { ALIASES, PATHS } from "@/shared/lib/routes";

// The start screens carry the title the partner configured (as the server-rendered shell
// does): what a search result and a bookmark show.
const START_PATHS = new Set<string>([
  PATHS.Welcome,
  PATHS.WelcomeB2B,
  PATHS.WelcomeDesktop,
  PATHS.DesktopView,
  PATHS.WelcomeMobile,
  ...(ALIASES.Welcome ?? []),
]);

// Long enough for a lazy screen's chunk on a slow phone; the observer stops after that.
const WAIT_FOR_HEADING_MS = 15_000;

/**
 * On every screen: the document title says where the visitor is ("Heading – Partner"; the
 * partner's own title on the start screens), and
 * after a route change the keyboard focus moves to the new screen's h1, so a screen reader
 * announces the new screen (the first screen keeps the browser's own start). The heading
 * shows a focus ring only after a key press (`data-focus-ring`, the theme's CssBaseline):
 * arriving by a click, a link from a mail or a redirect draws none.
 */
export function ScreenAnnouncer() {
  const { pathname } = useLocation();
  const { name, page_title: partnerTitle } = usePartner();
  const firstScreen = useRef(true);
  useEffect(() => inputModalityInstall(), []);

  useEffect(() => {
    const moveFocus = !firstScreen.current;
    firstScreen.current = false;
    const announce = (): boolean => {
      const heading = document.querySelector<HTMLElement>("main h1") ?? document.querySelector<HTMLElement>("h1");
      const text = heading?.textContent?.trim();
      if (!heading || !text) return false;
      document.title = START_PATHS.has(pathname.replace(/\/+$/, "") || "/") ? partnerTitle : `${text} – ${name}`;
      // A screen that focused its own field (a code input) keeps it.
      const focused = document.activeElement;
      const screenFocusedItself = focused !== null && focused !== document.body && heading.closest("main")?.contains(focused);
      if (moveFocus && !screenFocusedItself) {
        if (!heading.hasAttribute("tabindex")) heading.setAttribute("tabindex", "-1");
        heading.toggleAttribute("data-focus-ring", inputModality() === "keyboard");
        heading.focus();
      }
      return true;
    };
    if (announce()) return;
    // A lazy screen: its heading appears when its chunk has arrived.
    const observer = new MutationObserver(() => {
      if (announce()) observer.disconnect();
    });
    observer.observe(document.body, { childList: true, subtree: true, characterData: true });
    const timer = window.setTimeout(() => observer.disconnect(), WAIT_FOR_HEADING_MS);
    return () => {
      observer.disconnect();
      window.clearTimeout(timer);
    };
  }, [pathname, name, partnerTitle]);

  return null;
}
