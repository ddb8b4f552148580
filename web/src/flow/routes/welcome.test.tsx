import { fireEvent, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";

import { titleTail } from "@/shared/ui/page-title";
import { currentLocation, partnerConfig, renderAt, setDesktop } from "@/test/render";

describe("Welcome (mobile)", () => {
  beforeEach(() => setDesktop(false));

  it("shows the configured title, intro, four steps and Start", () => {
    const config = partnerConfig("standard");
    renderAt("/", config);

    const texts = config.theme.texts.de;
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent(texts["welcome.title"]);
    expect(screen.getByText(texts["welcome.register"])).toBeInTheDocument();
    expect(screen.getByText(texts["welcome.fourSteps"])).toBeInTheDocument();
    for (const step of ["welcome.step1", "welcome.step2", "welcome.step3", "welcome.step4"]) {
      expect(screen.getByText(texts[step])).toBeInTheDocument();
    }
    expect(screen.getByTestId("welcome-start")).toHaveTextContent("Start");
  });

  it("Start goes to the terms with the query kept", () => {
    renderAt("/?campaign=herbst");

    fireEvent.click(screen.getByTestId("welcome-start"));

    expect(currentLocation()).toBe("/terms?campaign=herbst");
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("Teilnahmebedingungen");
  });

  it("shows 'Was steckt dahinter?' only for a provider-branded partner", () => {
    renderAt("/", partnerConfig("standard", (c) => (c.theme.flags.providerBranded = true)));
    expect(screen.getByText("Was steckt dahinter?")).toBeInTheDocument();
  });

  it("hides the FAQ link otherwise", () => {
    renderAt("/", partnerConfig("standard", (c) => (c.theme.flags.providerBranded = false)));
    expect(screen.queryByText("Was steckt dahinter?")).not.toBeInTheDocument();
  });

  it("sends the B2B path to WelcomeB2B, whose Start leads to LoginB2B", () => {
    renderAt("/b2b?campaign=x");

    expect(screen.getByText("In drei Schritten registrieren")).toBeInTheDocument();
    fireEvent.click(screen.getByTestId("welcome-start"));
    expect(currentLocation()).toBe("/b2b/login?campaign=x");
  });

  it("shows the title dot when configured", () => {
    renderAt("/", partnerConfig("standard", (c) => (c.theme.tokens.titleDot = true)));
    expect(screen.getByTestId("title-dot")).toBeInTheDocument();
    // the dot shares a no-wrap span with the title's last word: it never wraps alone
    const end = screen.getByTestId("title-end");
    expect(end).toHaveTextContent(/^sichern$/);
    expect(end).toContainElement(screen.getByTestId("title-dot"));
    expect(screen.getByTestId("page-title")).toHaveTextContent("Jetzt THG-Prämie sichern");
  });
});

describe("titleTail", () => {
  it("glues a short last word whole and a long one by its last four letters", () => {
    expect(titleTail("Jetzt THG-Prämie sichern")).toEqual(["Jetzt THG-Prämie ", "sichern"]);
    expect(titleTail("Teilnahmebedingungen ")).toEqual(["Teilnahmebedingu", "ngen"]);
    expect(titleTail("FAQ")).toEqual(["", "FAQ"]);
  });
});

describe("wallbox branding", () => {
  it("shows the header image and info text for a wallbox partner only", () => {
    setDesktop(false);
    const wallbox = partnerConfig("wallbox", (c) => {
      c.theme.tokens.headerImage = "data:image/svg+xml;base64,PHN2Zy8+";
      c.theme.tokens.headerInfoText = "Nur für Wallbox-Kunden";
    });
    renderAt("/", wallbox);

    expect(screen.getByTestId("wallbox-header-image")).toHaveAttribute("src", "data:image/svg+xml;base64,PHN2Zy8+");
    expect(screen.getByText("Nur für Wallbox-Kunden")).toBeInTheDocument();
  });
});
