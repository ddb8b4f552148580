import { act, fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { BUSY_RETRIES, scanErrorMessage } from "@/flow/components/use-scan-upload";
import { type Checklist, EMPTY_CHECKLIST } from "@/flow/state/flow-state";
import { browser } from "@/shared/lib/browser";
import { ApiError } from "@/shared/lib/http";
import { rememberedEmail, storeGet, storeSet } from "@/shared/lib/session-store";
import { scanErrorBody } from "@/stories/handlers";
import { stubApi } from "@/test/api-stub";
import { currentLocation, partnerConfig, renderAt, setDesktop } from "@/test/render";

const TOKENS = { access: "access-1", refresh: "refresh-1" };
const CHECKLIST: Checklist = { ...EMPTY_CHECKLIST, currentYear: true, terms: true };

function loggedIn(extra: Record<string, unknown> = {}) {
  storeSet("tokens", TOKENS);
  storeSet("authenticated", true);
  storeSet("checklist", CHECKLIST);
  for (const [key, value] of Object.entries(extra)) storeSet(key as Parameters<typeof storeSet>[0], value);
}

beforeEach(() => setDesktop(false));
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  vi.useRealTimers();
});

/** A returning owner's last billing data, as GET /api/clients/previous/ answers (IBAN masked). */
const PREVIOUS_BILLING = {
  gender: "",
  first_name: "Anna",
  last_name: "Muster",
  street_name: "Hauptstraße",
  street_number: "1",
  postal_code: "10115",
  city: "Berlin",
  account_name: "Anna Muster",
  charge_card: "",
  vehicle_owner_type: "private",
  is_vat_mandatory: null,
  name_of_business: "",
  vat_number: "",
  account_iban_masked: "DE89 **** **** **** **30 00",
  has_stored_iban: true,
};

describe("TermsView", () => {
  it("shows each rule's message and goes to LoginCA with the checklist stored", async () => {
    renderAt("/terms?campaign=x");
    fireEvent.click(screen.getByTestId("terms-submit"));
    expect(await screen.findByTestId("error-currentYear")).toHaveTextContent(
      "Bitte akzeptieren Sie den Zeitraum um fortzufahren.",
    );
    // No year chosen yet: the current-year terms rule stays silent (spec section 5).
    expect(screen.queryByTestId("error-terms")).toBeNull();
    expect(screen.getByTestId("check-privacy")).toBeChecked();
    expect(screen.getByTestId("check-privacy")).toBeDisabled();

    fireEvent.click(screen.getByTestId("check-currentYear"));
    fireEvent.click(screen.getByTestId("terms-submit"));
    expect(await screen.findByTestId("error-terms")).toHaveTextContent(
      "Akzeptieren der AGB für das aktuelle Jahr ist erforderlich.",
    );
    fireEvent.click(screen.getByTestId("check-terms"));
    fireEvent.click(screen.getByTestId("terms-submit"));

    await waitFor(() => expect(currentLocation()).toBe("/login?campaign=x"));
    expect(storeGet<Checklist>("checklist")).toMatchObject({ currentYear: true, terms: true, privacy: true });
  });

  it("in the portal's new registration (eup=1) needs no year and registers the current one", async () => {
    renderAt(
      "/terms?eup=1",
      partnerConfig("standard", (c) => (c.end_user_portal_enable = true)),
    );
    fireEvent.click(screen.getByTestId("check-terms"));
    fireEvent.click(screen.getByTestId("terms-submit"));
    await waitFor(() => expect(currentLocation()).toBe("/login?eup=1"));
    expect(storeGet<Checklist>("checklist")).toMatchObject({ currentYear: true, terms: true, privacy: true });
  });

  it("disables Weiter while a no-allowed-years message is configured", () => {
    renderAt(
      "/terms",
      partnerConfig(
        "standard",
        (c) => (c.qa_create_choices.no_allowed_registration_years_message = "Derzeit keine Registrierung möglich."),
      ),
    );
    expect(screen.getByTestId("no-years-message")).toHaveTextContent("Derzeit keine Registrierung möglich.");
    expect(screen.getByTestId("terms-submit")).toBeDisabled();
  });
});

