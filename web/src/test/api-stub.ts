import { vi } from "vitest";

export type Call = { method: string; path: string; body: unknown; headers: Headers };
type Handler = (call: Call) => { status?: number; body?: unknown; headers?: Record<string, string> };

/** A fetch that answers by "METHOD /api/path/" and records every call. */
export function stubApi(routes: Record<string, Handler>): Call[] {
  const calls: Call[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
      const url = new URL(String(input), "http://autohaus.localhost");
      const method = init.method ?? "GET";
      let body: unknown = init.body;
      if (typeof body === "string") body = JSON.parse(body);
      else if (body instanceof URLSearchParams) body = Object.fromEntries(body);
      const call = { method, path: url.pathname, body, headers: new Headers(init.headers) };
      calls.push(call);
      const handler = routes[`${method} ${url.pathname}`];
      const answer = handler ? handler(call) : { status: 404, body: { detail: "Not found" } };
      return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), {
        status: answer.status ?? 200,
        headers: { "Content-Type": "application/json", ...answer.headers },
      });
    }),
  );
  return calls;
}
