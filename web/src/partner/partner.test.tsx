import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";

import { storeSet } from "@/shared/lib/session-store";
import { currentLocation, partnerConfig, renderAt, setDesktop } from "@/test/render";

import type { Role } from "./api/auth";
import {
  BACKUP_CODES,
  detail,
  EMPTY_STATS,
  ENROLMENT,
  FILTER_OPTIONS,
  member,
  row,
  rows,
  singleDeal,
  STATS,
  subPartner,
} from "./mocks/fixtures";
import { lastCall, listPage, type PartnerRoutes, partnerTestSetup, stubPartnerApi } from "./mocks/test-api";

const API = "/api/partner/";
const ME = `GET ${API}me/`;
const LIST = `GET ${API}quota_applications/`;
const FILTERS = `GET ${API}quota_applications/filters/`;

function loggedIn(role: Role = "partner_admin"): PartnerRoutes {
  return { [ME]: () => ({ body: member(role) }), [FILTERS]: () => ({ body: FILTER_OPTIONS }) };
}

partnerTestSetup();

describe("login", () => {
  it("/partner without a session goes to the login; password, then the code, then the dashboard", async () => {
    let session = false;
    const calls = stubPartnerApi({
      [ME]: () => (session ? { body: member() } : { status: 401, body: { detail: "Bitte melden Sie sich an." } }),
      [`GET ${API}auth/csrf/`]: () => {
        document.cookie = "csrftoken=csrf-123; path=/";
        return { status: 204 };
      },
      [`POST ${API}auth/login/`]: () => ({ body: { step: "otp" } }),
      [`POST ${API}auth/otp/`]: () => {
        session = true;
        return { body: member() };
      },
      [`GET ${API}stats/`]: () => ({ body: STATS }),
      [FILTERS]: () => ({ body: FILTER_OPTIONS }),
    });
    // An owner's token of the flow in the same tab never goes along.
    storeSet("tokens", { access: "owner-access", refresh: "owner-refresh" });
    renderAt("/partner/applications?status=qa_entered");
    await waitFor(() =>
      expect(currentLocation()).toBe(
        `/partner/login?next=${encodeURIComponent("/partner/applications?status=qa_entered")}`,
      ),
    );

    fireEvent.click(await screen.findByTestId("partner-login"));
    expect((await screen.findAllByText("Pflichtfeld")).length).toBe(2);
    fireEvent.change(screen.getByTestId("partner-username"), { target: { value: " anna@autohaus.example " } });
    fireEvent.change(screen.getByTestId("partner-password"), { target: { value: "Geheim_2026!" } });
    fireEvent.click(screen.getByTestId("partner-login"));

    fireEvent.change(await screen.findByTestId("partner-otp"), { target: { value: "123 456" } });
    fireEvent.click(screen.getByTestId("partner-otp-submit"));
    await waitFor(() => expect(currentLocation()).toBe("/partner/applications?status=qa_entered"));

    const login = lastCall(calls, `${API}auth/login/`);
    expect(login.body).toEqual({ username: "anna@autohaus.example", password: "Geheim_2026!" });
    expect(login.headers.get("X-CSRFToken")).toBe("csrf-123");
    expect(calls.findIndex((call) => call.path === `${API}auth/csrf/`)).toBeLessThan(calls.indexOf(login));
    expect(lastCall(calls, `${API}auth/otp/`).body).toEqual({ token: "123456" });
    expect(calls.every((call) => !call.headers.has("Authorization"))).toBe(true);
    expect(calls.every((call) => call.headers.get("Accept-Language") === "de")).toBe(true);
  });

  it("says what the server says for a wrong password and how long to wait when throttled", async () => {
    let tries = 0;
    stubPartnerApi({
      [`GET ${API}auth/csrf/`]: () => ({ status: 204 }),
      [`POST ${API}auth/login/`]: () =>
        ++tries === 1
          ? { status: 400, body: { detail: "Benutzername oder Passwort ist falsch." } }
          : { status: 429, body: { detail: "Zu viele Versuche.", wait: 32 } },
    });
    renderAt("/partner/login");
    fireEvent.change(await screen.findByTestId("partner-username"), { target: { value: "anna" } });
    fireEvent.change(screen.getByTestId("partner-password"), { target: { value: "falsch" } });
    fireEvent.click(screen.getByTestId("partner-login"));
    expect(await screen.findByText("Benutzername oder Passwort ist falsch.")).toBeInTheDocument();
    fireEvent.click(screen.getByTestId("partner-login"));
    expect(await screen.findByText("Zu viele Versuche. Bitte warten Sie 32 Sekunden.")).toBeInTheDocument();
  });

  it("a wrong code is shown under the code field", async () => {
    stubPartnerApi({
      [`GET ${API}auth/csrf/`]: () => ({ status: 204 }),
      [`POST ${API}auth/login/`]: () => ({ body: { step: "otp" } }),
      [`POST ${API}auth/otp/`]: () => ({
        status: 400,
        body: { token: { error_code: "OTP001", message: "Der Code ist falsch." } },
      }),
    });
    renderAt("/partner/login");
    fireEvent.change(await screen.findByTestId("partner-username"), { target: { value: "anna" } });
    fireEvent.change(screen.getByTestId("partner-password"), { target: { value: "Geheim_2026!" } });
    fireEvent.click(screen.getByTestId("partner-login"));
    fireEvent.change(await screen.findByTestId("partner-otp"), { target: { value: "12" } });
    fireEvent.click(screen.getByTestId("partner-otp-submit"));
    expect(await screen.findByText("Bitte geben Sie sechs Ziffern oder einen Backup-Code ein.")).toBeInTheDocument();
    fireEvent.change(screen.getByTestId("partner-otp"), { target: { value: "654321" } });
    fireEvent.click(screen.getByTestId("partner-otp-submit"));
    expect(await screen.findByText("Der Code ist falsch.")).toBeInTheDocument();
  });

  it("the first login enrols the authenticator: QR code, secret, first code, backup codes once", async () => {
    const calls = stubPartnerApi({
      ...loggedIn(),
      [`GET ${API}auth/csrf/`]: () => ({ status: 204 }),
      [`POST ${API}auth/login/`]: () => ({ body: { step: "enrol", enrolment: ENROLMENT } }),
      [`POST ${API}auth/enrol/`]: () => ({ body: { backup_codes: BACKUP_CODES, me: member() } }),
      [`GET ${API}stats/`]: () => ({ body: STATS }),
    });
    renderAt("/partner/login");
    fireEvent.change(await screen.findByTestId("partner-username"), { target: { value: "anna" } });
    fireEvent.change(screen.getByTestId("partner-password"), { target: { value: "Geheim_2026!" } });
    fireEvent.click(screen.getByTestId("partner-login"));
    expect(await screen.findByRole("img", { name: "QR-Code für die Authenticator-App" })).toHaveAttribute(
      "src",
      ENROLMENT.qr_svg,
    );
    expect(screen.getByTestId("enrol-secret")).toHaveTextContent(ENROLMENT.secret);
    fireEvent.change(screen.getByTestId("enrol-token"), { target: { value: "246810" } });
    fireEvent.click(screen.getByTestId("enrol-submit"));
    const codes = await screen.findByTestId("backup-codes");
    expect(
      within(codes)
        .getAllByRole("listitem")
        .map((item) => item.textContent),
    ).toEqual(BACKUP_CODES);
    fireEvent.click(screen.getByTestId("codes-done"));
    await waitFor(() => expect(currentLocation()).toBe("/partner/dashboard"));
    expect(lastCall(calls, `${API}auth/enrol/`).body).toEqual({ token: "246810" });
  });

  it("English on request: the texts and the server's language follow", async () => {
    const calls = stubPartnerApi({
      [`GET ${API}auth/csrf/`]: () => ({ status: 204 }),
      [`POST ${API}auth/login/`]: () => ({ status: 400, body: { detail: "Wrong username or password." } }),
    });
    renderAt("/partner/login");
    fireEvent.click(await screen.findByTestId("partner-language"));
    expect(await screen.findByText("Partner area login")).toBeInTheDocument();
    expect(document.documentElement.lang).toBe("en");
    fireEvent.change(screen.getByTestId("partner-username"), { target: { value: "anna" } });
    fireEvent.change(screen.getByTestId("partner-password"), { target: { value: "x" } });
    fireEvent.click(screen.getByTestId("partner-login"));
    await screen.findByText("Wrong username or password.");
    expect(lastCall(calls, `${API}auth/login/`).headers.get("Accept-Language")).toBe("en");
    expect(window.localStorage.getItem("thg.partner.language")).toBe("en");
  });
});