describe("LoginCA and LoginB2B", () => {
  it("send a visitor without accepted terms to TermsView", () => {
    renderAt("/login?campaign=x");
    expect(currentLocation()).toBe("/terms?campaign=x");
  });

  it("prefills the e-mail from the query and goes to CodeValidation with otp", async () => {
    storeSet("checklist", CHECKLIST);
    const calls = stubApi({ "POST /api/auth/registration/otp/": () => ({ body: { email: "anna@example.org" } }) });
    renderAt(
      "/login?email=Anna%40Example.org&campaign=herbst",
      partnerConfig("standard", (c) => (c.authentication_flow = "otp")),
    );
    expect(screen.getByTestId("login-email")).toHaveValue("Anna@Example.org");
    fireEvent.click(screen.getByTestId("login-submit"));
    await waitFor(() => expect(currentLocation()).toBe("/codevalidation?email=anna%40example.org&campaign=herbst"));
    expect(calls[0]!.body).toMatchObject({ email: "anna@example.org", partner: "example-standard" });
    expect(calls[0]!.headers.has("X-SUBDOMAIN")).toBe(false); // a plain call
  });

  it("sends an owner who is logged in already (a second vehicle) straight to the upload", () => {
    loggedIn();
    renderAt("/login?campaign=x");
    expect(currentLocation()).toBe("/upload?campaign=x");
  });

  it("fills in the address of this device's last login for a returning owner (a new tab, a new visit)", async () => {
    storeSet("checklist", CHECKLIST);
    stubApi({ "POST /api/auth/registration/otp/verify/": () => ({ body: TOKENS }) });
    renderAt("/codevalidation?email=anna%40example.org");
    fireEvent.change(screen.getByTestId("code-input"), { target: { value: "123456" } });
    await waitFor(() => expect(rememberedEmail()).toBe("anna@example.org"));
    window.sessionStorage.clear(); // the next visit: a new browser session
    storeSet("checklist", CHECKLIST);
    renderAt("/login");
    expect(screen.getByTestId("login-email")).toHaveValue("anna@example.org");
  });

  it("sends the link with the checklist and campaign in verify_email_url and goes to Confirm", async () => {
    storeSet("checklist", { ...CHECKLIST, emailPromotion: true });
    const calls = stubApi({ "POST /api/auth/registration/email/": () => ({ body: { email: "anna@example.org" } }) });
    renderAt("/login?campaign=herbst");
    fireEvent.change(screen.getByTestId("login-email"), { target: { value: "anna@example.org" } });
    fireEvent.click(screen.getByTestId("login-submit"));
    await waitFor(() => expect(currentLocation()).toBe("/confirm?campaign=herbst"));
    const url = new URL((calls[0]!.body as { verify_email_url: string }).verify_email_url);
    expect(url.pathname).toBe("/verify-email");
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      campaign: "herbst",
      current_year: "true",
      next_year: "false",
      email_promotion: "true",
    });
    expect(screen.getByTestId("confirm-text")).toHaveTextContent("anna@example.org");
  });

  it("shows the configured invalid_login text when the call fails", async () => {
    storeSet("checklist", CHECKLIST);
    stubApi({
      "POST /api/auth/registration/email/": () => ({
        status: 400,
        body: { email: ["Bitte geben Sie eine gültige E-Mail-Adresse ein."] },
      }),
    });
    renderAt("/login");
    fireEvent.change(screen.getByTestId("login-email"), { target: { value: "anna@example.org" } });
    fireEvent.click(screen.getByTestId("login-submit"));
    expect(await screen.findByTestId("login-error")).toHaveTextContent(
      "Die Anmeldung ist fehlgeschlagen. Bitte versuchen Sie es erneut.",
    );
  });

  it("adds the seconds to wait to the invalid_login text when a mail was sent within the minute", async () => {
    storeSet("checklist", CHECKLIST);
    stubApi({
      "POST /api/auth/registration/email/": () => ({
        status: 429,
        body: { detail: "Bitte warten.", error_code: "LOGIN003" },
        headers: { "Retry-After": "42" },
      }),
    });
    renderAt("/login");
    fireEvent.change(screen.getByTestId("login-email"), { target: { value: "anna@example.org" } });
    fireEvent.click(screen.getByTestId("login-submit"));
    expect(await screen.findByTestId("login-error")).toHaveTextContent(
      "Die Anmeldung ist fehlgeschlagen. Bitte versuchen Sie es erneut. Bitte warten Sie 42 Sekunden, bevor Sie eine neue E-Mail anfordern.",
    );
  });

  it("refuses a bad address before any call", async () => {
    storeSet("checklist", CHECKLIST);
    const calls = stubApi({});
    renderAt("/login");
    fireEvent.change(screen.getByTestId("login-email"), { target: { value: "anna@" } });
    fireEvent.click(screen.getByTestId("login-submit"));
    expect(await screen.findByText("Bitte geben Sie eine gültige E-Mail-Adresse ein.")).toBeInTheDocument();
    // Announced to screen readers as it appears, and tied to its field.
    expect(screen.getByRole("alert")).toHaveTextContent("Bitte geben Sie eine gültige E-Mail-Adresse ein.");
    expect(screen.getByTestId("login-email")).toHaveAccessibleDescription(
      "Bitte geben Sie eine gültige E-Mail-Adresse ein.",
    );
    expect(calls).toHaveLength(0);
  });

  it("LoginB2B needs no checklist", () => {
    renderAt("/b2b/login");
    expect(currentLocation()).toBe("/b2b/login");
    expect(screen.getByTestId("login-submit")).toHaveTextContent("Login und weiter");
  });
});

