import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { renderAt } from "@/test/render";

import { amountValue } from "../forms/price-schema";

import type { Role } from "../api/auth";
import { FILTER_OPTIONS, member, STATS } from "../mocks/fixtures";
import { BATCH_LIST } from "../mocks/money-fixtures";
import { MISSING, NO_MISSING, TABLE_EMPTY, TABLE_SAVED, VERSIONS } from "../mocks/prices-fixtures";
import { lastCall, listPage, type PartnerRoutes, partnerTestSetup, stubPartnerApi } from "../mocks/test-api";

const API = "/api/partner/";

function loggedIn(role: Role = "partner_admin"): PartnerRoutes {
  return {
    [`GET ${API}me/`]: () => ({ body: member(role) }),
    [`GET ${API}auth/csrf/`]: () => {
      document.cookie = "csrftoken=csrf-123; path=/";
      return { status: 204 };
    },
    [`GET ${API}quota_applications/filters/`]: () => ({ body: FILTER_OPTIONS }),
  };
}

const prices = (table = TABLE_SAVED): PartnerRoutes => ({
  [`GET ${API}fees/`]: () => ({ body: table }),
  [`GET ${API}fees/versions/`]: () => ({ body: table.version ? VERSIONS : [] }),
  [`GET ${API}fees/missing/`]: () => ({ body: table.missing }),
});

partnerTestSetup();

describe("amounts as a German reader types them", () => {
  it.each([
    ["85", "85.00"],
    ["85,5", "85.50"],
    ["1.234,56 €", "1234.56"],
    ["85.00", "85.00"],
    ["85,555", null],
    ["-5", null],
    ["", null],
  ])("%s → %s", (typed, value) => expect(amountValue(typed)).toBe(value));
});