describe("invite", () => {
  it("sets the password, then enrols the second factor", async () => {
    const calls = stubPartnerApi({
      ...loggedIn("back_office"),
      [`GET ${API}auth/csrf/`]: () => ({ status: 204 }),
      [`GET ${API}auth/invite/k3y/`]: () => ({
        body: { email: "ben@autohaus.example", partner_name: "Autohaus Muster" },
      }),
      [`POST ${API}auth/invite/k3y/`]: () => ({ body: { step: "enrol", enrolment: ENROLMENT } }),
      [`POST ${API}auth/enrol/`]: () => ({ body: { backup_codes: BACKUP_CODES, me: member("back_office") } }),
      [`GET ${API}stats/`]: () => ({ body: STATS }),
    });
    renderAt("/partner/invite/k3y");
    expect(
      await screen.findByText(/Autohaus Muster hat Sie in den Partnerbereich eingeladen \(ben@autohaus.example\)/),
    ).toBeInTheDocument();
    fireEvent.change(screen.getByTestId("invite-password"), { target: { value: "kurz" } });
    fireEvent.change(screen.getByTestId("invite-password-again"), { target: { value: "anders" } });
    fireEvent.click(screen.getByTestId("invite-submit"));
    expect(await screen.findByText("Das Passwort muss mindestens 10 Zeichen lang sein.")).toBeInTheDocument();
    expect(screen.getByText("Die Passwörter stimmen nicht überein.")).toBeInTheDocument();
    fireEvent.change(screen.getByTestId("invite-password"), { target: { value: "Lang-genug-2026" } });
    fireEvent.change(screen.getByTestId("invite-password-again"), { target: { value: "Lang-genug-2026" } });
    fireEvent.click(screen.getByTestId("invite-submit"));
    fireEvent.change(await screen.findByTestId("enrol-token"), { target: { value: "135790" } });
    fireEvent.click(screen.getByTestId("enrol-submit"));
    fireEvent.click(await screen.findByTestId("codes-done"));
    await waitFor(() => expect(currentLocation()).toBe("/partner/dashboard"));
    expect(lastCall(calls, `${API}auth/invite/k3y/`).body).toEqual({ password: "Lang-genug-2026" });
  });

  it("an expired or used invitation says so", async () => {
    stubPartnerApi({ [`GET ${API}auth/invite/old/`]: () => ({ status: 404, body: { detail: "Nicht gefunden." } }) });
    renderAt("/partner/invite/old");
    expect(await screen.findByTestId("invite-invalid")).toHaveTextContent("Diese Einladung ist abgelaufen");
  });
});