describe("CodeValidation", () => {
  it("shows 'Ungültiger Code' for a wrong code", async () => {
    stubApi({
      "POST /api/auth/registration/otp/verify/": () => ({
        status: 400,
        body: { detail: "Ungültiger Code", error_code: "OTP001" },
      }),
    });
    renderAt("/codevalidation?email=anna%40example.org");
    expect(screen.getByTestId("code-input")).toHaveFocus();
    fireEvent.change(screen.getByTestId("code-input"), { target: { value: "12a34 56" } });
    expect(await screen.findByText("Ungültiger Code")).toBeInTheDocument();
    expect(storeGet("tokens")).toBeNull();
  });

  it("stores the tokens and goes to the upload, query kept", async () => {
    const calls = stubApi({ "POST /api/auth/registration/otp/verify/": () => ({ body: TOKENS }) });
    renderAt("/b2b/codevalidation?email=anna%40example.org&campaign=x");
    fireEvent.change(screen.getByTestId("code-input"), { target: { value: "123456" } });
    await waitFor(() => expect(currentLocation()).toBe("/b2b/upload?email=anna%40example.org&campaign=x"));
    expect(calls[0]!.body).toEqual({ otp_code: "123456", email: "anna@example.org" });
    expect(storeGet("tokens")).toEqual(TOKENS);
  });
});

describe("VerifyEmail", () => {
  it("verifies the key once, restores the checklist from the link and goes to the upload without the key", async () => {
    const calls = stubApi({ "POST /api/auth/registration/email/verify/": () => ({ body: TOKENS }) });
    renderAt(
      "/verify-email?campaign=herbst&current_year=true&next_year=false&email_promotion=true&next_year_terms=false&freeText=false&key=k1",
    );
    await waitFor(() =>
      expect(currentLocation()).toBe(
        "/upload?campaign=herbst&current_year=true&next_year=false&email_promotion=true&next_year_terms=false&freeText=false",
      ),
    );
    expect(calls.filter((call) => call.path.endsWith("/email/verify/"))).toHaveLength(1);
    expect(storeGet<Checklist>("checklist")).toMatchObject({
      currentYear: true,
      terms: true,
      emailPromotion: true,
      privacy: true,
    });
    expect(storeGet("campaign")).toBe("herbst");
  });

  it("goes back to Welcome (or /b2b) when the key fails", async () => {
    stubApi({ "POST /api/auth/registration/email/verify/": () => ({ status: 400, body: { error_code: "LINK001" } }) });
    vi.spyOn(console, "warn").mockImplementation(() => {});
    renderAt("/b2b/verify-email?key=spent");
    await waitFor(() => expect(currentLocation()).toBe("/b2b/welcome"));
  });
});