describe("Preise", { timeout: 90_000 }, () => {
  it("shows the partner admin the table in German with its version, who saved it and the versions", async () => {
    stubPartnerApi({ ...loggedIn(), ...prices() });
    renderAt("/partner/prices");
    const form = await screen.findByTestId("prices-form", {}, { timeout: 30_000 });
    expect(screen.getByTestId("prices-version")).toHaveTextContent(
      "Version 2 · Gespeichert von Petra Sommer <p.sommer@autohaus.example> am",
    );
    expect(within(form).getByTestId("price-private_payout-1")).toHaveValue("85,00");
    expect(within(form).getByTestId("price-business_net-2")).toHaveValue("110,00");
    expect(within(form).getByTestId("price-vat-2")).toHaveValue("net_only");
    expect(within(form).getAllByText("Höchstens 1.000,00 €").length).toBeGreaterThan(0);
    const versions = await screen.findByTestId("prices-versions");
    expect(versions).toHaveTextContent("Preise 2026 laut Vertrag");
    expect(versions).toHaveTextContent("von Anfang an");
    expect(screen.queryByTestId("price-missing")).toBeNull();
  });

  it("saves the edited table as a new version on top of the one it was edited from", async () => {
    const calls = stubPartnerApi({
      ...loggedIn(),
      ...prices(),
      [`PUT ${API}fees/`]: () => ({ body: { ...TABLE_SAVED, version: 3 } }),
    });
    renderAt("/partner/prices");
    const input = await screen.findByTestId("price-private_payout-1", {}, { timeout: 30_000 });
    fireEvent.change(input, { target: { value: "99,5" } });
    fireEvent.change(screen.getByTestId("price-note"), { target: { value: "Neuer Vertrag" } });
    fireEvent.click(screen.getByTestId("price-remove-3"));
    fireEvent.click(screen.getByTestId("price-save"));
    expect(await screen.findByTestId("prices-notice")).toHaveTextContent("Version 3 gespeichert.");
    const put = lastCall(calls, `${API}fees/`, "PUT");
    expect(put.body).toEqual({
      base_version: 2,
      note: "Neuer Vertrag",
      rows: [{ ...TABLE_SAVED.rows[0], private_payout: "99.50" }, TABLE_SAVED.rows[1]],
    });
  });

  it("refuses an amount above the platform's bound or of zero before asking the server", async () => {
    const calls = stubPartnerApi({ ...loggedIn(), ...prices() });
    renderAt("/partner/prices");
    fireEvent.change(await screen.findByTestId("price-private_payout-1", {}, { timeout: 30_000 }), {
      target: { value: "85000" },
    });
    fireEvent.change(screen.getByTestId("price-business_net-2"), { target: { value: "0" } });
    fireEvent.click(screen.getByTestId("price-save"));
    expect(await screen.findByText("Höchstens 1.000,00 € je Fahrzeug (Grenze der Plattform).")).toBeVisible();
    expect(screen.getByText("Der Betrag muss über 0,00 € liegen.")).toBeVisible();
    expect(calls.some((call) => call.method === "PUT")).toBe(false);
  });

  it("shows the server's refusal naming the bound at its field", async () => {
    const message =
      "Zeile 1 (Auszahlung privat): Der Betrag muss über 0,00 € und höchstens 90,00 € je Fahrzeug der Klasse M1 im Quotenjahr 2026 liegen (Grenze der Plattform).";
    stubPartnerApi({
      ...loggedIn(),
      ...prices(),
      [`PUT ${API}fees/`]: () => ({
        status: 400,
        body: { fees: { error_code: "FEE002", message, details: { row: 1, field: "private_payout", max: "90.00" } } },
      }),
    });
    renderAt("/partner/prices");
    fireEvent.change(await screen.findByTestId("price-private_payout-1", {}, { timeout: 30_000 }), {
      target: { value: "95" },
    });
    fireEvent.click(screen.getByTestId("price-save"));
    expect(await screen.findByTestId("prices-notice")).toHaveTextContent(message);
    await waitFor(() => expect(screen.getByTestId("price-private_payout-1")).toHaveAttribute("aria-invalid", "true"));
  });

  it.each(["back_office", "viewer"] as Role[])("shows %s the prices without an editor", async (role) => {
    stubPartnerApi({ ...loggedIn(role), ...prices() });
    renderAt("/partner/prices");
    const table = await screen.findByTestId("prices-table", {}, { timeout: 30_000 });
    expect(table).toHaveTextContent("85,00 €");
    expect(table).toHaveTextContent("ohne USt.");
    expect(screen.getByText("Nur Partner-Admins können die Preise ändern.")).toBeVisible();
    expect(screen.queryByTestId("price-save")).toBeNull();
    expect(screen.getByRole("link", { name: "Preise" })).toBeVisible();
  });

  it("warns on the dashboard while payable applications have no price, with a link to the prices", async () => {
    stubPartnerApi({
      ...loggedIn(),
      ...prices(TABLE_EMPTY),
      [`GET ${API}stats/`]: () => ({ body: STATS }),
    });
    renderAt("/partner/dashboard");
    const warning = await screen.findByTestId("price-missing", {}, { timeout: 30_000 });
    expect(warning).toHaveTextContent(
      "14 zur Auszahlung freigegebene Anträge haben keinen Preis (2026 M1: 13, 2026 N1: 1). Sie werden bei einem Abrechnungslauf ausgelassen, bis ein Preis hinterlegt ist.",
    );
    expect(within(warning).getByTestId("price-missing-link")).toHaveAttribute("href", "/partner/prices");
  });

  it("warns before a settlement batch, and not while every payable application has a price", async () => {
    let missing = MISSING;
    stubPartnerApi({
      ...loggedIn(),
      [`GET ${API}fees/missing/`]: () => ({ body: missing }),
      [`GET ${API}settlement_batches/`]: () => listPage(BATCH_LIST),
    });
    const view = renderAt("/partner/settlement-batches");
    fireEvent.click(await screen.findByTestId("batch-add", {}, { timeout: 30_000 }));
    const dialog = await screen.findByTestId("batch-create-form");
    expect(await within(dialog).findByTestId("price-missing")).toHaveTextContent("14 zur Auszahlung");
    view.unmount();

    missing = NO_MISSING;
    renderAt("/partner/settlement-batches");
    fireEvent.click(await screen.findByTestId("batch-add", {}, { timeout: 30_000 }));
    await screen.findByTestId("batch-create-form");
    await waitFor(() => expect(screen.queryByTestId("price-missing")).toBeNull());
  });
});
