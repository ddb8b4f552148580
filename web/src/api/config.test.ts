import { afterEach, describe, expect, it, vi } from "vitest";

import { ConfigNotFound, currentSubdomain, fetchPartnerConfig, subdomainOf } from "@/api/config";
import { FIXTURES, partnerConfig } from "@/test/render";
import { buildTheme } from "@/theme/build-theme";

// The answer's shape is the server's type (tenants.schemas.PartnerConfigOut, generated into
// shared/api/schema.d.ts); tests/api/test_configs.py holds real answers and these fixtures to it.
describe("the config call", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    window.history.replaceState(null, "", "/");
  });

  it.each(Object.keys(FIXTURES) as (keyof typeof FIXTURES)[])("builds the %s theme from the bundle alone", (kind) => {
    const config = partnerConfig(kind);

    const theme = buildTheme(config.theme);

    expect(config.theme.kind).toBe(config.kind);
    expect(theme.palette.primary.main).toBe(config.colors.button);
    expect(theme.typography.fontFamily).toContain(config.font_family);
  });

  it("sends a preview link's token along, as boot.ts does, and answers the server's configuration", async () => {
    const fetchMock = vi.fn(() => Promise.resolve(new Response(JSON.stringify(FIXTURES.utility), { status: 200 })));
    vi.stubGlobal("fetch", fetchMock);
    window.history.replaceState(null, "", "/?thg_preview=abc:1x-_2");

    const config = await fetchPartnerConfig("stadtwerk");

    expect(config.kind).toBe("utility");
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe("/api/configs/stadtwerk/?thg_preview=abc%3A1x-_2");
    expect(init.headers).toEqual({ "Content-Type": "application/json", "Accept-Language": "de" });
  });

  it("tells an unknown partner from a failed call", async () => {
    vi.stubGlobal("fetch", vi.fn(() => Promise.resolve(new Response("{}", { status: 404 }))));
    await expect(fetchPartnerConfig("nobody")).rejects.toBeInstanceOf(ConfigNotFound);

    vi.stubGlobal("fetch", vi.fn(() => Promise.resolve(new Response("{}", { status: 502 }))));
    const failed = fetchPartnerConfig("autohaus");
    await expect(failed).rejects.toThrow("config call failed with 502");
    await expect(failed).rejects.not.toBeInstanceOf(ConfigNotFound);
  });

  it("takes the subdomain from the first label of the host", () => {
    expect(subdomainOf("Autohaus.localhost")).toBe("autohaus");
    expect(subdomainOf("stadtwerk.thg.example.de")).toBe("stadtwerk");
  });

  it("takes the partner the server named in the page first (custom domains)", () => {
    const page = document.implementation.createHTMLDocument();
    page.head.innerHTML = '<meta name="thg-partner" content="stadtwerk" />';
    expect(currentSubdomain(page, "thg.stadtwerke-musterstadt.example")).toBe("stadtwerk");
    page.head.innerHTML = '<meta name="thg-partner" content="" />';
    expect(currentSubdomain(page, "autohaus.localhost")).toBe("autohaus");
  });
});
