const FLAG = "thg:preload-reload";

/**
 * After a deploy the old release's chunks are gone: Vite fires `vite:preloadError` when a
 * lazy screen's file does not load. The page reloads once to fetch the new release; the
 * session flag makes sure a chunk that fails for another reason (offline) does not reload
 * in a loop; then the error reaches the screen's error boundary.
 */
export function installPreloadRecovery(win: Window = window): void {
  win.addEventListener("vite:preloadError", (event) => {
    let reloaded = false;
    try {
      reloaded = win.sessionStorage.getItem(FLAG) !== null;
      if (!reloaded) win.sessionStorage.setItem(FLAG, String(Date.now()));
    } catch {
      reloaded = true; // No storage: no way to know, so never reload.
    }
    if (reloaded) return;
    event.preventDefault();
    win.location.reload();
  });
}

export const PRELOAD_RELOAD_FLAG = FLAG;
