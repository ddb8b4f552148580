import { describe, expect, it } from "vitest";

import { currentSubdomain, partnerConfigSchema, subdomainOf } from "@/api/config";
import { FIXTURES } from "@/test/render";
import { buildTheme } from "@/theme/build-theme";

describe("the config contract", () => {
  it.each(Object.entries(FIXTURES))("parses the compiler's %s bundle", (_kind, fixture) => {
    const config = partnerConfigSchema.parse(fixture);

    expect(config.theme.kind).toBe(config.kind);
  });

  it.each(Object.entries(FIXTURES))("builds the %s theme from the bundle alone", (_kind, fixture) => {
    const config = partnerConfigSchema.parse(fixture);

    const theme = buildTheme(config.theme);

    expect(theme.palette.primary.main).toBe(config.colors.button);
    expect(theme.typography.fontFamily).toContain(config.font_family);
  });

  it("refuses a bundle that breaks the contract", () => {
    const broken = structuredClone(FIXTURES.standard) as Record<string, unknown>;
    delete broken.theme;

    expect(partnerConfigSchema.safeParse(broken).success).toBe(false);
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
