/**
 * The API client of spec/registration-flow.md section 7: every call sends X-CLIENT-DOMAIN and
 * X-SUBDOMAIN (except the 'plain' ones), accept-language de and, when stored, the bearer
 * token. A 401 is met by one silent refresh at a time (DESIGN.md: the flow refreshes
 * silently); when that fails the session ends.
 */
import { currentSubdomain } from "@/api/config";
import { typedClient } from "@/shared/api/typed";

import { storeGet, storeSet } from "./session-store";

export type Tokens = { access: string; refresh: string };

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly retryAfter: number | null = null,
  ) {
    super(`API ${status}`);
  }

  /** An upload the user cancelled (apiUpload's signal), not a failure to report. */
  get cancelled(): boolean {
    return this.status === 0 && (this.body as { cancelled?: boolean } | null)?.cancelled === true;
  }

  /** The first message for a field of a {field: [message]} or {field: {error_code}} answer. */
  fieldCode(field: string): string | null {
    const value = (this.body as Record<string, unknown> | null)?.[field];
    if (value && typeof value === "object" && !Array.isArray(value)) {
      const code = (value as { error_code?: unknown }).error_code;
      return typeof code === "string" ? code : null;
    }
    return null;
  }

  /** The first message of a {field: [message]} answer. */
  fieldMessage(field: string): string | undefined {
    const value = (this.body as Record<string, unknown> | null)?.[field];
    return Array.isArray(value) ? String(value[0]) : undefined;
  }

  /** The `detail` of a {"detail": ...} answer. */
  get detail(): string | undefined {
    const detail = (this.body as { detail?: unknown } | null)?.detail;
    return typeof detail === "string" ? detail : undefined;
  }

  get errorCode(): string | null {
    const code = (this.body as { error_code?: unknown } | null)?.error_code;
    return typeof code === "string" ? code : null;
  }
}

type Options = {
  method?: string;
  json?: unknown;
  form?: FormData | URLSearchParams;
  plain?: boolean;
  query?: URLSearchParams | Record<string, string>;
  signal?: AbortSignal;
};

let refreshing: Promise<boolean> | null = null;
let sessionEnded: () => void = () => {};

/** What happens when a refresh fails (the app clears the session and restarts the flow). */
export function onSessionEnded(handler: () => void): void {
  sessionEnded = handler;
}

function headers(options: Options): Headers {
  const result = new Headers({ "Accept-Language": "de", Accept: "application/json" });
  if (!options.plain) {
    result.set("X-CLIENT-DOMAIN", "end_user_portal");
    result.set("X-SUBDOMAIN", currentSubdomain());
  }
  const tokens = storeGet<Tokens>("tokens");
  if (tokens?.access) result.set("Authorization", `Bearer ${tokens.access}`);
  if (options.json !== undefined) result.set("Content-Type", "application/json");
  return result;
}

export function apiUrl(path: string, query?: URLSearchParams | Record<string, string>): string {
  const url = `/api/${path.replace(/^\//, "")}`;
  return query ? `${url}?${new URLSearchParams(query)}` : url;
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

async function refreshTokens(): Promise<boolean> {
  const tokens = storeGet<Tokens>("tokens");
  if (!tokens?.refresh) return false;
  const response = await fetch(apiUrl("auth/user/token/refresh/"), {
    method: "POST",
    headers: { "Content-Type": "application/json", "Accept-Language": "de" },
    body: JSON.stringify({ refresh: tokens.refresh }),
  });
  if (!response.ok) return false;
  const fresh = (await response.json()) as Tokens;
  storeSet("tokens", { access: fresh.access, refresh: fresh.refresh ?? tokens.refresh });
  return true;
}

/** One refresh at a time: concurrent 401s wait for the same one. */
export function refreshOnce(): Promise<boolean> {
  refreshing ??= refreshTokens()
    .catch(() => false)
    .finally(() => {
      refreshing = null;
    });
  return refreshing;
}

export async function api<T>(path: string, options: Options = {}, retried = false): Promise<T> {
  const response = await fetch(apiUrl(path, options.query), {
    method: options.method ?? (options.json !== undefined || options.form ? "POST" : "GET"),
    headers: headers(options),
    body: options.json !== undefined ? JSON.stringify(options.json) : options.form,
    signal: options.signal,
  });
  if (response.status === 401 && !options.plain && !retried && storeGet<Tokens>("tokens")) {
    if (await refreshOnce()) return api<T>(path, options, true);
    sessionEnded();
  }
  const body = await parse(response);
  if (!response.ok) throw new ApiError(response.status, body, Number(response.headers.get("Retry-After")) || null);
  return body as T;
}

/** The typed calls below /api/ (shared/api/typed.ts) with these headers and the silent refresh:
 * `apiClient.get("/api/clients/previous/")`; `{ plain: true }` leaves the partner headers out. */
export const apiClient = typedClient<"/api/", { plain: boolean }>("/api/", (path, options) => api(path, options));

/** A multipart POST with upload progress (fetch has none), same headers and refresh rule. */
function cancelledError(): ApiError {
  return new ApiError(0, { cancelled: true });
}

/** A multipart upload with progress. `signal` cancels it: the request is aborted and the
 * promise rejects with an ApiError of status 0 whose `cancelled` is true. */
function apiUpload<T>(path: string, form: FormData, onProgress: (fraction: number) => void, signal?: AbortSignal, retried = false): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const request = new XMLHttpRequest();
    if (signal?.aborted) {
      reject(cancelledError());
      return;
    }
    signal?.addEventListener("abort", () => request.abort(), { once: true });
    request.onabort = () => reject(cancelledError());
    request.open("POST", apiUrl(path));
    headers({}).forEach((value, key) => request.setRequestHeader(key, value));
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    request.onerror = () => reject(new ApiError(0, null));
    request.onload = () => {
      let body: unknown = null;
      try {
        body = request.responseText ? JSON.parse(request.responseText) : null;
      } catch {
        body = request.responseText;
      }
      if (request.status === 401 && !retried && storeGet<Tokens>("tokens")) {
        void refreshOnce().then((ok) => {
          if (ok) apiUpload<T>(path, form, onProgress, signal, true).then(resolve, reject);
          else {
            sessionEnded();
            reject(new ApiError(401, body));
          }
        });
        return;
      }
      if (request.status >= 200 && request.status < 300) resolve(body as T);
      else reject(new ApiError(request.status, body, Number(request.getResponseHeader("Retry-After")) || null));
    };
    request.send(form);
  });
}

/** The typed multipart uploads below /api/ with progress: `uploadClient.post(path, { form, onProgress })`. */
export const uploadClient = typedClient<"/api/", { onProgress: (fraction: number) => void }>("/api/", (path, options) => {
  if (!(options.form instanceof FormData)) throw new Error(`${path}: an upload needs a multipart form`);
  return apiUpload(path, options.form, options.onProgress ?? (() => {}), options.signal);
});
