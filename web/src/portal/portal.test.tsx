import { createHash } from "node:crypto";

import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { browser } from "@/shared/lib/browser";
import { storeGet, storeSet } from "@/shared/lib/session-store";
import { type Call, stubApi } from "@/test/api-stub";
import { currentLocation, partnerConfig, renderAt, setDesktop } from "@/test/render";

import type { RegistrationItem } from "./api/quota-applications";
import { bannerWidth, phoneShowsText } from "./components/advertisement";
import { crumbLabels } from "./components/shell";
import { entryScript } from "./components/version-check";
import { portalApi } from "./lib/portal-api";

const TOKENS = { access: "access-1", refresh: "refresh-1" };
const LIST = "GET /api/end_user_portal/quota_applications/";
const PROFILE = {
  "GET /api/auth/user/profile/end-user-portal/": () => ({
    body: [{ email: "paula@example.de", first_name: "Paula", last_name: "Portal" }],
  }),
};

/** A real, tiny proof-of-work challenge: the solver has to find 7. */
const CHALLENGE = {
  "GET /api/auth/bot-check/challenge/": () => ({
    body: {
      algorithm: "SHA-256",
      challenge: createHash("sha256").update("salt7").digest("hex"),
      maxnumber: 50,
      salt: "salt",
      signature: "sig",
    },
  }),
};

function item(sequence: number, change: Partial<RegistrationItem> = {}): RegistrationItem {
  return {
    id: sequence,
    sequence,
    legislation_year: 2026,
    status: "qa_picked_up",
    status_timeline: [
      {
        status: "qa_created",
        position: "past",
        details: {
          title: "Registrierung eingegangen",
          subtitles: ["Wir haben Ihre Registrierung erhalten.", "01.03.2026"],
        },
      },
      {
        status: "qa_picked_up",
        position: "current",
        details: { title: "In Prüfung", subtitles: ["Wir prüfen Ihren Fahrzeugschein."] },
      },
      {
        status: "qa_sent_to_uba",
        position: "future",
        details: { title: "An das Umweltbundesamt übermittelt", subtitles: [] },
      },
    ],
    client_fee: "85.00",
    display_vat: true,
    vat_details: { client_fee_after_vat: "101.15", vat_percentage: "19", vat_amount: "16.15" },
    next_year_client_fee: null,
    next_year_client_fee_year: 2027,
    next_year_client_fee_for_m1: null,
    allowed_resubmit_years: [2027],
    payout_documents: [],
    registration: {
      id: sequence,
      uuid: `uuid-${sequence}`,
      vehicle_type: "M1",
      zlb_scan: `/api/bev_registrations/images/scan-${sequence}/`,
      resized_image: `/api/bev_registrations/images/resized-${sequence}/`,
      scan_placeholder: false,
      width: 2000,
      height: 1400,
      source: "B2C-FE",
      created_at: "2026-03-01T10:00:00+01:00",
      client: {
        gender: "woman",
        first_name: "Paula",
        last_name: "Portal",
        email: "paula@example.de",
        street_name: "Hauptstraße",
        street_number: "1",
        postal_code: "10115",
        city: "Berlin",
        vehicle_owner_type: "business",
        name_of_business: "Portal GmbH",
        is_vat_mandatory: true,
        vat_number: "DE136695976",
        account_name: "Paula Portal",
        account_iban: "DE89 **** **** **** **30 00",
        charge_card: "",
      },
    },
    ...change,
  };
}

function chooseYear(dialog: HTMLElement, year: string) {
  fireEvent.mouseDown(within(dialog).getByRole("combobox"));
  fireEvent.click(screen.getByRole("option", { name: new RegExp(year) }));
}

function page(items: RegistrationItem[], count = items.length) {
  return { body: { count, results: items } };
}

const utility = () =>
  partnerConfig("utility", (config) => {
    config.show_client_fee_euro_amount = true;
    config.end_user_portal_enable = true;
  });