describe("the upload", () => {
  it("maps each scan error of section 8 with its numbers", () => {
    const t = (key: string) => partnerConfig().theme.texts.de[key] ?? key;
    const constraints = { min_size: 500, max_pixels: 40000000 };
    const error = (body: unknown) => new ApiError(400, body);
    expect(
      scanErrorMessage(
        t,
        error({ zlb_scan: { error_code: "IMGC001", details: { given_width: 320, given_height: 240 } } }),
        constraints,
      ),
    ).toBe(
      "Die Bildauflösung muss größer als 500x500 Pixel sein. Insgesamt darf das Bild nicht mehr als 40.000.000 Pixel haben. Das hochgeladene Bild hat folgende Auflösung: 320x240 Pixel",
    );
    // the story's answer is the server's: both limits named, even before system_constraints has come
    expect(scanErrorMessage(t, error(scanErrorBody("IMGC001")), undefined)).toBe(
      "Die Bildauflösung muss größer als 500x500 Pixel sein. Insgesamt darf das Bild nicht mehr als 25.000.000 Pixel haben. Das hochgeladene Bild hat folgende Auflösung: 320x240 Pixel",
    );
    expect(scanErrorMessage(t, error({ zlb_scan: { error_code: "IMGC002" } }), constraints)).toBe(
      "Dieses Bild konnte nicht als Zulassungsbescheinigung Teil 1. (Fahrzeugschein) identifiziert werden.",
    );
    expect(scanErrorMessage(t, error({ zlb_scan: { error_code: "IMGC003" } }), constraints)).toBe(
      "Bild nicht als ZLB klassifiziert.",
    );
    expect(scanErrorMessage(t, error({ zlb_scan: { error_code: "IMGC005" } }), constraints)).toContain("10 MB");
    // a vehicle the reader surely read as not eligible (registrations.eligibility): the reason, not "try again"
    expect(scanErrorMessage(t, error(scanErrorBody("IMGC008")), constraints)).toContain(
      "kein reines Elektrofahrzeug",
    );
    expect(scanErrorMessage(t, error(scanErrorBody("IMGC009")), constraints)).toContain("L1e, L2e und L6e");
    expect(scanErrorMessage(t, error({ zlb_scan: { error_code: "IMGC010" } }), constraints)).toContain(
      "Für diese Fahrzeugklasse (Feld J) gibt es keine THG-Quote.",
    );
    expect(scanErrorMessage(t, error({}), constraints)).toBe(
      "Leider konnte unser Algorithmus keinen zulässigen Fahrzeugschein erkennen.",
    );
    expect(
      scanErrorMessage(
        t,
        new ApiError(429, { detail: "Zu viele Uploads.", error_code: "UPLOAD001" }, 240),
        constraints,
      ),
    ).toBe("Zu viele Uploads in kurzer Zeit. Bitte versuchen Sie es in 4 Min. erneut.");
    expect(scanErrorMessage(t, new ApiError(413, { detail: "Zu groß." }), constraints)).toContain("10 MB");
    expect(scanErrorMessage(t, error({ zlb_scan: { error_code: "IMGC999" } }), constraints)).toBe(
      "Leider konnte unser Algorithmus keinen zulässigen Fahrzeugschein erkennen.",
    );
  });

  it("says 'Dokument wird geprüft' once every byte is sent, and cancels without counting a failure", async () => {
    loggedIn();
    setDesktop(true);
    stubApi({
      "GET /api/system_constraints/": () => ({
        body: { bev_registration: { zlb_scan_constraints: { min_size: 500, max_pixels: 40000000 } } },
      }),
    });
    const sent: FakeUpload[] = [];
    class FakeUpload {
      upload: { onprogress: ((event: { lengthComputable: boolean; loaded: number; total: number }) => void) | null } = {
        onprogress: null,
      };
      onabort: (() => void) | null = null;
      onload: (() => void) | null = null;
      onerror: (() => void) | null = null;
      open() {}
      setRequestHeader() {}
      send() {
        sent.push(this);
      }
      abort() {
        this.onabort?.();
      }
    }
    vi.stubGlobal("XMLHttpRequest", FakeUpload);
    renderAt("/upload");
    const file = new File([new Uint8Array(2048)], "zlb.jpg", { type: "image/jpeg" });
    fireEvent.change(screen.getByTestId("upload-input"), { target: { files: [file] } });
    await waitFor(() => expect(sent).toHaveLength(1));
    act(() => sent[0]!.upload.onprogress?.({ lengthComputable: true, loaded: 1024, total: 2048 }));
    expect(screen.getByTestId("upload-state")).toHaveTextContent("Wird hochgeladen … 50 %");
    act(() => sent[0]!.upload.onprogress?.({ lengthComputable: true, loaded: 2048, total: 2048 }));
    expect(screen.getByTestId("upload-state")).toHaveTextContent("Dokument wird geprüft …");
    fireEvent.click(screen.getByTestId("upload-cancel"));
    expect(await screen.findByTestId("scan-error")).toHaveTextContent("Der Upload wurde abgebrochen.");
    expect(screen.queryByTestId("upload-progress")).toBeNull();
    expect(storeGet("uploadFailures") ?? 0).toBe(0);
    expect(screen.getByTestId("upload-choose")).toBeEnabled();
  });

  it("says why a vehicle has no quota and does not count it towards skipping the document check", async () => {
    loggedIn();
    setDesktop(true);
    stubApi({
      "GET /api/system_constraints/": () => ({
        body: { bev_registration: { zlb_scan_constraints: { min_size: 500, max_pixels: 40000000 } } },
      }),
    });
    const sent: RefusedUpload[] = [];
    class RefusedUpload {
      upload = { onprogress: null };
      status = 0;
      responseText = "";
      onload: (() => void) | null = null;
      open() {}
      setRequestHeader() {}
      getResponseHeader() {
        return null;
      }
      send() {
        sent.push(this);
      }
      answer(status: number, body: unknown) {
        this.status = status;
        this.responseText = JSON.stringify(body);
        this.onload?.();
      }
    }
    vi.stubGlobal("XMLHttpRequest", RefusedUpload);
    renderAt("/upload");
    const file = new File([new Uint8Array(2048)], "zlb.jpg", { type: "image/jpeg" });
    for (let attempt = 1; attempt <= 3; attempt++) {
      fireEvent.change(screen.getByTestId("upload-input"), { target: { files: [file] } });
      await waitFor(() => expect(sent).toHaveLength(attempt));
      act(() => sent[attempt - 1]!.answer(400, scanErrorBody("IMGC008")));
      expect(await screen.findByTestId("scan-error")).toHaveTextContent("kein reines Elektrofahrzeug");
    }
    expect(storeGet("uploadFailures") ?? 0).toBe(0);
  });

  it("asks a busy document check again by itself, then says it is busy without counting a failure", async () => {
    loggedIn();
    setDesktop(true);
    stubApi({
      "GET /api/system_constraints/": () => ({
        body: { bev_registration: { zlb_scan_constraints: { min_size: 500, max_pixels: 40000000 } } },
      }),
    });
    const busy = {
      detail: "Die Dokumentenprüfung ist gerade ausgelastet. Bitte versuchen Sie es in wenigen Sekunden erneut.",
      error_code: "UPLOAD002",
    };
    const sent: BusyUpload[] = [];
    class BusyUpload {
      upload = { onprogress: null };
      status = 0;
      responseText = "";
      onload: (() => void) | null = null;
      open() {}
      setRequestHeader() {}
      getResponseHeader(name: string) {
        return name === "Retry-After" ? "0.01" : null;
      }
      send() {
        sent.push(this);
      }
      answer(status: number, body: unknown) {
        this.status = status;
        this.responseText = JSON.stringify(body);
        this.onload?.();
      }
    }
    vi.stubGlobal("XMLHttpRequest", BusyUpload);
    renderAt("/upload");
    const file = new File([new Uint8Array(2048)], "zlb.jpg", { type: "image/jpeg" });
    fireEvent.change(screen.getByTestId("upload-input"), { target: { files: [file] } });
    for (let attempt = 1; attempt <= BUSY_RETRIES + 1; attempt++) {
      await waitFor(() => expect(sent).toHaveLength(attempt));
      act(() => sent[attempt - 1]!.answer(503, busy));
    }
    expect(await screen.findByTestId("scan-error")).toHaveTextContent(busy.detail);
    expect(storeGet("uploadFailures") ?? 0).toBe(0);
    // once the check has room again, a retry ends at the validation
    fireEvent.change(screen.getByTestId("upload-input"), { target: { files: [file] } });
    await waitFor(() => expect(sent).toHaveLength(BUSY_RETRIES + 2));
    act(() => sent[BUSY_RETRIES + 1]!.answer(503, busy));
    await waitFor(() => expect(sent).toHaveLength(BUSY_RETRIES + 3));
    act(() => sent[BUSY_RETRIES + 2]!.answer(201, [{ id: 77, sequence: 100077, uuid: "u-77" }]));
    await waitFor(() => expect(currentLocation()).toBe("/validation/77"));
  });

  it("shows the tutorial on a phone: four steps, then 'Scan starten' with the camera", () => {
    loggedIn();
    stubApi({
      "GET /api/system_constraints/": () => ({
        body: { bev_registration: { zlb_scan_constraints: { min_size: 500, max_pixels: 40000000 } } },
      }),
    });
    renderAt("/upload");
    const pictures = [screen.getByTestId("tutorial-image").getAttribute("src")];
    for (let step = 0; step < 3; step++) {
      fireEvent.click(screen.getByTestId("tutorial-next"));
      pictures.push(screen.getByTestId("tutorial-image").getAttribute("src"));
    }
    expect(new Set(pictures).size).toBe(4); // a picture of its own for each step
    expect(screen.queryByTestId("tutorial-next")).not.toBeInTheDocument();
    expect(screen.getByTestId("tutorial-scan")).toHaveTextContent("Scan starten");
    expect(screen.getByTestId("scan-input")).toHaveAttribute("capture", "environment");
    expect(screen.getByTestId("scan-input")).toHaveAttribute("accept", "image/*,application/pdf");
    act(() => window.dispatchEvent(new PopStateEvent("popstate")));
    expect(screen.getByTestId("tutorial-next")).toBeInTheDocument();
  });

  it("shows the upload view on a desktop; the image turns into a video after 2 s", () => {
    vi.useFakeTimers();
    setDesktop(true);
    loggedIn();
    stubApi({});
    renderAt("/upload");
    expect(screen.getByTestId("upload-image")).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(2000));
    expect(screen.getByTestId("upload-video")).toBeInTheDocument();
    expect(screen.getByTestId("upload-input")).toHaveAttribute("accept", "image/*,application/pdf");
  });

  it("goes to Billing once the registration is complete", () => {
    loggedIn({ bevRegistrationCompleted: true });
    renderAt("/upload");
    expect(currentLocation()).toBe("/billing");
  });
});