describe("layout", () => {
  it("the navigation follows the role: staff and audit only for partner admins", async () => {
    stubPartnerApi({ ...loggedIn("viewer"), [`GET ${API}stats/`]: () => ({ body: STATS }) });
    renderAt("/partner");
    const menu = await screen.findByTestId("partner-menu");
    expect(
      within(menu)
        .getAllByRole("link")
        .map((link) => link.textContent),
    ).toEqual(["Dashboard", "Anträge", "Unterpartner", "Einzelverträge", "Preise", "Massen-Uploads"]);
    await waitFor(() => expect(currentLocation()).toBe("/partner/dashboard"));
  });

  it("partner admins see every item; a viewer on the staff page gets the clear German refusal", async () => {
    stubPartnerApi({ ...loggedIn("partner_admin"), [`GET ${API}stats/`]: () => ({ body: STATS }) });
    const first = renderAt("/partner/dashboard");
    const menu = await screen.findByTestId("partner-menu");
    expect(
      within(menu)
        .getAllByRole("link")
        .map((link) => link.textContent),
    ).toEqual([
      "Dashboard",
      "Anträge",
      "Unterpartner",
      "Einzelverträge",
      "Preise",
      "Massen-Uploads",
      "Abrechnungsläufe",
      "Mitarbeiter",
      "Protokoll",
      "Datenschutz",
      "Schnittstellen",
    ]);
    first.unmount();
    vi.unstubAllGlobals();
    stubPartnerApi(loggedIn("viewer"));
    renderAt("/partner/staff");
    expect(await screen.findByTestId("forbidden")).toHaveTextContent("Dafür fehlt Ihnen die Berechtigung.");
  });

  it("logout ends the session and forgets the list's state", async () => {
    const calls = stubPartnerApi({
      ...loggedIn(),
      [`GET ${API}stats/`]: () => ({ body: STATS }),
      [`GET ${API}auth/csrf/`]: () => ({ status: 204 }),
      [`POST ${API}auth/logout/`]: () => ({ status: 204 }),
    });
    window.localStorage.setItem("filter-values", JSON.stringify({ status: ["qa_entered"] }));
    renderAt("/partner/dashboard");
    fireEvent.click(await screen.findByTestId("partner-logout"));
    await waitFor(() => expect(currentLocation()).toBe("/partner/login"));
    expect(calls.some((call) => call.path === `${API}auth/logout/` && call.method === "POST")).toBe(true);
    expect(window.localStorage.getItem("filter-values")).toBeNull();
  });
});

