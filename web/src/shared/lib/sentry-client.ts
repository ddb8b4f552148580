/**
 * The Sentry SDK, loaded only by error-reporting.ts when the page names a DSN: its own chunk,
 * never on the first screen. Personal data is scrubbed from every event and breadcrumb
 * (scrub.ts); no user, no cookies, no request bodies, no performance tracing, no replays.
 */
import { captureException, captureReactException, type BrowserOptions, init } from "@sentry/react";

import type { Reporter, ReportingConfig } from "./error-reporting";
import { scrubBreadcrumb, scrubEvent } from "./scrub";

export function startSentry(config: ReportingConfig, options: Partial<BrowserOptions> = {}): Reporter {
  init({
    dsn: config.dsn,
    release: config.release || undefined,
    environment: config.environment || undefined,
    sendDefaultPii: false,
    // Only errors: no performance spans and no session replays (they would record the forms).
    tracesSampleRate: 0,
    initialScope: config.partner ? { tags: { partner: config.partner } } : undefined,
    beforeSend: (event) => scrubEvent(event),
    beforeBreadcrumb: (crumb) => scrubBreadcrumb(crumb),
    ...options,
  });
  return {
    capture(error, componentStack) {
      if (componentStack !== undefined) captureReactException(error, { componentStack });
      else captureException(error);
    },
  };
}