beforeEach(() => {
  setDesktop(true);
  window.localStorage.clear();
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe("LoginView", () => {
  it("/portal goes to the login; a login with tokens goes to the registrations", async () => {
    const calls = stubApi({
      ...CHALLENGE,
      ...PROFILE,
      "POST /api/auth/user/login/": () => ({ body: { tokens: TOKENS, recaptcha_extra_check: false, user_id: 3 } }),
      [LIST]: () => page([]),
    });
    renderAt("/portal");
    await waitFor(() => expect(currentLocation()).toBe("/portal/auth/login"));
    fireEvent.change(await screen.findByTestId("portal-username"), { target: { value: " Paula@Example.DE " } });
    fireEvent.change(screen.getByTestId("portal-password"), { target: { value: "Geheim_1!" } });
    fireEvent.click(screen.getByTestId("portal-login"));

    await waitFor(() => expect(currentLocation()).toBe("/portal/registrations"));
    const login = calls.find((call) => call.path === "/api/auth/user/login/") as Call;
    const body = login.body as { username: string; recaptcha: string };
    expect(body.username).toBe("paula@example.de");
    expect(JSON.parse(atob(body.recaptcha))).toMatchObject({ number: 7, salt: "salt", signature: "sig" });
    expect(storeGet("tokens")).toEqual(TOKENS);
    expect(await screen.findByTestId("registrations-empty")).toHaveTextContent(
      "Es sind keine Registrierungen vorhanden.",
    );
  });

  it("shows 'required' for empty fields and sends nothing", async () => {
    const calls = stubApi({});
    renderAt("/portal/auth/login");
    fireEvent.click(await screen.findByTestId("portal-login"));
    expect(await screen.findAllByText("Pflichtfeld")).not.toHaveLength(0);
    expect(calls.filter((call) => call.path.includes("login"))).toHaveLength(0);
  });

  it("answers an unknown portal path with the branded 404 and a way to the login", async () => {
    stubApi({});
    renderAt("/portal/nowhere");
    expect(await screen.findByTestId("not-found")).toBeInTheDocument();
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("Seite nicht gefunden");
    expect(screen.getByTestId("not-found-home")).toHaveAttribute("href", "/portal/auth/login");
  });

  it("goes to the code screen when the extra check is required", async () => {
    stubApi({
      ...CHALLENGE,
      "POST /api/auth/user/login/": () => ({ body: { tokens: null, recaptcha_extra_check: true, user_id: 42 } }),
    });
    renderAt("/portal/auth/login");
    fireEvent.change(await screen.findByTestId("portal-username"), { target: { value: "paula@example.de" } });
    fireEvent.change(screen.getByTestId("portal-password"), { target: { value: "x" } });
    fireEvent.click(screen.getByTestId("portal-login"));
    await waitFor(() => expect(currentLocation()).toBe("/portal/auth/otp/42"));
  });

  it("offers the resend only after the minute the server waits, with a visible countdown", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const calls = stubApi({ "POST /api/auth/2fa/otp/resend/": () => ({ body: { detail: "ok" } }) });
    renderAt("/portal/auth/otp/42");
    const resend = await screen.findByTestId("portal-otp-resend");
    expect(resend).toBeDisabled();
    expect(resend).toHaveTextContent("Code erneut senden (in 60 s)");
    act(() => vi.advanceTimersByTime(30_000));
    expect(resend).toHaveTextContent("(in 30 s)");
    act(() => vi.advanceTimersByTime(30_000));
    await waitFor(() => expect(resend).toBeEnabled());
    expect(resend).toHaveTextContent(/^Code erneut senden$/);
    fireEvent.click(resend);
    await waitFor(() => expect(calls.filter((call) => call.path.endsWith("otp/resend/"))).toHaveLength(1));
    await waitFor(() => expect(resend).toBeDisabled());
    expect(resend).toHaveTextContent("(in 60 s)");
    vi.useRealTimers();
  });

  it.each([
    [{ detail: "Invalid recaptcha" }, "Ungültige Sicherheitsprüfung, bitte versuchen Sie es erneut"],
    [
      { detail: "Der Benutzername oder das Passwort ist falsch.", error_code: "LOGIN001" },
      "Der Benutzername oder das Passwort ist falsch",
    ],
  ])("maps a 401 %j to its message", async (answer, message) => {
    stubApi({ ...CHALLENGE, "POST /api/auth/user/login/": () => ({ status: 401, body: answer }) });
    renderAt("/portal/auth/login");
    fireEvent.change(await screen.findByTestId("portal-username"), { target: { value: "a@b.de" } });
    fireEvent.change(screen.getByTestId("portal-password"), { target: { value: "x" } });
    fireEvent.click(screen.getByTestId("portal-login"));
    expect(await screen.findByTestId("login-error")).toHaveTextContent(message);
  });

  it("offers 'create new account' after EMAIL001 in the forgot-password panel", async () => {
    stubApi({
      "POST /api/auth/user/password-reset/verify-email/": () => ({
        status: 400,
        body: { error_code: "EMAIL001", detail: "x" },
      }),
    });
    renderAt("/portal/auth/login");
    fireEvent.click(await screen.findByTestId("forgot-password"));
    fireEvent.change(screen.getByTestId("reset-email"), { target: { value: "fremd@example.de" } });
    fireEvent.click(screen.getByTestId("reset-send"));
    expect(await screen.findByTestId("reset-message")).toHaveTextContent(
      "Die eingegebene E-Mail-Adresse ist bei Ihrer Organisation nicht registriert",
    );
    fireEvent.click(screen.getByTestId("create-account"));
    await waitFor(() => expect(currentLocation()).toBe("/portal/auth/verify-email"));
  });

  it("logs in at once with a stored token, and turns a 403 profile into signup", async () => {
    storeSet("tokens", TOKENS);
    storeSet("email", "flow@example.de");
    stubApi({ "GET /api/auth/user/profile/end-user-portal/": () => ({ status: 403, body: { detail: "no account" } }) });
    renderAt("/portal/auth/login");
    await waitFor(() => expect(currentLocation()).toBe("/portal/auth/signup"));
    expect(await screen.findByTestId("signup-username")).toHaveValue("flow@example.de");
  });
});

describe("the English switch", () => {
  it("switches the texts and keeps the choice", async () => {
    stubApi({});
    renderAt("/portal/auth/login");
    fireEvent.click(await screen.findByTestId("language-switch"));
    expect(await screen.findByTestId("portal-login")).toHaveTextContent("Log in");
    expect(window.localStorage.getItem("thg.portal.language")).toBe("en");
  });
});

describe("the breadcrumbs", () => {
  beforeEach(() => storeSet("tokens", TOKENS));

  it("name each path segment after the first by the menu's label, in the chosen language", async () => {
    stubApi({ ...PROFILE, [LIST]: () => page([]) });
    renderAt("/portal/registrations", utility());
    const crumbs = await screen.findByTestId("breadcrumbs");
    await waitFor(() => expect(crumbs).toHaveTextContent("Registrierungen"));
    expect(crumbs).not.toHaveTextContent("registrations");
    expect(within(crumbs).getByText("Registrierungen")).toHaveAttribute("aria-current", "page");
    fireEvent.click(screen.getByTestId("language-switch"));
    await waitFor(() => expect(screen.getByTestId("breadcrumbs")).toHaveTextContent("Registrations"));
  });

  it("label the Impressum and the privacy page as the menu does", () => {
    const german: Record<string, string> = {
      "shell.registrations": "Registrierungen",
      "shell.impressum": "Impressum",
      "shell.privacy": "Datenschutzinformationen",
    };
    const t = (key: string) => german[key] ?? key;
    expect(crumbLabels("/portal/impressum", t)).toEqual(["Impressum"]);
    expect(crumbLabels("/portal/data-privacy-info", t)).toEqual(["Datenschutzinformationen"]);
    expect(crumbLabels("/portal/registrations/", t)).toEqual(["Registrierungen"]);
  });
});

describe("RegistrationsView", () => {
  beforeEach(() => storeSet("tokens", TOKENS));

  it("pages through twelve registrations five at a time", async () => {
    const all = Array.from({ length: 12 }, (_, index) => item(100 + index));
    const calls = stubApi({
      ...PROFILE,
      [LIST]: (call) => {
        const url = new URL(`http://x${call.path}`);
        void url;
        return page(all.slice(0, 5), 12);
      },
    });
    renderAt("/portal/registrations", utility());
    expect(await screen.findAllByTestId("registration-card")).toHaveLength(5);
    fireEvent.click(screen.getByRole("button", { name: "Seite 3" }));
    await waitFor(() =>
      expect(calls.filter((call) => call.path === "/api/end_user_portal/quota_applications/")).toHaveLength(2),
    );
    expect(screen.getByTestId("welcome-name")).toHaveTextContent("Willkommen, Paula Portal");
    expect(screen.getByRole("button", { name: "Vorherige Seite" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Nächste Seite" })).toBeInTheDocument();
  });

  it("starts a new registration clean: the previous vehicle's state is gone, the login stays", async () => {
    stubApi({ ...PROFILE, [LIST]: () => page([item(7)]) });
    const assign = vi.spyOn(browser, "assign").mockImplementation(() => {});
    storeSet("bevRegistrationId", 41);
    storeSet("bevRegistrationCompleted", true);
    storeSet("billingSuccess", true);
    storeSet("quoteId", 9);
    renderAt("/portal/registrations", utility());
    fireEvent.click(await screen.findByTestId("new-registration"));
    expect(assign).toHaveBeenCalledWith("/terms?eup=1");
    for (const key of ["bevRegistrationId", "bevRegistrationCompleted", "billingSuccess", "quoteId"] as const)
      expect(storeGet(key), key).toBeNull();
    expect(storeGet("tokens")).toEqual(TOKENS);
  });

  it("asks for the one-based page with page_size 5", async () => {
    const urls: string[] = [];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (input: RequestInfo | URL) => {
        urls.push(String(input));
        if (String(input).includes("profile"))
          return new Response(JSON.stringify([{ email: "p@x.de", first_name: "P", last_name: "X" }]));
        return new Response(JSON.stringify({ count: 12, results: Array.from({ length: 5 }, (_, i) => item(i + 1)) }));
      }),
    );
    renderAt("/portal/registrations", utility());
    await screen.findAllByTestId("registration-card");
    fireEvent.click(screen.getByRole("button", { name: "Seite 2" }));
    await waitFor(() => expect(urls.some((url) => url.includes("page=2&page_size=5"))).toBe(true));
    expect(urls.some((url) => url.includes("page=1&page_size=5"))).toBe(true);
  });

  it("shows a card's timeline, fees with VAT and the utility placeholder", async () => {
    stubApi({ ...PROFILE, [LIST]: () => page([item(7)]) });
    renderAt("/portal/registrations", utility());
    const card = await screen.findByTestId("registration-card");
    const fees = within(card).getByTestId("fee-rows");
    expect(fees).toHaveTextContent("101,15");
    expect(fees).toHaveTextContent("MwSt. (19 %)");
    expect(fees).toHaveTextContent("16,15");
    expect(within(card).getByTestId("next-year-placeholder")).toHaveTextContent("2027");
    // only the current entry shows its subtitles
    expect(
      within(card)
        .getAllByTestId("timeline-subtitle")
        .map((node) => node.textContent),
    ).toEqual(["Wir prüfen Ihren Fahrzeugschein."]);
    expect(within(card).getByTestId("scan-image")).toHaveClass("landscape");
    fireEvent.click(within(card).getByTestId("show-more"));
    expect(within(card).getByTestId("masked-iban")).toHaveTextContent("DE89 **** **** **** **30 00");
    expect(within(card).getByTestId("tax-exempt")).toHaveTextContent("Ja");
  });

  it("names the neutral card of a scan whose form was not located by what it says", async () => {
    const unlocated = item(8);
    const shown = item(9);
    unlocated.registration.scan_placeholder = true;
    stubApi({ ...PROFILE, [LIST]: () => page([unlocated, shown]) });
    renderAt("/portal/registrations", utility());
    const [first, second] = await screen.findAllByTestId("registration-card");
    expect(within(first).getByRole("img")).toHaveAccessibleName("Dokument eingegangen");
    expect(within(second).getByRole("img")).toHaveAccessibleName("Fahrzeugschein von Registrierung 9");
  });

  it("links the owner's credit note or payout statement on its card, only where the server lists one", async () => {
    const paid = item(10, {
      status: "qa_paid",
      payout_documents: [
        {
          kind: "credit_note",
          kind_label: "Gutschrift",
          number: "GS-AUTOHAUS-000001",
          issue_date: "2026-03-31",
          url: "/api/end_user_portal/payout_documents/signed-for-paula/",
        },
      ],
    });
    stubApi({ ...PROFILE, [LIST]: () => page([paid, item(11)]) });
    renderAt("/portal/registrations", utility());
    const [withDocument, without] = await screen.findAllByTestId("registration-card");
    const documents = within(withDocument as HTMLElement).getByTestId("payout-documents");
    expect(documents).toHaveTextContent("Ihr Beleg zur Auszahlung");
    expect(documents).toHaveTextContent("Gutschrift GS-AUTOHAUS-000001 vom 31.03.2026 (PDF)");
    const link = within(documents).getByTestId("payout-document-link");
    // the link the server signed for this owner, as it is: never built in the browser
    expect(link).toHaveAttribute("href", "/api/end_user_portal/payout_documents/signed-for-paula/");
    expect(link).toHaveAttribute("rel", "noopener");
    expect(within(without as HTMLElement).queryByTestId("payout-documents")).toBeNull();
  });

  it("names a private owner's payout statement", async () => {
    const paid = item(12, {
      payout_documents: [
        {
          kind: "payout_statement",
          kind_label: "Auszahlungsbeleg",
          number: "AB-AUTOHAUS-000004",
          issue_date: "2026-04-01",
          url: "/api/end_user_portal/payout_documents/t/",
        },
      ],
    });
    stubApi({ ...PROFILE, [LIST]: () => page([paid]) });
    renderAt("/portal/registrations", utility());
    expect(await screen.findByTestId("payout-document-link")).toHaveTextContent("Auszahlungsbeleg AB-AUTOHAUS-000004");
  });

  it("shows a rejection reason in italics", async () => {
    const rejected = item(8, {
      status_timeline: [
        { status: "qa_created", position: "past", details: { title: "Registrierung eingegangen", subtitles: [] } },
        {
          status: "qa_manually_rejected",
          position: "current",
          details: { title: "Abgelehnt", subtitles: ["Fahrzeugschein abgelaufen"] },
        },
      ],
    });
    stubApi({ ...PROFILE, [LIST]: () => page([rejected]) });
    renderAt("/portal/registrations", utility());
    const subtitle = await screen.findByTestId("timeline-subtitle");
    expect(subtitle).toHaveTextContent("Fahrzeugschein abgelaufen");
    expect(getComputedStyle(subtitle).fontStyle).toBe("italic");
  });

  it("disables resubmit without allowed years", async () => {
    stubApi({ ...PROFILE, [LIST]: () => page([item(9, { allowed_resubmit_years: [] })]) });
    renderAt("/portal/registrations", utility());
    expect(await screen.findByTestId("resubmit")).toBeDisabled();
  });

  it("resubmits for the next year, then reports the same year again", async () => {
    let taken = false;
    const calls = stubApi({
      ...PROFILE,
      [LIST]: () => page([item(10)]),
      "PUT /api/end_user_portal/quota_applications/10/duplicate_for_new_period/": () => {
        if (taken)
          return { status: 400, body: { detail: "Vehicle id already exist for this period", error_code: "QA001" } };
        taken = true;
        return { status: 201, body: item(11, { legislation_year: 2027 }) };
      },
    });
    renderAt("/portal/registrations", utility());
    const resubmit = async () => {
      fireEvent.click(await screen.findByTestId("resubmit"));
      const dialog = await screen.findByTestId("resubmit-dialog");
      fireEvent.click(within(dialog).getByTestId("resubmit-submit"));
      expect(await within(dialog).findByText("Bitte wählen Sie ein Quotenjahr.")).toBeInTheDocument();
      chooseYear(dialog, "2027");
      fireEvent.click(within(dialog).getByTestId("resubmit-submit"));
      expect(await within(dialog).findByText("Bitte bestätigen Sie dies.")).toBeInTheDocument();
      fireEvent.click(within(dialog).getByTestId("resubmit-check-terms"));
      fireEvent.click(within(dialog).getByTestId("resubmit-submit"));
    };
    await resubmit();
    expect(await screen.findByTestId("toast")).toHaveTextContent("Registrierung wurde angelegt");
    const put = calls.find((call) => call.method === "PUT") as Call;
    expect(put.body).toMatchObject({ period: "2027", email_promotion_opt_in: "false" });
    await resubmit();
    await waitFor(() =>
      expect(screen.getByTestId("toast")).toHaveTextContent(
        "Für dieses Fahrzeug gibt es in diesem Zeitraum bereits eine Registrierung",
      ),
    );
  });

  it("keeps the dialog across a trip to the terms and reopens it for the same card", async () => {
    stubApi({ ...PROFILE, [LIST]: () => page([item(12), item(13)]) });
    const { unmount } = renderAt("/portal/registrations", utility());
    const cards = await screen.findAllByTestId("resubmit");
    fireEvent.click(cards[1] as HTMLElement);
    const dialog = await screen.findByTestId("resubmit-dialog");
    chooseYear(dialog, "2027");
    fireEvent.click(await within(dialog).findByTestId("resubmit-check-terms"));
    fireEvent.click(within(dialog).getByRole("button", { name: "Teilnahmebedingungen" }));
    await waitFor(() => expect(currentLocation()).toBe("/portal/auth/terms-and-conditions"));
    expect(JSON.parse(window.localStorage.getItem("thg.portal.resubmit") ?? "{}")).toMatchObject({
      sequence: 13,
      selectedYear: 2027,
      pageNumber: 1,
    });
    unmount();

    renderAt("/portal/registrations", utility());
    const reopened = await screen.findByTestId("resubmit-dialog");
    expect(within(reopened).getByTestId("resubmit-check-terms")).toBeChecked();
    expect(window.localStorage.getItem("thg.portal.resubmit")).toBeNull();
  });

  it("treats a 403 as a new user and goes to signup", async () => {
    storeSet("email", "flow@example.de");
    stubApi({
      "GET /api/auth/user/profile/end-user-portal/": () => ({ status: 403, body: {} }),
      [LIST]: () => ({ status: 403, body: {} }),
    });
    renderAt("/portal/registrations", utility());
    await waitFor(() => expect(currentLocation()).toBe("/portal/auth/signup"));
  });

  it("without a token sends the visitor to the login", async () => {
    window.sessionStorage.clear();
    stubApi({});
    renderAt("/portal/registrations", utility());
    await waitFor(() => expect(currentLocation()).toBe("/portal/auth/login"));
  });
});

describe("session expiry", () => {
  it("restores with one refresh for parallel 401s, toasts, and reloads", async () => {
    storeSet("tokens", TOKENS);
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const reload = vi.spyOn(browser, "reload").mockImplementation(() => {});
    let fresh = false;
    const calls = stubApi({
      "POST /api/auth/user/token/refresh/": () => {
        fresh = true;
        return { body: { access: "access-2", refresh: "refresh-2" } };
      },
      "GET /api/auth/user/profile/end-user-portal/": () =>
        fresh ? PROFILE["GET /api/auth/user/profile/end-user-portal/"]() : { status: 401, body: {} },
      [LIST]: () => (fresh ? page([]) : { status: 401, body: {} }),
    });
    renderAt("/portal/registrations", utility());
    expect(await screen.findByText(/Ihre aktuelle Sitzung ist abgelaufen/)).toBeInTheDocument();
    await waitFor(() => expect(storeGet("tokens")).toEqual({ access: "access-2", refresh: "refresh-2" }));
    expect(calls.filter((call) => call.path === "/api/auth/user/token/refresh/")).toHaveLength(1);
    await act(async () => vi.advanceTimersByTimeAsync(2100));
    expect(screen.getByTestId("toast")).toHaveTextContent("Ihre Sitzung wurde wiederhergestellt");
    expect(reload).not.toHaveBeenCalled();
    await act(async () => vi.advanceTimersByTimeAsync(500));
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it("one refresh for two parallel calls (the refresh queue)", async () => {
    storeSet("tokens", TOKENS);
    let fresh = false;
    const calls = stubApi({
      "POST /api/auth/user/token/refresh/": () => {
        fresh = true;
        return { body: { access: "access-2", refresh: "refresh-2" } };
      },
      "GET /api/a/": () => (fresh ? { body: { ok: 1 } } : { status: 401, body: {} }),
      "GET /api/b/": () => (fresh ? { body: { ok: 2 } } : { status: 401, body: {} }),
    });
    const results = await Promise.all([portalApi("a/"), portalApi("b/")]);
    expect(results).toEqual([{ ok: 1 }, { ok: 2 }]);
    expect(calls.filter((call) => call.path === "/api/auth/user/token/refresh/")).toHaveLength(1);
    expect(
      calls
        .filter((call) => call.path === "/api/a/")
        .at(-1)
        ?.headers.get("Authorization"),
    ).toBe("Bearer access-2");
  });

  it("goes to the login when the refresh fails", async () => {
    storeSet("tokens", TOKENS);
    stubApi({
      "POST /api/auth/user/token/refresh/": () => ({ status: 401, body: {} }),
      [LIST]: () => ({ status: 401, body: {} }),
      "GET /api/auth/user/profile/end-user-portal/": () => ({ status: 401, body: {} }),
    });
    renderAt("/portal/registrations", utility());
    await waitFor(() => expect(currentLocation()).toBe("/portal/auth/login"));
    expect(storeGet("tokens")).toBeNull();
  });
});

describe("ResetPassword", () => {
  it("checks the rules, completes, then goes to the login after 2500 ms", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const calls = stubApi({
      ...CHALLENGE,
      "GET /api/auth/user/password-reset/verify/tok/MTU/": () => ({
        body: { detail: "ok", email: "paula@example.de", is_user_creation: false },
      }),
      "PATCH /api/auth/user/password-reset/complete/": () => ({ body: { detail: "ok" } }),
    });
    renderAt("/portal/auth/reset-password?token=tok&id=MTU");
    await screen.findByText("paula@example.de");
    fireEvent.change(screen.getByTestId("new-password"), { target: { value: "kurz" } });
    expect(await screen.findByText("Das neue Passwort muss mindestens 8 Zeichen lang sein")).toBeInTheDocument();
    expect(screen.getByTestId("reset-submit")).toBeDisabled();
    fireEvent.change(screen.getByTestId("new-password"), { target: { value: "Neu_Passwort1!" } });
    fireEvent.change(screen.getByTestId("new-password-again"), { target: { value: "Neu_Passwort1!" } });
    await waitFor(() => expect(screen.getByTestId("reset-submit")).toBeEnabled());
    fireEvent.click(screen.getByTestId("reset-submit"));
    expect(await screen.findByTestId("reset-done")).toHaveTextContent("Ihr Passwort wurde erfolgreich zurückgesetzt");
    const patch = calls.find((call) => call.method === "PATCH") as Call;
    expect(patch.body).toMatchObject({
      password: "Neu_Passwort1!",
      password_again: "Neu_Passwort1!",
      token: "tok",
      uidb64: "MTU",
    });
    await act(async () => vi.advanceTimersByTimeAsync(2400));
    expect(currentLocation()).toContain("/portal/auth/reset-password");
    await act(async () => vi.advanceTimersByTimeAsync(200));
    expect(currentLocation()).toBe("/portal/auth/login");
  });

  it("shows the server's field errors", async () => {
    stubApi({
      ...CHALLENGE,
      "GET /api/auth/user/password-reset/verify/tok/MTU/": () => ({
        body: { detail: "ok", email: "p@x.de", is_user_creation: true },
      }),
      "PATCH /api/auth/user/password-reset/complete/": () => ({
        status: 400,
        body: { password: ["Zu häufig verwendet"] },
      }),
    });
    renderAt("/portal/auth/reset-password?token=tok&id=MTU&is_user_creation=true");
    expect(await screen.findByText("Konto anlegen", { selector: "h1" })).toBeInTheDocument();
    fireEvent.change(screen.getByTestId("new-password"), { target: { value: "Neu_Passwort1!" } });
    fireEvent.change(screen.getByTestId("new-password-again"), { target: { value: "Neu_Passwort1!" } });
    await waitFor(() => expect(screen.getByTestId("reset-submit")).toBeEnabled());
    fireEvent.click(screen.getByTestId("reset-submit"));
    expect(await screen.findByText("Zu häufig verwendet")).toBeInTheDocument();
  });
});

describe("EmailVerify", () => {
  it("shows the failure, then goes to the login after 3000 ms", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    stubApi({
      "POST /api/end_user_portal/email_register/": () => ({
        status: 400,
        body: { error_code: "EMAIL002", detail: "x" },
      }),
    });
    renderAt("/portal/auth/verify-email");
    fireEvent.change(await screen.findByTestId("verify-email"), { target: { value: "fremd@example.de" } });
    await waitFor(() => expect(screen.getByTestId("verify-proceed")).toBeEnabled());
    fireEvent.click(screen.getByTestId("verify-proceed"));
    expect(await screen.findByTestId("verify-failed")).toHaveTextContent(
      "Diese E-Mail-Adresse ist bei diesem Partner leider nicht bekannt.",
    );
    await act(async () => vi.advanceTimersByTimeAsync(3100));
    expect(currentLocation()).toBe("/portal/auth/login");
  });
});

describe("SignupView", () => {
  it("is blocked without a key or a known e-mail", async () => {
    stubApi({});
    renderAt("/portal/auth/signup");
    await waitFor(() => expect(currentLocation()).toBe("/portal/auth/login"));
  });

  it("verifies the key, wants the terms for an unknown user, and creates the account", async () => {
    const calls = stubApi({
      ...CHALLENGE,
      ...PROFILE,
      "POST /api/end_user_portal/verify_token/": () => ({
        body: { email_address: "flow@example.de", token: TOKENS, is_unknown_user: true },
      }),
      "POST /api/end_user_portal/create_account/": () => ({
        status: 201,
        body: { detail: "ok", tokens: { access: "access-9", refresh: "refresh-9" } },
      }),
      [LIST]: () => page([]),
    });
    renderAt("/portal/auth/signup?key=k-1");
    expect(await screen.findByTestId("signup-username")).toHaveValue("flow@example.de");
    fireEvent.change(screen.getByTestId("new-password"), { target: { value: "Neu_Passwort1!" } });
    fireEvent.change(screen.getByTestId("new-password-again"), { target: { value: "Neu_Passwort1!" } });
    await waitFor(() => expect(screen.getByTestId("signup-submit")).toBeDisabled());
    fireEvent.click(screen.getByTestId("signup-terms"));
    await waitFor(() => expect(screen.getByTestId("signup-submit")).toBeEnabled());
    fireEvent.click(screen.getByTestId("signup-submit"));
    await waitFor(() => expect(currentLocation()).toBe("/portal/registrations"));
    const create = calls.find((call) => call.path === "/api/end_user_portal/create_account/") as Call;
    expect(create.headers.get("Authorization")).toBe("Bearer access-1");
    expect(create.body).toMatchObject({
      password: "Neu_Passwort1!",
      subdomain: window.location.hostname.split(".")[0],
    });
    expect(storeGet("tokens")).toEqual({ access: "access-9", refresh: "refresh-9" });
  });
});

describe("the new-version check", () => {
  it("reads the entry script of a page", () => {
    expect(entryScript('<script type="module" crossorigin src="/assets/index-AbC.js"></script>')).toBe(
      "/assets/index-AbC.js",
    );
    expect(entryScript("<html></html>")).toBeNull();
    // The login's page names it in a meta (loaded after the first paint), before boot's script.
    const login =
      '<meta name="thg-entry" content="/assets/index-AbC.js" data-preload="/assets/vendor-X.js" />' +
      '<script type="module" async crossorigin src="/assets/boot-Xyz.js"></script>';
    expect(entryScript(login)).toBe("/assets/index-AbC.js");
  });
});

const BANNER = {
  aspect: 6,
  textShare: 0.2125,
  smallestShare: 0.15,
  phone: { maxHeight: 129, largestTextPx: 12.6, smallestTextPx: 8.9, legible: false },
  desktop: { maxHeight: 165, largestTextPx: 35, smallestTextPx: 24.8, legible: true },
};
const IMAGE_AD = {
  id: 7,
  enabled: true,
  type: "image" as const,
  image: "data:image/svg+xml;base64,PHN2Zy8+",
  url: "https://stadtwerke.example/autostrom",
  freetext: "",
  headline: "",
  text: "",
  button_label: "",
};

describe("the advertisement", () => {
  beforeEach(() => storeSet("tokens", TOKENS));

  it("a text advertisement is set in the theme's typography, below the page title; its button counts the click", async () => {
    const calls = stubApi({
      ...PROFILE,
      [LIST]: () => page([]),
      "POST /api/end_user_portal/advertisement_count/": () => ({ status: 201, body: { id: 7 } }),
    });
    const config = partnerConfig("utility", (c) => {
      c.partneradvertisement = {
        ...c.partneradvertisement,
        id: 7,
        enabled: true,
        type: "text",
        headline: "Ökostrom für Ihr E-Auto",
        text: "Jetzt zum Autostromtarif wechseln.",
        button_label: "Tarif ansehen",
        url: "https://stadtwerke.example/autostrom",
      };
    });
    renderAt("/portal/registrations", config);

    const ad = await screen.findByTestId("advertisement-text-ad");
    const headline = within(ad).getByTestId("advertisement-headline");
    expect(headline).toHaveTextContent("Ökostrom für Ihr E-Auto");
    // a paragraph in the section-heading variant (h3), never a second page title
    expect(headline.tagName).toBe("P");
    expect(headline).toHaveClass("MuiTypography-h3");
    const button = within(ad).getByRole("link", { name: "Tarif ansehen" });
    expect(button).toHaveAttribute("href", "https://stadtwerke.example/autostrom");
    fireEvent.click(button);
    await waitFor(() =>
      expect(calls.some((call) => call.path === "/api/end_user_portal/advertisement_count/")).toBe(true),
    );
  });

  it("an image advertisement is no wider than its height bound allows (its text near the title's size)", () => {
    expect(bannerWidth(BANNER)).toEqual({ xs: "min(100%, 774px)", sm: "min(100%, 990px)" });
    expect(bannerWidth(null)).toBe("100%");
  });

  it("a phone shows the text advertisement where the image's text would be too small and a headline was written", () => {
    const image = { ...IMAGE_AD, headline: "Ökostrom für Ihr E-Auto" };

    expect(phoneShowsText(image, BANNER)).toBe(true);
    // no headline to show instead: the image stays
    expect(phoneShowsText({ ...image, headline: "" }, BANNER)).toBe(false);
    // legible on a phone, or not measured (a raster image): the image stays
    expect(phoneShowsText(image, { ...BANNER, phone: { ...BANNER.phone, smallestTextPx: 12.4, legible: true } })).toBe(false);
    expect(phoneShowsText(image, { ...BANNER, phone: { ...BANNER.phone, smallestTextPx: null, legible: null } })).toBe(false);
    expect(phoneShowsText({ ...image, type: "text" }, BANNER)).toBe(false);
  });

  it("an image advertisement with a phone text carries both, each for its viewport", async () => {
    stubApi({ ...PROFILE, [LIST]: () => page([]) });
    const config = partnerConfig("utility", (c) => {
      c.partneradvertisement = { ...IMAGE_AD, headline: "Ökostrom für Ihr E-Auto", text: "Jetzt wechseln." };
      c.theme.assets.adBanner = BANNER;
    });
    renderAt("/portal/registrations", config);

    const ad = await screen.findByTestId("advertisement");
    expect(within(ad).getByTestId("advertisement-image")).toHaveAttribute("data-smallest-share", "0.15");
    expect(within(ad).getByTestId("advertisement-headline")).toHaveTextContent("Ökostrom für Ihr E-Auto");
    expect(within(ad).getAllByRole("link")).toHaveLength(2);
  });
});