describe("applications", { timeout: 90_000 }, () => {
  it("the URL's filter, order and page go to the server; the rows are shown; the CSV link carries the filter", async () => {
    const calls = stubPartnerApi({ ...loggedIn("back_office"), [LIST]: () => listPage(rows(3), 312) });
    renderAt(
      "/partner/applications?status=qa_entered&status=qa_picked_up&sub_partner=1&q=Muster&ordering=sequence&page=2",
    );
    expect(await screen.findByText("100002")).toBeInTheDocument();
    expect(screen.getByText("Max Müller")).toBeInTheDocument();
    expect(screen.getByTestId("application-count")).toHaveTextContent(/^312$/);
    const list = lastCall(calls, `${API}quota_applications/`);
    expect(list.query.getAll("status")).toEqual(["qa_entered", "qa_picked_up"]);
    expect(Object.fromEntries([...list.query].filter(([name]) => name !== "status"))).toEqual({
      sub_partner: "1",
      q: "Muster",
      page: "2",
      page_size: "25",
      ordering: "sequence",
    });
    const csv = new URL(screen.getByTestId("csv-download").getAttribute("href") ?? "", "http://x");
    expect(csv.pathname).toBe(`${API}quota_applications/export.csv`);
    expect(csv.searchParams.getAll("status")).toEqual(["qa_entered", "qa_picked_up"]);
    expect(csv.searchParams.get("q")).toBe("Muster");
    expect(csv.searchParams.has("page")).toBe(false);
    // kept for the next visit
    expect(JSON.parse(window.localStorage.getItem("filter-values") ?? "{}")).toMatchObject({
      status: ["qa_entered", "qa_picked_up"],
      sub_partner: ["1"],
      q: ["Muster"],
      page: ["2"],
    });
  });

  it("the date filters hint at the format in the area's language (TT.MM.JJJJ, DD.MM.YYYY)", async () => {
    stubPartnerApi({ ...loggedIn(), [LIST]: () => listPage(rows(3), 60) });
    renderAt("/partner/applications");
    await screen.findByText("100001");
    expect(screen.getByTestId("filter-from")).toHaveAttribute("placeholder", "TT.MM.JJJJ");
    fireEvent.click(screen.getByTestId("partner-language"));
    await waitFor(() => expect(screen.getByTestId("filter-from")).toHaveAttribute("placeholder", "DD.MM.YYYY"));
    expect(screen.getByTestId("filter-to")).toHaveAttribute("placeholder", "DD.MM.YYYY");
  });

  it("the grid's secondary columns step aside on a phone; the column menu shows them again", async () => {
    setDesktop(false);
    stubPartnerApi({ ...loggedIn(), [LIST]: () => listPage(rows(3), 60) });
    renderAt("/partner/applications");
    await screen.findByText("100001");
    expect(screen.queryByRole("columnheader", { name: /FIN/ })).not.toBeInTheDocument();
    expect(screen.getByRole("columnheader", { name: /Halter/ })).toBeInTheDocument();
    const owner = screen.getByRole("columnheader", { name: /Halter/ });
    fireEvent.click(within(owner).getByLabelText("Halter Spaltenmenü"));
    fireEvent.click(await screen.findByRole("menuitem", { name: /Spalten verwalten/ }));
    fireEvent.click(await screen.findByRole("checkbox", { name: "FIN" }));
    expect(await screen.findByRole("columnheader", { name: /FIN/ })).toBeInTheDocument();
  });

  it("a wide screen shows every column of the applications grid", async () => {
    setDesktop(true);
    try {
      stubPartnerApi({ ...loggedIn(), [LIST]: () => listPage(rows(3), 60) });
      renderAt("/partner/applications");
      await screen.findByText("100001");
      for (const name of [/FIN/, /Fahrzeugklasse/, /Unterpartner/, /Einzelvertrag/, /Erstellt/])
        expect(screen.getByRole("columnheader", { name })).toBeInTheDocument();
    } finally {
      setDesktop(false);
    }
  });

  it("a filter change goes into the URL (page 1 again) and to the server; sorting by a column too", async () => {
    const calls = stubPartnerApi({ ...loggedIn(), [LIST]: () => listPage(rows(3), 60) });
    renderAt("/partner/applications?page=3");
    await screen.findByText("100001");
    fireEvent.change(screen.getByTestId("filter-q"), { target: { value: "WVWZZZ" } });
    fireEvent.submit(screen.getByTestId("filter-q").closest("form") as HTMLFormElement);
    await waitFor(() => expect(currentLocation()).toContain("q=WVWZZZ"));
    expect(currentLocation()).toContain("page=1");
    await waitFor(() => expect(lastCall(calls, `${API}quota_applications/`).query.get("q")).toBe("WVWZZZ"));
    // typed the German way, sent as the day the API takes
    fireEvent.change(screen.getByTestId("filter-from"), { target: { value: "1.3.2026" } });
    await waitFor(() =>
      expect(lastCall(calls, `${API}quota_applications/`).query.get("created_from")).toBe("2026-03-01"),
    );
    fireEvent.click(screen.getByRole("columnheader", { name: /Halter/ }));
    await waitFor(() => expect(lastCall(calls, `${API}quota_applications/`).query.get("ordering")).toBe("last_name"));
    expect(JSON.parse(window.localStorage.getItem("filter-values") ?? "{}")).toMatchObject({
      q: ["WVWZZZ"],
      created_from: ["2026-03-01"],
      ordering: ["last_name"],
    });
  });

  it("a bare /partner/applications opens the list as it was left (filter-values)", async () => {
    window.localStorage.setItem(
      "filter-values",
      JSON.stringify({ status: ["qa_paid"], legislation_year: ["2025"], page_size: ["50"] }),
    );
    const calls = stubPartnerApi({ ...loggedIn(), [LIST]: () => listPage([row(8)]) });
    renderAt("/partner/applications");
    await waitFor(() =>
      expect(currentLocation()).toBe("/partner/applications?status=qa_paid&legislation_year=2025&page_size=50"),
    );
    await screen.findByText("100008");
    const list = lastCall(calls, `${API}quota_applications/`);
    expect(list.query.get("status")).toBe("qa_paid");
    expect(list.query.get("page_size")).toBe("50");
  });

  it("bulk move: selected rows, target status and reason; the refusals are listed per application", async () => {
    const calls = stubPartnerApi({
      ...loggedIn("back_office"),
      [`GET ${API}auth/csrf/`]: () => ({ status: 204 }),
      [LIST]: () => listPage(rows(3)),
      [`POST ${API}quota_applications/moves/`]: () => ({
        body: {
          results: [
            { id: 1, ok: true, notice: "Mögliche Doppelregistrierung: die Plattform prüft den Fall." },
            { id: 2, ok: false, detail: "Von „Erfasst“ ist kein Wechsel nach „Zur Auszahlung freigegeben“ möglich." },
          ],
        },
      }),
    });
    renderAt("/partner/applications");
    await screen.findByText("100001");
    const move = screen.getByTestId("bulk-move");
    expect(move).toBeDisabled();
    fireEvent.click(within(screen.getByRole("row", { name: /100001/ })).getByRole("checkbox"));
    fireEvent.click(within(screen.getByRole("row", { name: /100002/ })).getByRole("checkbox"));
    await waitFor(() => expect(move).toHaveTextContent("Status ändern (2)"));
    fireEvent.click(move);
    const dialog = await screen.findByRole("dialog");
    fireEvent.click(within(dialog).getByTestId("move-submit"));
    expect(await within(dialog).findByText("Bitte wählen Sie einen Status.")).toBeInTheDocument();
    expect(within(dialog).getByText("Bitte geben Sie eine Begründung an.")).toBeInTheDocument();
    fireEvent.mouseDown(within(dialog).getByTestId("move-status"));
    const release = await screen.findByRole("option", { name: "Zur Auszahlung freigegeben" });
    // payout statuses are the settlement batches' (issue 46): not offered here
    expect(screen.queryByRole("option", { name: "Ausgezahlt" })).not.toBeInTheDocument();
    fireEvent.click(release);
    fireEvent.change(within(dialog).getByTestId("move-reason"), { target: { value: "Zahlung am 28.03. erfolgt" } });
    fireEvent.click(within(dialog).getByTestId("move-submit"));
    expect(await within(dialog).findByTestId("move-summary")).toHaveTextContent("1 verschoben, 1 abgelehnt.");
    // a move past review that met another partner's claim says so to the reviewer (issue 47)
    expect(within(dialog).getByTestId("move-notice-1")).toHaveTextContent(
      "100001: Mögliche Doppelregistrierung: die Plattform prüft den Fall.",
    );
    const refusals = within(dialog).getByTestId("move-refusals");
    expect(within(refusals).getByText("100002")).toBeInTheDocument();
    expect(
      within(refusals).getByText("Von „Erfasst“ ist kein Wechsel nach „Zur Auszahlung freigegeben“ möglich."),
    ).toBeInTheDocument();
    expect(lastCall(calls, `${API}quota_applications/moves/`).body).toEqual({
      ids: [1, 2],
      status: "qa_to_pay",
      reason: "Zahlung am 28.03. erfolgt",
    });
  });

  it("'select all' selects every row of the page: the moves and the batch count them and send their ids", async () => {
    const calls = stubPartnerApi({
      ...loggedIn("partner_admin"),
      [`GET ${API}auth/csrf/`]: () => ({ status: 204 }),
      [LIST]: () => listPage(rows(3)),
      [`POST ${API}quota_applications/moves/`]: () => ({
        body: { results: [1, 2, 3].map((id) => ({ id, ok: true })) },
      }),
    });
    renderAt("/partner/applications");
    await screen.findByText("100001");
    const move = screen.getByTestId("bulk-move");
    const settle = screen.getByTestId("batch-from-selection");

    fireEvent.click(screen.getByRole("checkbox", { name: "Alle Zeilen auswählen" }));

    await waitFor(() => expect(move).toHaveTextContent("Status ändern (3)"));
    expect(move).toBeEnabled();
    expect(settle).toHaveTextContent("Abrechnungslauf aus Auswahl (3)");
    expect(settle).toBeEnabled();
    // one row left out again: two remain
    fireEvent.click(within(screen.getByRole("row", { name: /100002/ })).getByRole("checkbox"));
    await waitFor(() => expect(move).toHaveTextContent("Status ändern (2)"));
    fireEvent.click(move);
    const dialog = await screen.findByRole("dialog");
    fireEvent.mouseDown(within(dialog).getByTestId("move-status"));
    fireEvent.click(await screen.findByRole("option", { name: "Zur Auszahlung freigegeben" }));
    fireEvent.change(within(dialog).getByTestId("move-reason"), { target: { value: "Sammelzahlung" } });
    fireEvent.click(within(dialog).getByTestId("move-submit"));
    await within(dialog).findByTestId("move-summary");
    expect(lastCall(calls, `${API}quota_applications/moves/`).body).toEqual({
      ids: [1, 3],
      status: "qa_to_pay",
      reason: "Sammelzahlung",
    });
  });

  it("a viewer reads the list but gets neither selection, moves nor the CSV", async () => {
    stubPartnerApi({ ...loggedIn("viewer"), [LIST]: () => listPage(rows(2)) });
    renderAt("/partner/applications");
    await screen.findByText("100001");
    expect(screen.queryByTestId("bulk-move")).toBeNull();
    expect(screen.queryByTestId("csv-download")).toBeNull();
    expect(screen.queryAllByRole("checkbox")).toHaveLength(0);
  });

  it("a large match's count is the server's estimate, shown as about", async () => {
    stubPartnerApi({
      ...loggedIn(),
      [LIST]: () => ({ body: { ...listPage(rows(25), 18_541).body, count_exact: false } }),
    });
    renderAt("/partner/applications");
    expect(await screen.findByTestId("application-count")).toHaveTextContent("ca. 18.541");
  });

  it("an empty result says so; a 403 shows the server's German refusal", async () => {
    stubPartnerApi({ ...loggedIn(), [LIST]: () => listPage([]) });
    const first = renderAt("/partner/applications?status=qa_test");
    expect(await screen.findByText("Keine Anträge für diesen Filter.")).toBeInTheDocument();
    first.unmount();
    vi.unstubAllGlobals();
    stubPartnerApi({
      ...loggedIn(),
      [LIST]: () => ({ status: 403, body: { detail: "Dafür fehlt Ihnen die Berechtigung." } }),
    });
    renderAt("/partner/applications");
    expect(await screen.findByTestId("forbidden")).toHaveTextContent("Dafür fehlt Ihnen die Berechtigung.");
  });

  it("the detail drawer: zoomable scan, the reader's fields, masked IBAN, history, allowed moves", async () => {
    const calls = stubPartnerApi({
      ...loggedIn("back_office"),
      [`GET ${API}auth/csrf/`]: () => ({ status: 204 }),
      [LIST]: () => listPage(rows(3)),
      [`GET ${API}quota_applications/2/`]: () => ({ body: detail(2) }),
      [`POST ${API}quota_applications/moves/`]: () => ({ body: { results: [{ id: 2, ok: true }] } }),
    });
    renderAt("/partner/applications");
    fireEvent.click(await screen.findByTestId("open-2"));
    await waitFor(() => expect(currentLocation()).toContain("open=2"));
    const drawer = await screen.findByTestId("application-detail");
    expect(within(drawer).getByRole("img", { name: "Zulassungsbescheinigung des Antrags 100002" })).toHaveAttribute(
      "src",
      "/story-scan.svg",
    );
    const zoom = within(drawer).getByTestId("scan-zoom");
    fireEvent.click(zoom);
    expect(zoom).toHaveAttribute("aria-pressed", "true");
    expect(within(drawer).getByTestId("detail-iban")).toHaveTextContent("DE89 **** **** **** **30 00");
    expect(within(drawer).getByText("17.05.2023")).toBeInTheDocument();
    expect(within(drawer).getByText("0004")).toBeInTheDocument();
    const history = within(drawer).getByTestId("detail-history");
    expect(within(history).getAllByRole("listitem")).toHaveLength(3);
    expect(within(history).getByText("Prüfung begonnen")).toBeInTheDocument();
    fireEvent.click(within(drawer).getByTestId("move-to-qa_sent_to_uba"));
    const dialog = await screen.findByRole("dialog", { name: "Status ändern" });
    fireEvent.change(within(dialog).getByTestId("move-reason"), { target: { value: "Vollständig" } });
    fireEvent.click(within(dialog).getByTestId("move-submit"));
    expect(await within(dialog).findByText("1 verschoben, 0 abgelehnt.")).toBeInTheDocument();
    expect(lastCall(calls, `${API}quota_applications/moves/`).body).toEqual({
      ids: [2],
      status: "qa_sent_to_uba",
      reason: "Vollständig",
    });
    fireEvent.click(within(dialog).getByTestId("move-close"));
    fireEvent.click(screen.getByTestId("drawer-close"));
    await waitFor(() => expect(currentLocation()).not.toContain("open="));
  });
});

