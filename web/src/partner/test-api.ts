/** A fetch stub for the partner area's Vitest tests: records every call with its query and headers. */
import { vi } from "vitest";

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