describe("Validation", () => {
  it("is reachable only after a successful upload", () => {
    loggedIn();
    renderAt("/validation/7");
    expect(currentLocation()).toBe("/upload");
  });

  it("locks the registration and goes to Billing", async () => {
    loggedIn({ imageSuccess: true, bevRegistrationId: 7, quoteId: 100001 });
    const calls = stubApi({ "POST /api/bev_registrations/7/lock/": () => ({ body: { id: 7 } }) });
    renderAt("/validation/7");
    expect(screen.getByText("Fahrzeugschein erfolgreich registriert")).toBeInTheDocument();
    fireEvent.click(screen.getByTestId("validation-next"));
    await waitFor(() => expect(currentLocation()).toBe("/billing"));
    expect(calls[0]!.path).toBe("/api/bev_registrations/7/lock/");
    expect(storeGet("bevRegistrationCompleted")).toBe(true);
  });

  it("hides 'Weitere Fahrzeugscheine hochladen' for a wallbox partner", () => {
    loggedIn({ imageSuccess: true, bevRegistrationId: 7 });
    renderAt("/validation/7", partnerConfig("wallbox"));
    expect(screen.queryByTestId("validation-more")).not.toBeInTheDocument();
    renderAt("/validation/7");
    expect(screen.getByTestId("validation-more")).toHaveTextContent("Weitere Fahrzeugscheine hochladen");
  });

  it("B2B: submits the placeholder client, locks it and goes to FinishB2B", async () => {
    loggedIn({ imageSuccess: true, bevRegistrationId: 7 });
    const calls = stubApi({
      "POST /api/bev_registrations/7/lock/": () => ({ body: {} }),
      "POST /api/clients/": () => ({ status: 201, body: { id: 3, email: "a@b.de" } }),
      "POST /api/clients/3/lock/": () => ({ body: {} }),
    });
    renderAt("/b2b/validation?campaign=c1");
    fireEvent.click(screen.getByTestId("validation-next"));
    await waitFor(() => expect(currentLocation()).toBe("/b2b/finish?campaign=c1"));
    expect(calls.map((call) => call.path)).toEqual([
      "/api/bev_registrations/7/lock/",
      "/api/clients/",
      "/api/clients/3/lock/",
    ]);
    expect(calls[1]!.body).toMatchObject({ first_name: "registration", last_name: "b2b2c", source: "b2b_fe" });
    expect(calls[1]!.headers.get("Authorization")).toBe("Bearer access-1");
    expect(calls[1]!.headers.get("X-CLIENT-DOMAIN")).toBe("end_user_portal");
  });

  it("says 'Fehler beim Hochladen' when the lock fails", async () => {
    loggedIn({ imageSuccess: true, bevRegistrationId: 7 });
    stubApi({ "POST /api/bev_registrations/7/lock/": () => ({ status: 500, body: {} }) });
    renderAt("/validation/7");
    fireEvent.click(screen.getByTestId("validation-next"));
    expect(await screen.findByTestId("toast")).toHaveTextContent("Fehler beim Hochladen");
  });
});