describe("the reader's fields in the drawer", { timeout: 90_000 }, () => {
  it("shows value, confidence and 'nicht gelesen'; the back office corrects a field, the server's rule under it", async () => {
    const corrected = detail(2);
    corrected.registration.fields = corrected.registration.fields.map((field) =>
      field.code === "A"
        ? { ...field, value: "B-AB 1234E", confidence: 1, unread: false, source: "corrected", corrected_by: "Berta" }
        : field,
    );
    corrected.registration.corrections = [
      {
        code: "A",
        before: "",
        after: "B-AB 1234E",
        actor: "Berta",
        rule: "unread",
        created_at: "2026-03-27T09:00:00+01:00",
      },
    ];
    let tries = 0;
    const calls = stubPartnerApi({
      ...loggedIn("back_office"),
      [`GET ${API}auth/csrf/`]: () => ({ status: 204 }),
      [LIST]: () => listPage(rows(3)),
      [`GET ${API}quota_applications/2/`]: () => ({ body: detail(2) }),
      [`POST ${API}quota_applications/2/corrections/`]: () =>
        ++tries === 1
          ? {
              status: 400,
              body: { value: { error_code: "READ008", message: "Kein gültiges Kennzeichen (z. B. B-AB 1234E)." } },
            }
          : { body: corrected },
    });
    renderAt("/partner/applications?open=2");
    const table = await screen.findByTestId("reading-table");
    expect(within(within(table).getByTestId("reading-E")).getByText("93 %")).toBeInTheDocument();
    expect(within(within(table).getByTestId("reading-B")).getByText("17.05.2023")).toBeInTheDocument();
    const plate = within(table).getByTestId("reading-A");
    expect(within(plate).getByText("nicht gelesen")).toBeInTheDocument();

    fireEvent.click(within(plate).getByRole("button", { name: "Kennzeichen (A) korrigieren" }));
    const input = within(plate).getByLabelText("Richtiger Wert");
    fireEvent.change(input, { target: { value: "kein kennzeichen" } });
    fireEvent.click(within(plate).getByRole("button", { name: "Speichern" }));
    expect(await within(plate).findByText("Kein gültiges Kennzeichen (z. B. B-AB 1234E).")).toBeInTheDocument();
    fireEvent.change(input, { target: { value: "B-AB 1234E" } });
    fireEvent.click(within(plate).getByRole("button", { name: "Speichern" }));

    expect(await within(plate).findByText("korrigiert von Berta")).toBeInTheDocument();
    expect(within(plate).getByText("100 %")).toBeInTheDocument();
    expect(within(plate).queryByText("nicht gelesen")).not.toBeInTheDocument();
    expect(screen.getByTestId("detail-corrections")).toHaveTextContent("Kennzeichen (A): leer → B-AB 1234E");
    expect(screen.getByTestId("detail-corrections")).toHaveTextContent("vorher entschieden durch: Nicht gelesen");
    expect(lastCall(calls, `${API}quota_applications/2/corrections/`).body).toEqual({
      field: "A",
      value: "B-AB 1234E",
    });
  });

  it("a viewer sees the fields but no correction", async () => {
    stubPartnerApi({
      ...loggedIn("viewer"),
      [LIST]: () => listPage(rows(3)),
      [`GET ${API}quota_applications/2/`]: () => ({ body: detail(2) }),
    });
    renderAt("/partner/applications?open=2");
    const table = await screen.findByTestId("reading-table");
    expect(within(table).getByText("VOLKSWAGEN")).toBeInTheDocument();
    expect(within(table).queryByRole("button", { name: /korrigieren/ })).not.toBeInTheDocument();
  });
});

