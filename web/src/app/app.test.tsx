import { render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { App } from "@/app/app";
import { ALIASES, PATHS } from "@/app/routes";
import { FIXTURES, partnerConfig, renderAt, setDesktop } from "@/test/render";

describe("a deactivated partner", () => {
  it.each(["/", "/terms", "/b2b/login", "/billing", "/nowhere"])("shows only FrontendDeactivated on %s", (path) => {
    setDesktop(false);
    renderAt(path, partnerConfig("standard", (c) => (c.frontend_active = false)));

    expect(screen.getByText("Diese Website ist nicht aktiv.")).toBeInTheDocument();
    expect(screen.queryByTestId("welcome-start")).not.toBeInTheDocument();
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
    ["/validation/42", "Validation"],
    ["/b2b/impressum", "Impressum"],
    ["/codevalidation", "CodeValidation"],
  ])("renders %s as %s", (path, name) => {
    renderAt(path);
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent(name);
  });
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