describe("Billing", () => {
  function fill(fields: Record<string, string>) {
    for (const [name, value] of Object.entries(fields))
      fireEvent.change(screen.getByTestId(`billing-${name}`), { target: { value } });
  }
  const PERSON = {
    first_name: "Anna",
    last_name: "Muster",
    street_name: "Hauptstraße",
    street_number: "1",
    postal_code: "10115",
    city: "Berlin",
    account_name: "Anna Muster",
  };

  it("strips IBAN spaces while typing, reviews in summary mode, edits, submits then locks", async () => {
    loggedIn({ bevRegistrationCompleted: true });
    const calls = stubApi({
      "POST /api/clients/": () => ({ status: 201, body: { id: 5, email: "a@b.de" } }),
      "POST /api/clients/5/lock/": () => ({ body: {} }),
    });
    renderAt(
      "/billing",
      partnerConfig("standard", (c) => (c.show_gender_option = false)),
    );
    fill({ ...PERSON, account_iban: "de89 3704 0044 0532 0130 00" });
    expect(screen.getByTestId("billing-account_iban")).toHaveValue("DE89370400440532013000");
    fireEvent.click(screen.getByTestId("billing-review"));
    expect(await screen.findByTestId("billing-summary")).toHaveTextContent("DE89 3704 0044 0532 0130 00");
    fireEvent.click(screen.getByTestId("billing-edit"));
    expect(screen.getByTestId("billing-city")).toHaveValue("Berlin");
    fireEvent.click(screen.getByTestId("billing-review"));
    fireEvent.click(await screen.findByTestId("billing-submit"));
    await waitFor(() => expect(currentLocation()).toBe("/finish"));
    expect(calls.filter((call) => call.method === "POST").map((call) => call.path)).toEqual([
      "/api/clients/",
      "/api/clients/5/lock/",
    ]);
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("Vielen Dank für Ihre Registrierung!");
  });

  it("starts a returning owner from the last billing data and keeps the stored IBAN unless a new one is typed", async () => {
    loggedIn({ bevRegistrationCompleted: true });
    const calls = stubApi({
      "GET /api/clients/previous/": () => ({ body: PREVIOUS_BILLING }),
      "POST /api/clients/": () => ({ status: 201, body: { id: 6, email: "a@b.de" } }),
      "POST /api/clients/6/lock/": () => ({ body: {} }),
    });
    renderAt(
      "/billing",
      partnerConfig("standard", (c) => (c.show_gender_option = false)),
    );
    await waitFor(() => expect(screen.getByTestId("billing-first_name")).toHaveValue("Anna"));
    expect(screen.getByTestId("billing-city")).toHaveValue("Berlin");
    expect(screen.getByTestId("billing-account_iban")).toHaveValue("");
    expect(screen.getByTestId("error-account_iban")).toHaveTextContent(
      "Ihre gespeicherte IBAN DE89 **** **** **** **30 00 wird verwendet.",
    );
    fireEvent.click(screen.getByTestId("billing-review"));
    expect(await screen.findByTestId("billing-summary")).toHaveTextContent("DE89 **** **** **** **30 00");
    fireEvent.click(screen.getByTestId("billing-submit"));
    await waitFor(() => expect(currentLocation()).toBe("/finish"));
    const sent = calls.find((call) => call.method === "POST" && call.path === "/api/clients/")!.body as Record<
      string,
      unknown
    >;
    expect(sent).toMatchObject({ first_name: "Anna", account_iban: "", keep_stored_iban: true });
  });

  it("sends a newly typed IBAN instead of the stored one", async () => {
    loggedIn({ bevRegistrationCompleted: true });
    const calls = stubApi({
      "GET /api/clients/previous/": () => ({ body: PREVIOUS_BILLING }),
      "POST /api/clients/": () => ({ status: 201, body: { id: 7, email: "a@b.de" } }),
      "POST /api/clients/7/lock/": () => ({ body: {} }),
    });
    renderAt(
      "/billing",
      partnerConfig("standard", (c) => (c.show_gender_option = false)),
    );
    await waitFor(() => expect(screen.getByTestId("billing-first_name")).toHaveValue("Anna"));
    fill({ account_iban: "DE02120300000000202051" });
    fireEvent.click(screen.getByTestId("billing-review"));
    fireEvent.click(await screen.findByTestId("billing-submit"));
    await waitFor(() => expect(currentLocation()).toBe("/finish"));
    const sent = calls.find((call) => call.method === "POST" && call.path === "/api/clients/")!.body as Record<
      string,
      unknown
    >;
    expect(sent.account_iban).toBe("DE02120300000000202051");
    expect(sent).not.toHaveProperty("keep_stored_iban");
  });

  it("shows the field messages and no summary while the form is invalid", async () => {
    loggedIn({ bevRegistrationCompleted: true });
    renderAt("/billing");
    fireEvent.click(screen.getByTestId("billing-review"));
    expect(await screen.findByTestId("error-first_name")).toHaveTextContent("Eingabe erforderlich.");
    expect(screen.getByTestId("error-gender")).toHaveTextContent("Eingabe erforderlich.");
    expect(screen.queryByTestId("billing-summary")).not.toBeInTheDocument();
  });

  it("maps a server IBAN error to 'Ungültige IBAN'", async () => {
    loggedIn({ bevRegistrationCompleted: true });
    stubApi({ "POST /api/clients/": () => ({ status: 400, body: { account_iban: { error_code: "IBAN002" } } }) });
    renderAt(
      "/billing",
      partnerConfig("standard", (c) => (c.show_gender_option = false)),
    );
    fill({ ...PERSON, account_iban: "DE89370400440532013000" });
    fireEvent.click(screen.getByTestId("billing-review"));
    fireEvent.click(await screen.findByTestId("billing-submit"));
    expect(await screen.findByTestId("toast")).toHaveTextContent("Ungültige IBAN");
    expect(screen.getByTestId("billing-form")).toBeInTheDocument();
  });

  it("checks a VAT id starting with 'de' on blur and blocks the summary on VAT001", async () => {
    loggedIn({ bevRegistrationCompleted: true });
    const calls = stubApi({
      "POST /api/clients/validate_vat_number/": () => ({ status: 400, body: { error_code: "VAT001" } }),
    });
    renderAt(
      "/billing",
      partnerConfig("standard", (c) =>
        Object.assign(c, { show_gender_option: false, enable_private_business_registration: true }),
      ),
    );
    fill({ ...PERSON, account_iban: "DE89370400440532013000" });
    fireEvent.click(screen.getByTestId("billing-vehicle_owner_type-business"));
    fireEvent.click(await screen.findByTestId("billing-is_vat_mandatory-yes"));
    fill({ name_of_business: "Muster GmbH", vat_number: "DE123456789" });
    fireEvent.blur(screen.getByTestId("billing-vat_number"));
    expect(await screen.findByText("Ungültige USt. ID")).toBeInTheDocument();
    expect(calls.find((call) => call.path.endsWith("validate_vat_number/"))!.body).toEqual({
      vat_number: "DE123456789",
    });
    fireEvent.click(screen.getByTestId("billing-review"));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.queryByTestId("billing-summary")).not.toBeInTheDocument();
  });

  it("shows the portal wait overlay and goes to the portal after 3 s", async () => {
    loggedIn({ bevRegistrationCompleted: true });
    const assign = vi.spyOn(browser, "assign").mockImplementation(() => {});
    stubApi({
      "POST /api/clients/": () => ({ status: 201, body: { id: 5, email: "a@b.de" } }),
      "POST /api/clients/5/lock/": () => ({ body: {} }),
    });
    renderAt(
      "/billing",
      partnerConfig("standard", (c) => Object.assign(c, { show_gender_option: false, end_user_portal_enable: true })),
    );
    fill({ ...PERSON, account_iban: "DE89370400440532013000" });
    fireEvent.click(screen.getByTestId("billing-review"));
    fireEvent.click(await screen.findByTestId("billing-submit"));
    // Announced (found by its role: MUI's backdrop is aria-hidden by default, which silenced
    // it), on its own solid panel, not as light text straight over the form. The hidden
    // backdrop holds the text from the start: only the role proves it is shown.
    const status = await screen.findByRole("status");
    expect(status).toHaveTextContent("Einen Moment bitte, Sie werden zu Ihrem Kundenportal weitergeleitet …");
    expect(status).toHaveClass("MuiPaper-root");
    await waitFor(() => expect(assign).toHaveBeenCalledWith("/portal/registrations"), { timeout: 4000 });
  });
});

