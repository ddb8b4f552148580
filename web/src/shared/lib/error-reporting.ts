/**
 * Error reporting for the browser, off unless the server names a Sentry DSN in the page
 * (`<meta name="thg-error-reporting">`, written by platform/tenants/web_views.py when
 * SENTRY_BROWSER_DSN is set: no rebuild to switch it on). This file is all the first screen
 * carries: the Sentry SDK (sentry-client.ts) is its own chunk, fetched only when a DSN is
 * configured, after the page has loaded. Errors thrown before it arrives are kept and sent
 * then, so a crash of the first render is not lost.
 */

export type ReportingConfig = { dsn: string; release: string; environment: string; partner: string };
export type Reporter = { capture(error: unknown, componentStack?: string): void };
type Loader = () => Promise<{ startSentry(config: ReportingConfig): Reporter }>;

const load: Loader = () => import("./sentry-client");

/** The configuration the server put in the page, or null when reporting is off. */
export function reportingConfig(doc: Document = document): ReportingConfig | null {
  const meta = doc.querySelector<HTMLMetaElement>('meta[name="thg-error-reporting"]');
  const dsn = meta?.content.trim();
  if (!meta || !dsn) return null;
  return {
    dsn,
    release: meta.dataset.release ?? "",
    environment: meta.dataset.environment ?? "",
    partner: doc.querySelector<HTMLMetaElement>('meta[name="thg-partner"]')?.content.trim() ?? "",
  };
}

type Pending = { error: unknown };
let reporter: Promise<Reporter | null> | null = null;
let pending: Pending[] = [];
let configured = false;

/**
 * Starts reporting when the page names a DSN: returns the reporter's promise, or null (and
 * loads nothing) when it does not. Until the SDK is there, uncaught errors and rejected
 * promises are queued; the SDK's own handlers take over once it runs.
 */
export function startErrorReporting(win: Window = window, loader: Loader = load): Promise<Reporter | null> | null {
  const config = reportingConfig(win.document);
  if (!config) return null;
  if (reporter) return reporter;
  configured = true;
  const onError = (event: ErrorEvent) => pending.push({ error: event.error ?? event.message });
  const onRejection = (event: PromiseRejectionEvent) => pending.push({ error: event.reason });
  win.addEventListener("error", onError);
  win.addEventListener("unhandledrejection", onRejection);
  const whenLoaded = new Promise<void>((resolve) => {
    if (win.document.readyState === "complete") resolve();
    else win.addEventListener("load", () => resolve(), { once: true });
  });
  reporter = whenLoaded
    .then(loader)
    .then(({ startSentry }) => {
      const started = startSentry(config);
      for (const { error } of pending) started.capture(error);
      return started;
    })
    .catch(() => null) // An ad blocker or a failed chunk: the app works on without reports.
    .finally(() => {
      pending = [];
      win.removeEventListener("error", onError);
      win.removeEventListener("unhandledrejection", onRejection);
    });
  return reporter;
}

/** Reports an error an error boundary caught; nothing at all when reporting is off. */
export function reportError(error: unknown, componentStack?: string): void {
  if (!configured || !reporter) return;
  void reporter.then((started) => started?.capture(error, componentStack));
}

/** For tests: forget a started reporter. */
export function resetErrorReporting(): void {
  reporter = null;
  pending = [];
  configured = false;
}