describe("sub-partners and single deals", { timeout: 90_000 }, () => {
  it("creates a sub-partner: the rules first, then the server's message under its field; the open form is kept", async () => {
    let tries = 0;
    const calls = stubPartnerApi({
      ...loggedIn("back_office"),
      [`GET ${API}auth/csrf/`]: () => ({ status: 204 }),
      [`GET ${API}sub_partners/`]: () => listPage([subPartner(1)]),
      [`POST ${API}sub_partners/`]: () =>
        ++tries === 1
          ? {
              status: 400,
              body: {
                referral_key: { error_code: "SUB002", message: "Dieser Empfehlungsschlüssel ist schon vergeben." },
              },
            }
          : { status: 201, body: subPartner(2, { name: "Solar Schulz", referral_key: "schulz" }) },
    });
    renderAt("/partner/sub-partners");
    expect(await screen.findByText("Elektro Meier")).toBeInTheDocument();
    fireEvent.click(screen.getByTestId("sub-partner-add"));
    const form = await screen.findByTestId("sub-partner-form");
    expect(window.localStorage.getItem("subpartner-id")).toBe('"new"');
    fireEvent.change(within(form).getByTestId("field-contact_email"), { target: { value: "kein-mail" } });
    fireEvent.change(within(form).getByTestId("field-fee_share_percent"), { target: { value: "120" } });
    fireEvent.click(within(form).getByTestId("form-save"));
    expect(await within(form).findByText("Pflichtfeld")).toBeInTheDocument();
    expect(within(form).getByText("Bitte geben Sie eine gültige E-Mail-Adresse ein.")).toBeInTheDocument();
    expect(within(form).getByText("Eine Zahl von 0 bis 100 mit höchstens zwei Nachkommastellen.")).toBeInTheDocument();
    fireEvent.change(within(form).getByTestId("field-name"), { target: { value: "Solar Schulz" } });
    fireEvent.change(within(form).getByTestId("field-contact_email"), { target: { value: "info@schulz.example" } });
    fireEvent.change(within(form).getByTestId("field-referral_key"), { target: { value: "meier-1" } });
    fireEvent.change(within(form).getByTestId("field-fee_share_percent"), { target: { value: "7,5" } });
    await waitFor(() =>
      expect(JSON.parse(window.localStorage.getItem("sub-partner-details") ?? "{}")).toMatchObject({
        name: "Solar Schulz",
        fee_share_percent: "7,5",
      }),
    );
    fireEvent.click(within(form).getByTestId("form-save"));
    expect(await within(form).findByText("Dieser Empfehlungsschlüssel ist schon vergeben.")).toBeInTheDocument();
    fireEvent.change(within(form).getByTestId("field-referral_key"), { target: { value: "schulz" } });
    fireEvent.click(within(form).getByTestId("form-save"));
    await waitFor(() => expect(screen.queryByTestId("sub-partner-form")).toBeNull());
    expect(lastCall(calls, `${API}sub_partners/`, "POST").body).toEqual({
      name: "Solar Schulz",
      contact_name: "",
      contact_email: "info@schulz.example",
      contact_phone: "",
      referral_key: "schulz",
      fee_share_percent: "7.50",
    });
    expect(window.localStorage.getItem("subpartner-id")).toBeNull();
    expect(window.localStorage.getItem("sub-partner-details")).toBeNull();
  });

  it("an unsaved sub-partner form opens again after a reload", async () => {
    window.localStorage.setItem("subpartner-id", "1");
    window.localStorage.setItem(
      "sub-partner-details",
      JSON.stringify({ name: "Elektro Meier GmbH", fee_share_percent: "12" }),
    );
    const calls = stubPartnerApi({
      ...loggedIn(),
      [`GET ${API}auth/csrf/`]: () => ({ status: 204 }),
      [`GET ${API}sub_partners/`]: () => listPage([subPartner(1)]),
      [`PATCH ${API}sub_partners/1/`]: () => ({ body: subPartner(1) }),
    });
    renderAt("/partner/sub-partners");
    const form = await screen.findByTestId("sub-partner-form");
    expect(within(form).getByTestId("field-name")).toHaveValue("Elektro Meier GmbH");
    fireEvent.click(within(form).getByTestId("form-save"));
    await waitFor(() => expect(lastCall(calls, `${API}sub_partners/1/`)?.method).toBe("PATCH"));
    expect(lastCall(calls, `${API}sub_partners/1/`).body).toMatchObject({
      name: "Elektro Meier GmbH",
      fee_share_percent: "12.00",
    });
  });

  it("creates a single deal: euros and years as the API takes them", async () => {
    const calls = stubPartnerApi({
      ...loggedIn("partner_admin"),
      [`GET ${API}auth/csrf/`]: () => ({ status: 204 }),
      [`GET ${API}single_deals/`]: () => listPage([singleDeal(1)]),
      [`POST ${API}single_deals/`]: () => ({ status: 201, body: singleDeal(2) }),
    });
    renderAt("/partner/single-deals");
    expect(await screen.findByText("Flotte Stadtwerke")).toBeInTheDocument();
    expect(screen.getByText("12 / 50")).toBeInTheDocument();
    fireEvent.click(screen.getByTestId("single-deal-add"));
    const form = await screen.findByTestId("single-deal-form");
    fireEvent.change(within(form).getByTestId("field-name"), { target: { value: "Taxi Berlin" } });
    fireEvent.change(within(form).getByTestId("field-price_net"), { target: { value: "70,5" } });
    fireEvent.change(within(form).getByTestId("field-legislation_years"), { target: { value: "2026, 2027" } });
    fireEvent.change(within(form).getByTestId("field-vehicle_cap"), { target: { value: "0" } });
    fireEvent.click(within(form).getByTestId("form-save"));
    expect(await within(form).findByText("Eine ganze Zahl ab 1, oder leer für keine Grenze.")).toBeInTheDocument();
    expect(JSON.parse(window.localStorage.getItem("single-deal-details") ?? "{}")).toMatchObject({
      id: null,
      values: { name: "Taxi Berlin" },
    });
    fireEvent.change(within(form).getByTestId("field-vehicle_cap"), { target: { value: "25" } });
    fireEvent.click(within(form).getByTestId("form-save"));
    await waitFor(() => expect(screen.queryByTestId("single-deal-form")).toBeNull());
    expect(lastCall(calls, `${API}single_deals/`, "POST").body).toEqual({
      name: "Taxi Berlin",
      customer: "",
      price_net: "70.50",
      vat_percent: "19.00",
      legislation_years: [2026, 2027],
      vehicle_cap: 25,
    });
    expect(window.localStorage.getItem("single-deal-details")).toBeNull();
  });
});

