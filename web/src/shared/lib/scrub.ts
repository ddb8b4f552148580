/**
 * What the browser's error reports may carry: no personal data. The rules of the server's logs
 * (platform/config/logs.py, redact) plus what only a browser has: the page's URL and its
 * history, form fields' names, tokens in paths. Used by the lazily loaded Sentry client
 * (sentry-client.ts) as beforeSend and beforeBreadcrumb; pure, so it is tested on its own.
 */

const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;
// Two letters, two check digits, then 11 to 30 letters or digits, in groups or not.
const IBAN = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b/g;
const JWT = /\beyJ[\w-]+\.[\w-]+\.[\w-]+/g;
const BEARER = /\b(Bearer|Token)\s+[\w.~+/=-]+/gi;
// Every value of a query string (a login key, a code, a reset token, an e-mail in a link): the
// names stay, they tell where it happened.
const QUERY_VALUE = /([?&][\w.[\]%-]+=)[^&#\s"'<>]*/g;
// A fragment can hold tokens too (#access_token=...).
const FRAGMENT = /(#)[^\s"'<>]+/g;
// Path segments that are secrets: the segment after invite/verify/reset/confirm (a staff invite
// key, a reset token and user id), and any long token-like segment with a digit in it (no dot:
// a hashed asset file name keeps its name for the stack traces).
const SECRET_AFTER = /(\/(?:invite|verify|reset|confirm)\/)[^/?#\s"'<>]+(?:\/[^/?#\s"'<>.]+)?/gi;
const LONG_SEGMENT = /\/(?=[\w-]*\d)[\w-]{24,}(?=[/?#\s"'<>]|$)/g;

/** Personal data and secrets in a string masked. */
export function scrubText(text: string): string {
  return text
    .replace(JWT, "[token]")
    .replace(BEARER, "$1 [token]")
    .replace(EMAIL, "[email]")
    .replace(IBAN, "[iban]")
    .replace(SECRET_AFTER, "$1[redacted]")
    .replace(LONG_SEGMENT, "/[redacted]")
    .replace(QUERY_VALUE, "$1[redacted]")
    .replace(FRAGMENT, (match) => (match.length > 1 && /[=/]/.test(match) ? "#[redacted]" : match));
}

// Keys whose values are personal or secret wherever they appear in data we attach or Sentry
// collects (extra, contexts, breadcrumb data): the billing and login forms' fields and headers.
const PERSONAL_KEY =
  /mail|iban|bic|name|phone|mobile|street|address|house|zip|postal|city|birth|password|passwd|secret|token|code|otp|key|auth|cookie|session|vin|tax|vat|signature/i;
// Keys of Sentry's own structure that happen to match the rule above but hold no personal data.
const STRUCTURE_KEYS = new Set(["filename", "status_code", "componentStack"]);
// Sentry's own contexts: their names ("Chrome", "Android") stay, their strings are masked.
const SDK_CONTEXTS = new Set(["browser", "os", "device", "culture", "react", "trace", "runtime", "app", "response"]);

type Json = unknown;

/** A value with every string masked and every personal key's value replaced, any depth. */
export function scrubValue(value: Json, depth = 0, keep: ReadonlySet<string> = STRUCTURE_KEYS): Json {
  if (typeof value === "string") return scrubText(value);
  if (depth > 8 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, depth + 1));
  const out: Record<string, Json> = {};
  for (const [key, item] of Object.entries(value as Record<string, Json>)) {
    out[key] = PERSONAL_KEY.test(key) && !keep.has(key) ? "[filtered]" : scrubValue(item, depth + 1);
  }
  return out;
}

const CONTEXT_KEYS = new Set([...STRUCTURE_KEYS, "name"]);

function scrubContexts(contexts: Record<string, Json>): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(contexts).map(([key, value]) => [
      key,
      SDK_CONTEXTS.has(key) ? scrubValue(value, 1, CONTEXT_KEYS) : scrubValue(value, 1),
    ]),
  );
}

type Frame = { filename?: string; abs_path?: string; vars?: Json; [key: string]: Json };
type Exception = { value?: string; stacktrace?: { frames?: Frame[] }; [key: string]: Json };
type Breadcrumb = { message?: string; data?: Record<string, Json>; [key: string]: Json };
export type ReportEvent = {
  message?: string;
  transaction?: string;
  user?: Json;
  request?: { url?: string; query_string?: Json; cookies?: Json; data?: Json; headers?: Record<string, string> };
  exception?: { values?: Exception[] };
  breadcrumbs?: Breadcrumb[];
  extra?: Record<string, Json>;
  contexts?: Record<string, Json>;
  tags?: Record<string, Json>;
  logentry?: { message?: string; params?: Json[] };
  [key: string]: Json;
};

/** A breadcrumb as it may leave the browser (any object shaped like Sentry's). */
export function scrubBreadcrumb<T extends object>(input: T): T {
  const crumb = input as Breadcrumb;
  return {
    ...crumb,
    ...(crumb.message !== undefined && { message: scrubText(crumb.message) }),
    ...(crumb.data !== undefined && { data: scrubValue(crumb.data) as Record<string, Json> }),
  } as T;
}

/** The event as it may leave the browser. */
export function scrubEvent<T extends object>(event: T): T {
  const out: ReportEvent = { ...(event as ReportEvent) };
  delete out.user;
  if (out.message !== undefined) out.message = scrubText(out.message);
  if (out.transaction !== undefined) out.transaction = scrubText(out.transaction);
  if (out.logentry) {
    out.logentry = {
      ...out.logentry,
      ...(out.logentry.message !== undefined && { message: scrubText(out.logentry.message) }),
      ...(out.logentry.params && { params: out.logentry.params.map((param) => scrubValue(param)) }),
    };
  }
  if (out.request) {
    const { url, headers } = out.request;
    // Only the browser's name and version: no cookies, no body, no query string of its own.
    out.request = {
      ...(url !== undefined && { url: scrubText(url) }),
      ...(headers && {
        headers: Object.fromEntries(
          Object.entries(headers)
            .filter(([name]) => /^(user-agent|referer)$/i.test(name))
            .map(([name, value]) => [name, scrubText(value)]),
        ),
      }),
    };
  }
  if (out.exception?.values) {
    out.exception = {
      ...out.exception,
      values: out.exception.values.map((exception) => ({
        ...exception,
        ...(exception.value !== undefined && { value: scrubText(exception.value) }),
        ...(exception.stacktrace?.frames && {
          stacktrace: {
            ...exception.stacktrace,
            // File names stay as they are (the source maps are found by them); local variables
            // are not collected in a browser, but if an integration adds them they are masked.
            frames: exception.stacktrace.frames.map((frame) =>
              frame.vars === undefined ? frame : { ...frame, vars: scrubValue(frame.vars) },
            ),
          },
        }),
      })),
    };
  }
  if (out.breadcrumbs) out.breadcrumbs = out.breadcrumbs.map(scrubBreadcrumb);
  if (out.extra) out.extra = scrubValue(out.extra) as Record<string, Json>;
  if (out.tags) out.tags = scrubValue(out.tags) as Record<string, Json>;
  if (out.contexts) out.contexts = scrubContexts(out.contexts);
  return out as T;
}
