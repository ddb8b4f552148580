import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import type { PartnerConfig } from "@/api/config";
import { partnerConfig, PartnerProviders } from "@/test/render";

import { logoSize, PartnerLogo } from "./partner-logo";

function show(config: PartnerConfig) {
  render(
    <PartnerProviders config={config}>
      <PartnerLogo />
    </PartnerProviders>,
  );
}

const ICON = "data:image/svg+xml;base64,PHN2Zy8+";
const SIZE = { width: 36, height: 36, textPx: 0 };

describe("the partner logo", () => {
  it("draws a wide logo at the compiler's width, without the name beside it", () => {
    // the demo utility partner's mark: 291 x 48, its name in 17 px (themes.logo)
    const phone = { width: 207, height: 34, textPx: 12 };
    const desktop = { width: 243, height: 40, textPx: 14.2 };
    const config = partnerConfig("utility", (c) => {
      c.theme.assets.logoBox = { aspect: 6.062, textShare: 0.354, wide: true, showName: false, phone, desktop };
    });
    show(config);

    const logo = screen.getByTestId("partner-logo");
    expect(logo).toHaveAttribute("alt", `${config.name} Logo`);
    expect(logoSize(config.theme.assets.logoBox)).toEqual({ width: { xs: 207, sm: 243 }, height: "auto" });
    expect(screen.queryByTestId("partner-name")).toBeNull();
  });

  it("gives a square icon without text a height and writes the name beside it", () => {
    const config = partnerConfig("standard", (c) => {
      c.theme.assets.logo = ICON;
      c.theme.assets.logoBox = { aspect: 1, textShare: 0, wide: false, showName: true, phone: SIZE, desktop: SIZE };
    });
    show(config);

    expect(logoSize(config.theme.assets.logoBox)).toEqual({ height: { xs: 36, sm: 36 }, width: "auto" });
    expect(screen.getByTestId("partner-logo")).toHaveAttribute("alt", "");
    expect(screen.getByTestId("partner-name")).toHaveTextContent(config.name);
  });

  it("writes the name where there is no logo", () => {
    show(partnerConfig("standard", (c) => (c.theme.assets.logo = null)));

    expect(screen.queryByTestId("partner-logo")).toBeNull();
    expect(screen.getByTestId("partner-name")).toBeInTheDocument();
  });
});