describe("staff, audit, dashboard", { timeout: 90_000 }, () => {
  it("partner admins invite staff, change roles and deactivate; never themselves", async () => {
    const calls = stubPartnerApi({
      ...loggedIn(),
      [`GET ${API}auth/csrf/`]: () => ({ status: 204 }),
      [`GET ${API}staff/`]: () => ({
        body: {
          count: 2,
          results: [
            {
              ...member(),
              is_active: true,
              created_at: "2026-01-01T00:00:00Z",
              last_login: null,
              invited_by: null,
              has_second_factor: true,
            },
            {
              id: 2,
              email: "ben@autohaus.example",
              name: "Ben Backoffice",
              role: "back_office",
              is_active: true,
              created_at: "2026-01-02T00:00:00Z",
              last_login: null,
              invited_by: 1,
              has_second_factor: true,
            },
          ],
          invites: [
            {
              id: 5,
              email: "cem@autohaus.example",
              name: "Cem",
              role: "viewer",
              created_at: "2026-03-01T00:00:00Z",
              expires_at: "2026-03-04T00:00:00Z",
              invited_by: 1,
            },
          ],
        },
      }),
      [`POST ${API}staff/`]: () => ({ status: 201, body: {} }),
      [`PATCH ${API}staff/2/`]: () => ({ body: {} }),
    });
    renderAt("/partner/staff");
    const table = await screen.findByTestId("staff-table");
    expect(within(table).getByText("Eingeladen")).toBeInTheDocument();
    expect(within(table).queryByTestId("staff-deactivate-1")).toBeNull();
    fireEvent.click(within(table).getByTestId("staff-deactivate-2"));
    await waitFor(() => expect(lastCall(calls, `${API}staff/2/`).body).toEqual({ is_active: false }));
    fireEvent.change(screen.getByTestId("invite-name"), { target: { value: "Dana" } });
    fireEvent.change(screen.getByTestId("invite-email"), { target: { value: "dana@autohaus.example" } });
    fireEvent.click(screen.getByTestId("invite-send"));
    expect(await screen.findByTestId("staff-invited")).toHaveTextContent(
      "Die Einladung an dana@autohaus.example ist verschickt.",
    );
    expect(lastCall(calls, `${API}staff/`, "POST").body).toEqual({
      name: "Dana",
      email: "dana@autohaus.example",
      role: "back_office",
    });
  });

  it("the audit log shows who changed what", async () => {
    stubPartnerApi({
      ...loggedIn(),
      [`GET ${API}audit/`]: () => ({
        body: {
          count: 1,
          page: 1,
          page_size: 50,
          results: [
            {
              id: 9,
              actor: "Anna Admin",
              actor_id: 1,
              action: "sub_partner.update",
              object_type: "sub_partner",
              object_id: "1",
              before: { fee_share_percent: "10.00" },
              after: { fee_share_percent: "12.00" },
              created_at: "2026-03-05T11:00:00+01:00",
            },
          ],
        },
      }),
    });
    renderAt("/partner/audit");
    // in German, not as the server's codes (issue 49)
    expect(await screen.findByText("Unterpartner geändert", { selector: ":not(option)" })).toBeInTheDocument();
    expect(screen.getByText("Provision in %: 10,00 → 12,00")).toBeInTheDocument();
    expect(screen.getByText("Unterpartner #1")).toBeInTheDocument();
  });

  it("the audit log is filtered by actions and objects offered by their German names", async () => {
    const calls = stubPartnerApi({
      ...loggedIn(),
      [`GET ${API}audit/`]: () => ({ body: { count: 0, page: 1, page_size: 50, results: [] } }),
    });
    renderAt("/partner/audit");
    const action = await screen.findByTestId("audit-action");
    const names = within(action)
      .getAllByRole("option")
      .map((option) => option.textContent ?? "");
    expect(names).toContain("Unterpartner angelegt");
    expect(names[0]).toBe("Alle Aktionen");
    // no code is offered as it is (sub_partner.create, operations.subpartner)
    expect(names.filter((name) => /^[a-z_]+\.[a-z_]+$/.test(name))).toEqual([]);
    fireEvent.change(action, { target: { value: "sub_partner.create" } });
    await waitFor(() => expect(lastCall(calls, `${API}audit/`).query.get("action")).toBe("sub_partner.create"));
    const object = screen.getByTestId("audit-object");
    expect(within(object).getByRole("option", { name: "Unterpartner" })).toBeInTheDocument();
    expect(within(object).queryByRole("option", { name: "operations.subpartner" })).toBeNull();
    fireEvent.change(object, { target: { value: "operations.subpartner" } });
    await waitFor(() => expect(lastCall(calls, `${API}audit/`).query.get("object_type")).toBe("operations.subpartner"));
    expect(currentLocation()).toContain("action=sub_partner.create");
  });

  it("the dashboard asks for its period and sub-partner and draws the charts; an empty period says so", async () => {
    const calls = stubPartnerApi({
      ...loggedIn("viewer"),
      [`GET ${API}stats/`]: (call) => ({ body: call.query.get("sub_partner") === "2" ? EMPTY_STATS : STATS }),
    });
    renderAt("/partner/dashboard?created_from=2026-03-01");
    const charts = await screen.findByTestId("stats-charts");
    expect(lastCall(calls, `${API}stats/`).query.get("created_from")).toBe("2026-03-01");
    for (const title of [
      "Registrierungen pro Tag",
      "Trichter",
      "Statusverteilung",
      "Auszahlungen (brutto)",
      "Nach Unterpartner",
    ]) {
      expect(within(charts).getByRole("region", { name: title })).toBeInTheDocument();
    }
    expect(screen.getByRole("table", { name: "Tabelle: Auszahlungen (brutto)" })).toHaveTextContent("4.521,30 €");
    expect(charts.querySelectorAll("svg").length).toBeGreaterThanOrEqual(5);
    fireEvent.mouseDown(screen.getByTestId("stats-sub-partner"));
    fireEvent.click(await screen.findByRole("option", { name: "Wallbox-Service Süd" }));
    expect(await screen.findByTestId("stats-empty")).toHaveTextContent("Für diesen Zeitraum gibt es noch keine Daten.");
    expect(currentLocation()).toContain("sub_partner=2");
  });
});

describe("config", () => {
  it("works for each partner kind's theme", async () => {
    for (const kind of ["utility", "wallbox"] as const) {
      stubPartnerApi({ [`GET ${API}auth/csrf/`]: () => ({ status: 204 }) });
      const view = renderAt("/partner/login", partnerConfig(kind));
      expect(await screen.findByText("Anmeldung Partnerbereich")).toBeInTheDocument();
      view.unmount();
      vi.unstubAllGlobals();
    }
  });
});
