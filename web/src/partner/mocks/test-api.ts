/** The partner area's Vitest tests: a fetch stub recording every call with its query and
 * headers, and the setup every test file of the area shares. */
import { configure } from "@testing-library/react";
import { afterEach, beforeAll, beforeEach, vi } from "vitest";

import { preloadAllScreens } from "@/shared/lib/lazy-screen";
import { setDesktop } from "@/test/render";

export type PartnerCall = { method: string; path: string; query: URLSearchParams; body: unknown; headers: Headers };
type Answer = { status?: number; body?: unknown; headers?: Record<string, string> };
export type PartnerRoutes = Record<string, (call: PartnerCall) => Answer>;

/** A fetch answering "METHOD /api/partner/path/" (query ignored for the match), recording calls. */
export function stubPartnerApi(routes: PartnerRoutes): PartnerCall[] {
  const calls: PartnerCall[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
      const url = new URL(String(input), "http://autohaus.localhost");
      const method = init.method ?? "GET";
      const body = typeof init.body === "string" ? JSON.parse(init.body) : init.body;
      const call = { method, path: url.pathname, query: url.searchParams, body, headers: new Headers(init.headers) };
      calls.push(call);
      const handler = routes[`${method} ${url.pathname}`];
      const answer = handler ? handler(call) : { status: 404, body: { detail: "Nicht gefunden." } };
      return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), {
        status: answer.status ?? 200,
        headers: { "Content-Type": "application/json", ...answer.headers },
      });
    }),
  );
  return calls;
}

const NO_CSRF = "csrftoken=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/";

/** Registers what every test file of the partner area needs around its tests: the area's lazy
 * screens (grid, charts) loaded once, a desktop, no stored state, a CSRF cookie as given (none
 * by default), stubs removed after each test. Screens take their time on a busy 2-core machine. */
export function partnerTestSetup({ csrfCookie = NO_CSRF }: { csrfCookie?: string } = {}): void {
  configure({ asyncUtilTimeout: 8000 });
  beforeAll(async () => {
    await preloadAllScreens();
  }, 180_000);
  beforeEach(() => {
    setDesktop(true);
    window.localStorage.clear();
    document.cookie = csrfCookie;
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });
}

/** One page of a list answer, as the partner API pages. */
export const listPage = (items: unknown[], count = items.length) => ({
  // count_exact: the applications list's flag, always sent by the server (false: an estimate);
  // the other lists do not read it
  body: { count, count_exact: true, page: 1, page_size: 25, results: items },
});

/** The last recorded call to a path (and method). */
export const lastCall = (calls: PartnerCall[], path: string, method?: string) =>
  [...calls].reverse().find((call) => call.path === path && (!method || call.method === method)) as PartnerCall;
