/**
 * GET /api/configs/{subdomain}/: the partner configuration (spec/registration-flow.md
 * section 3) plus the bundle compiled by the server's theme compiler. The types are the
 * server's (tenants.schemas.PartnerConfigOut, generated into shared/api/schema.d.ts), and so
 * is the check: tests/api/test_configs.py holds real answers, and the fixtures in
 * src/test/fixtures and storybook/fixtures, to them. The browser does not check the answer
 * again, as no other call does; the server fills in every field (a configuration saved
 * before a field existed answers its default).
 */
import { typedClient, type Schemas } from "@/shared/api/typed";

export type PartnerConfig = Schemas["PartnerConfigOut"];
export type ThemeBundle = Schemas["ThemeBundleOut"];

export class ConfigNotFound extends Error {}

/** The subdomain is the first label of the host name (spec section 1). */
export function subdomainOf(hostname: string): string {
  return hostname.split(".")[0]?.toLowerCase() ?? "";
}

/** This site's partner: named by the server in index.html (a custom domain such as
 * thg.stadtwerke.example has no subdomain in its name), else the host's first label. */
export function currentSubdomain(doc: Document = document, hostname: string = window.location.hostname): string {
  const named = doc.querySelector<HTMLMetaElement>('meta[name="thg-partner"]')?.content.trim().toLowerCase();
  return named || subdomainOf(hostname);
}

/** The configuration call boot.ts started while the app's scripts loaded, if it asked for
 * this URL; taken once (a later load asks again). */
export function takeEarlyConfigCall(url: string, win: Window = window): Promise<Response> | undefined {
  const early = win.thgConfigCall;
  win.thgConfigCall = null; // asked: boot.ts, if it runs after all, asks no more
  return early && early.url === url ? early.response : undefined;
}

/** The config call's transport: plain, no partner headers, JSON content type, German (spec
 * section 7), as boot.ts's early call, whose answer it takes when that asked for the same URL. */
const configCalls = typedClient("/api/configs/", async (path, { query, signal }) => {
  const parameters = Object.entries(query instanceof URLSearchParams ? Object.fromEntries(query) : (query ?? {}));
  const url =
    `/api/configs/${path}` + parameters.map(([key, value], i) => `${i ? "&" : "?"}${key}=${encodeURIComponent(value)}`).join("");
  const response = await (takeEarlyConfigCall(url) ??
    fetch(url, { headers: { "Content-Type": "application/json", "Accept-Language": "de" }, signal }));
  if (response.status === 404) throw new ConfigNotFound(decodeURIComponent(path.split("/")[0] ?? ""));
  if (!response.ok) throw new Error(`config call failed with ${response.status}`);
  return response.json();
});

export async function fetchPartnerConfig(subdomain: string, signal?: AbortSignal): Promise<PartnerConfig> {
  // A console preview link's token goes along (boot.ts sends the same): the console frames the
  // preview beside its form, and a framed page on another site gets no cookie.
  const preview = new URLSearchParams(window.location.search).get("thg_preview");
  return configCalls.get("/api/configs/{subdomain}/", {
    path: { subdomain },
    query: preview ? { thg_preview: preview } : undefined,
    signal,
  });
}
