/**
 * The partner area's calls to /api/partner/ (docs/partner-api.md): a session cookie and the
 * CSRF header, never a bearer token (an owner's token stored by the flow in the same browser
 * must not reach a staff call: the server refuses it). A 401 ends the staff session (the
 * area goes to its login); a 403 is the role's refusal, shown where it happened.
 */
import { typedClient } from "@/shared/api/typed";
import { ApiError } from "@/shared/lib/http";

export { ApiError };

export const PARTNER_API = "/api/partner/";

type Options = {
  method?: string;
  json?: unknown;
  /** A multipart body (bulk uploads); the browser sets its Content-Type with the boundary. */
  form?: FormData;
  query?: URLSearchParams | Record<string, string>;
  signal?: AbortSignal;
};

let language = "de";
let unauthenticated: () => void = () => {};
let csrfReady: Promise<void> | null = null;

/** The language the server answers messages in (the area's i18n choice). */
export function setPartnerLanguage(next: string): void {
  language = next;
}

/** What a 401 does (the app sends the person to the login). */
export function onPartnerUnauthenticated(handler: () => void): void {
  unauthenticated = handler;
}

export function csrfToken(): string {
  const match = document.cookie.split("; ").find((part) => part.startsWith("csrftoken="));
  return match ? decodeURIComponent(match.slice("csrftoken=".length)) : "";
}

/** `GET auth/csrf/` once (or again when the cookie is gone), before the first unsafe call. */
export function ensureCsrf(): Promise<void> {
  if (csrfToken()) return Promise.resolve();
  csrfReady ??= fetch(`${PARTNER_API}auth/csrf/`, {
    credentials: "same-origin",
    headers: { Accept: "application/json", "Accept-Language": language },
  })
    .then(() => undefined)
    .finally(() => {
      csrfReady = null;
    });
  return csrfReady;
}

export function partnerUrl(path: string, query?: URLSearchParams | Record<string, string>): string {
  const search = query ? new URLSearchParams(query).toString() : "";
  return `${PARTNER_API}${path.replace(/^\//, "")}${search ? `?${search}` : ""}`;
}

async function parse(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The transport of `partner` below: every call goes through the typed client. */
async function partnerApi(path: string, options: Options = {}): Promise<unknown> {
  const method = options.method ?? (options.json !== undefined || options.form ? "POST" : "GET");
  const headers = new Headers({ Accept: "application/json", "Accept-Language": language });
  if (!["GET", "HEAD"].includes(method)) {
    await ensureCsrf();
    headers.set("X-CSRFToken", csrfToken());
  }
  if (options.json !== undefined) headers.set("Content-Type", "application/json");
  const response = await fetch(partnerUrl(path, options.query), {
    method,
    headers,
    credentials: "same-origin",
    body: options.form ?? (options.json !== undefined ? JSON.stringify(options.json) : undefined),
    signal: options.signal,
  });
  const body = await parse(response);
  if (response.status === 401 && !path.startsWith("auth/")) unauthenticated();
  if (!response.ok) throw new ApiError(response.status, body, Number(response.headers.get("Retry-After")) || null);
  return body;
}

/** The typed calls below /api/partner/ (shared/api/typed.ts): `partner.get("/api/partner/fees/")`. */
export const partner = typedClient(PARTNER_API, partnerApi);

/** The message of a refused call: the server's `detail`, else a text for its status. */
export function errorText(error: unknown, t: (key: string) => string): string {
  if (error instanceof ApiError) {
    if (error.status === 403) return error.detail ?? t("errors.forbidden");
    if (error.status === 401) return t("errors.unauthenticated");
    if (error.detail) return error.detail;
  }
  return t("errors.generic");
}

/** Field errors `{"field": {"error_code", "message"}}` (or `{"field": ["message"]}`) as field → message. */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError) || error.status !== 400 || !error.body || typeof error.body !== "object") return {};
  const result: Record<string, string> = {};
  for (const [field, value] of Object.entries(error.body as Record<string, unknown>)) {
    if (field === "detail") continue;
    if (Array.isArray(value) && value.length) result[field] = String(value[0]);
    else if (value && typeof value === "object") {
      const { message, error_code: code } = value as { message?: unknown; error_code?: unknown };
      if (typeof message === "string") result[field] = message;
      else if (typeof code === "string") result[field] = code;
    }
  }
  return result;
}

/** A form message: our own rules give text keys ("form.required"), the server gives sentences. */
export function messageText(message: string | undefined, t: (key: string) => string): string | undefined {
  if (!message) return undefined;
  return /^[a-z]+\.[A-Za-z_]+$/.test(message) ? t(message) : message;
}
