import { render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { App } from "@/app/app";
import { ALIASES, PATHS } from "@/shared/lib/routes";
import { currentLocation, FIXTURES, partnerConfig, renderAt, setDesktop } from "@/test/render";

describe("a deactivated partner", () => {
  it.each(["/", "/terms", "/b2b/login", "/billing", "/nowhere"])("shows only FrontendDeactivated on %s", (path) => {
    setDesktop(false);
    renderAt(path, partnerConfig("standard", (c) => (c.frontend_active = false)));

    expect(screen.getByText("Diese Website ist nicht aktiv.")).toBeInTheDocument();
    expect(screen.queryByTestId("welcome-start")).not.toBeInTheDocument();
  });
});

describe("a console preview link's visit", () => {
  it("says 'Vorschau' above the screen, and a live visit does not", () => {
    setDesktop(false);
    renderAt("/", partnerConfig("standard", (c) => (c.preview = true)));

    expect(screen.getByTestId("preview-banner")).toHaveTextContent("Vorschau – diese Fassung der Website ist noch nicht veröffentlicht.");
    expect(screen.getByTestId("welcome-start")).toBeInTheDocument();
  });

  it("is not marked on the live site", () => {
    setDesktop(false);
    renderAt("/", partnerConfig("standard"));

    expect(screen.queryByTestId("preview-banner")).not.toBeInTheDocument();
  });
});

describe("the route table", () => {
  it("has every path of spec section 2 under its name", () => {
    expect(PATHS).toMatchObject({
      Welcome: "/",
      WelcomeB2B: "/b2b/welcome",
      WelcomeDesktop: "/welcome",
      FrontendDeactivated: "/deactivated",
      TermsView: "/terms",
      TermsDetails: "/termsdetails",
      PrivacyDetails: "/privacydetails",
      LoginCA: "/login",
      LoginB2B: "/b2b/login",
      ConfirmView: "/confirm",
      ConfirmB2B: "/b2b/confirm",
      VerifyEmail: "/verify-email",
      VerifyEmailB2B: "/b2b/verify-email",
      CodeValidation: "/codevalidation",
      CodeValidationB2B: "/b2b/codevalidation",
      ImageUploadWrapper: "/upload",
      ImageUploadWrapperB2B: "/b2b/upload",
      Validation: "/validation/:bevRegistrationId?",
      ValidationB2B: "/b2b/validation",
      Billing: "/billing",
      Finish: "/finish",
      FinishB2B: "/b2b/finish",
      Impressum: "/impressum",
    });
    expect(ALIASES.Welcome).toEqual(["/b2b"]);
    expect(ALIASES.Impressum).toEqual(["/b2b/impressum"]);
  });

  it.each([
    ["/codevalidation?email=a%40b.de", "Bestätigungscode"],
    ["/b2b/login", "Anmelden"],
    ["/faq", "Häufige Fragen"],
    ["/termsdetails", "Allgemeine Geschäftsbedingungen"],
    ["/privacydetails", "Datenschutzinformation"],
  ])("renders the public route %s", (path, title) => {
    renderAt(path);
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent(title);
  });

  it("shows Impressum under /b2b/impressum when enabled, else goes to /", () => {
    renderAt("/b2b/impressum", partnerConfig("standard", (c) => Object.assign(c, { show_impressum: true, impressum_details: "<p>Musterweg 1</p>" })));
    expect(screen.getByTestId("impressum-details")).toHaveTextContent("Musterweg 1");
  });

  it.each(["/upload", "/validation/42", "/billing", "/finish", "/b2b/upload", "/b2b/validation", "/b2b/finish"])(
    "sends a visitor without a login from %s to the login or terms, query kept",
    (path) => {
      renderAt(`${path}?campaign=x`);
      expect(currentLocation()).toBe(`${path.includes("/b2b") ? "/b2b/login" : "/terms"}?campaign=x`);
    },
  );
});

describe("loading the configuration", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("calls /api/configs/{subdomain}/ once, plain, and sets the title", async () => {
    setDesktop(false);
    const fetchMock = vi.fn().mockResolvedValue(new Response(JSON.stringify(FIXTURES.standard), { status: 200 }));
    vi.stubGlobal("fetch", fetchMock);

    render(<App hostname="example-standard.localhost" />);

    await waitFor(() => expect(screen.getByTestId("welcome-start")).toBeInTheDocument());
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(url).toBe("/api/configs/example-standard/");
    expect(Object.keys(init.headers as Record<string, string>)).not.toContain("X-SUBDOMAIN");
    expect(document.title).toBe(FIXTURES.standard.page_title);
  });

  it("says so when the partner does not exist", async () => {
    vi.stubGlobal("fetch", vi.fn().mockResolvedValue(new Response("{}", { status: 404 })));

    render(<App hostname="nobody.localhost" />);

    expect(await screen.findByRole("alert")).toHaveTextContent("Diese Seite wurde nicht gefunden.");
  });
});
