import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";

import { renderAt } from "@/test/render";

import type { Role } from "../api/auth";
import { detail, FILTER_OPTIONS, member, rows } from "../mocks/fixtures";
import { type PartnerCall, listPage, partnerTestSetup, stubPartnerApi } from "../mocks/test-api";

const API = "/api/partner/";
const QUEUE = `GET ${API}quota_applications/review/`;
const REPORT = `GET ${API}quota_applications/review/report/`;

const field = (code: string, value: string | null, decided_by: string, confidence: number | null = null) => ({
  code,
  value,
  confidence,
  unread: value === null,
  decided_by,
  box: [0.35, 0.2, 0.62, 0.24],
});
const queueRow = (id: number, fields: ReturnType<typeof field>[]) => ({
  id,
  sequence: 1000 + id,
  status: "qa_entered",
  status_label: "Eingegangen",
  created_at: "2026-03-01T10:00:00+01:00",
  owner_name: "Erika Mustermann",
  vin: "",
  image_url: `/api/bev_registrations/images/token-${id}/`,
  fields,
});
const QUEUE_ROWS = [
  queueRow(7, [field("E", null, "field3_disagrees"), field("B", "2021-03-04", "majority", 0.62)]),
  queueRow(8, [field("J", "M1", "unsure", 0.5)]),
];
const REPORT_ROWS = [
  { code: "B", rule: "majority", stored: 4, corrected: 2, share: 0.5 },
  { code: "E", rule: "field3", stored: 10, corrected: 0, share: 0 },
];

function routes(role: Role) {
  return {
    [`GET ${API}me/`]: () => ({ body: member(role) }),
    [`GET ${API}auth/csrf/`]: () => {
      document.cookie = "csrftoken=csrf-123; path=/";
      return { status: 204 };
    },
    [`GET ${API}quota_applications/filters/`]: () => ({ body: FILTER_OPTIONS }),
    [QUEUE]: () => listPage(QUEUE_ROWS),
    [REPORT]: () => ({ body: { results: REPORT_ROWS } }),
  };
}

const corrections = (calls: PartnerCall[]) =>
  calls.filter((call) => call.method === "POST" && call.path.endsWith("/corrections/"));

partnerTestSetup();

describe("review of the reader's unsure fields", { timeout: 90_000 }, () => {
  it("works by keyboard: Enter saves and moves on, Escape skips, an error keeps the field", async () => {
    let jTries = 0;
    const calls = stubPartnerApi({
      ...routes("back_office"),
      [`POST ${API}quota_applications/7/corrections/`]: () => ({ body: detail(7) }),
      [`POST ${API}quota_applications/8/corrections/`]: () =>
        ++jTries === 1
          ? { status: 400, body: { value: { error_code: "READ006", message: "Keine bekannte Fahrzeugklasse." } } }
          : { body: detail(8) },
    });
    const user = userEvent.setup();
    renderAt("/partner/review");

    const list = await screen.findByTestId("review-list");
    const vin = within(list).getByTestId("review-input-7-E");
    await waitFor(() => expect(vin).toHaveFocus());
    expect(within(list).getByRole("img", { name: "Ausschnitt FIN (E)" })).toBeInTheDocument();
    expect(
      within(screen.getByTestId("review-item-7-E")).getByText("entschieden durch: Widerspricht der Prüfziffer"),
    ).toBeInTheDocument();
    expect(within(list).getByTestId("review-input-7-B")).toHaveValue("04.03.2021");
    expect(within(list).getAllByTestId("review-open-7")[0]).toHaveAttribute("href", "/partner/applications?open=7");

    await user.keyboard("WVWZZZ1KZAW000123{Enter}");
    await waitFor(() => expect(within(list).getByTestId("review-input-7-B")).toHaveFocus());
    expect(corrections(calls).map((call) => call.body)).toEqual([{ field: "E", value: "WVWZZZ1KZAW000123" }]);
    expect(within(screen.getByTestId("review-item-7-E")).getByText("Gespeichert")).toBeInTheDocument();

    await user.keyboard("{Escape}");
    const vehicleClass = within(list).getByTestId("review-input-8-J");
    expect(vehicleClass).toHaveFocus();
    expect(within(screen.getByTestId("review-item-7-B")).getByText("Übersprungen")).toBeInTheDocument();

    await user.keyboard("{Enter}");
    expect(await within(list).findByText("Keine bekannte Fahrzeugklasse.")).toBeInTheDocument();
    expect(vehicleClass).toHaveFocus();
    await user.clear(vehicleClass);
    await user.keyboard("N1{Enter}");

    await waitFor(() => expect(screen.getByTestId("review-done")).toHaveFocus());
    expect(corrections(calls).map((call) => [call.path, call.body])).toEqual([
      [`${API}quota_applications/7/corrections/`, { field: "E", value: "WVWZZZ1KZAW000123" }],
      [`${API}quota_applications/8/corrections/`, { field: "J", value: "M1" }],
      [`${API}quota_applications/8/corrections/`, { field: "J", value: "N1" }],
    ]);
    // the skipped date was never sent; the report names field and rule in German
    const report = screen.getByTestId("review-report");
    expect(within(report).getByText("Mehrheit der Lesungen")).toBeInTheDocument();
    expect(within(report).getByText("50 %")).toBeInTheDocument();
    expect(within(screen.getByTestId("partner-menu")).getByText("Prüfung")).toBeInTheDocument();
  });

  it("a viewer sees crops and values but no input", async () => {
    stubPartnerApi(routes("viewer"));
    renderAt("/partner/review");
    const list = await screen.findByTestId("review-list");
    expect(within(list).getAllByRole("img")).toHaveLength(3);
    expect(within(list).queryByRole("textbox")).toBeNull();
    expect(screen.getByText("Sie können die Felder ansehen, aber nicht korrigieren.")).toBeInTheDocument();
  });

  it("the drawer names the rule that decided each field", async () => {
    const read = detail(2);
    read.registration.decided_by = { E: "field3", B: "agreement", A: "unread" };
    stubPartnerApi({
      ...routes("viewer"),
      [`GET ${API}quota_applications/`]: () => listPage(rows(3)),
      [`GET ${API}quota_applications/2/`]: () => ({ body: read }),
    });
    renderAt("/partner/applications?open=2");
    const table = await screen.findByTestId("reading-table");
    expect(within(table).getByTestId("decided-E")).toHaveTextContent("entschieden durch: Prüfziffer (Feld 3)");
    expect(within(table).getByTestId("decided-B")).toHaveTextContent("entschieden durch: Übereinstimmende Lesungen");
    expect(within(table).getByTestId("decided-A")).toHaveTextContent("entschieden durch: Nicht gelesen");
    expect(within(table).queryByTestId("decided-J")).toBeNull();
  });
});
