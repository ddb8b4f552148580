import { useEffect } from "react";

/** Browser back does nothing here: the entry is duplicated and re-pushed on every pop. */
export function useBlockBack(enabled = true): void {
  useEffect(() => {
    if (!enabled) return;
    const stay = () => window.history.pushState(window.history.state, "", window.location.href);
    stay();
    window.addEventListener("popstate", stay);
    return () => window.removeEventListener("popstate", stay);
  }, [enabled]);
}
