import { describe, expect, it } from "vitest";

import standard from "@/test/fixtures/config-standard.json";
import utility from "@/test/fixtures/config-utility.json";
import wallbox from "@/test/fixtures/config-wallbox.json";

import type { ThemeBundle } from "@/api/config";

import { buildTheme } from "./build-theme";

const VARIANTS = ["h1", "h2", "h3", "h4", "h5", "h6", "subtitle1", "subtitle2", "body1", "body2", "caption", "button", "overline"] as const;
const LOADED_WEIGHTS = [400, 700];
const rem = (size: string | number | undefined) => (typeof size === "string" && size.endsWith("rem") ? Number.parseFloat(size) : Number.NaN);

describe.each([
  ["standard", standard],
  ["utility", utility],
  ["wallbox", wallbox],
])("the %s theme", (_kind, config) => {
  const theme = buildTheme(config.theme as unknown as ThemeBundle);

  it("sizes every typography variant the screens use (none of MUI's defaults remain)", () => {
    for (const variant of VARIANTS) {
      const style = theme.typography[variant];
      expect(rem(style.fontSize), variant).toBeGreaterThan(0);
      expect(LOADED_WEIGHTS, `${variant} weight`).toContain(Number(style.fontWeight));
    }
  });

  it("keeps every heading below the page title and above the body", () => {
    const title = rem(theme.typography.h1.fontSize);
    for (const variant of ["h2", "h3", "h4", "h5", "h6"] as const) {
      expect(rem(theme.typography[variant].fontSize), variant).toBeLessThan(title);
      expect(rem(theme.typography[variant].fontSize), variant).toBeGreaterThanOrEqual(rem(theme.typography.body2.fontSize));
    }
  });

  it("gives inputs 16 px text so a phone does not zoom in on focus", () => {
    const overrides = theme.components?.MuiInputBase?.styleOverrides as { input: { fontSize: string } };
    expect(overrides.input.fontSize).toBe("1rem");
  });
});