describe("Finish", () => {
  it("without both flags clears the store and reloads into TermsView, query kept", () => {
    loggedIn({ bevRegistrationCompleted: true });
    const replace = vi.spyOn(browser, "replace").mockImplementation(() => {});
    renderAt("/finish?campaign=x");
    expect(replace).toHaveBeenCalledWith("/terms?campaign=x");
    expect(storeGet("tokens")).toBeNull();
  });

  it("redirects to the return URL with the quote after 1.5 s", () => {
    vi.useFakeTimers();
    loggedIn({
      bevRegistrationCompleted: true,
      billingSuccess: true,
      quoteId: 100007,
      quoteUuid: "u-1",
      returnUrl: "https://partner.example/done?x=1",
    });
    const assign = vi.spyOn(browser, "assign").mockImplementation(() => {});
    renderAt("/finish");
    act(() => vi.advanceTimersByTime(1499));
    expect(assign).not.toHaveBeenCalled();
    act(() => vi.advanceTimersByTime(1));
    expect(assign).toHaveBeenCalledWith("https://partner.example/done?x=1&thgQuoteId=100007&thgQuoteUUID=u-1");
    expect(storeGet("tokens")).toBeNull();
  });

  it("never returns to a javascript: URL", () => {
    loggedIn({ bevRegistrationCompleted: true, billingSuccess: true, returnUrl: "javascript:alert(1)" });
    const assign = vi.spyOn(browser, "assign").mockImplementation(() => {});
    renderAt("/finish");
    expect(assign).not.toHaveBeenCalled();
  });

  it("counts down for a wallbox partner and then redirects", () => {
    vi.useFakeTimers();
    loggedIn({ bevRegistrationCompleted: true, billingSuccess: true });
    const assign = vi.spyOn(browser, "assign").mockImplementation(() => {});
    renderAt(
      "/finish",
      partnerConfig("wallbox", (c) => {
        Object.assign(c.pages.finish, {
          is_auto_redirect_enabled: true,
          countdown_seconds: 3,
          redirect_url: "https://wallbox.example/",
        });
        c.theme.flags.finishCountdown = true;
      }),
    );
    expect(screen.getByTestId("finish-countdown")).toHaveTextContent("Sie werden in 3 Sekunden weitergeleitet.");
    act(() => vi.advanceTimersByTime(1000));
    expect(screen.getByTestId("finish-countdown")).toHaveTextContent("2 Sekunden");
    act(() => vi.advanceTimersByTime(1000));
    expect(screen.getByTestId("finish-countdown")).toHaveTextContent("Sie werden in 1 Sekunde weitergeleitet.");
    act(() => vi.advanceTimersByTime(1000));
    expect(assign).toHaveBeenCalledWith("https://wallbox.example/");
  });

  it("otherwise shows the title and clears the store", () => {
    loggedIn({ bevRegistrationCompleted: true, billingSuccess: true, quoteId: 100003 });
    renderAt("/finish");
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("Vielen Dank für Ihre Registrierung!");
    expect(screen.getByTestId("finish-quote")).toHaveTextContent("100003");
    expect(storeGet("authenticated")).toBeNull();
  });
});
