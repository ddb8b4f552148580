import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { renderAt } from "@/test/render";

import type { Role } from "../api/auth";
import { member } from "../mocks/fixtures";
import { PARTNER_KEYS } from "../lib/storage";
import { type PartnerCall, partnerTestSetup, stubPartnerApi } from "../mocks/test-api";

const API = "/api/partner/";
const PREVIEW = `POST ${API}privacy/erasure/preview/`;
const ERASE = `POST ${API}privacy/erasure/`;

partnerTestSetup({ csrfCookie: "csrftoken=csrf-priv; path=/" });

function admin(role: Role = "partner_admin") {
  return { [`GET ${API}me/`]: () => ({ body: member(role) }) };
}

const posted = (calls: PartnerCall[], path: string) => calls.filter((c) => c.method === "POST" && c.path === path);

describe("data protection page", () => {
  it("a partner admin checks an address, gives the request's reference and erases", async () => {
    const calls = stubPartnerApi({
      ...admin(),
      [PREVIEW]: () => ({
        body: { registrations: 2, applications: 3, payout_records_kept: 1, settlement_items_kept: 2 },
      }),
      [ERASE]: () => ({
        body: { detail: "Das Kundenkonto und seine Daten wurden gelöscht.", counts: { accounts: 1 } },
      }),
    });
    renderAt("/partner/privacy");

    // a malformed address is refused before any call
    fireEvent.change(await screen.findByTestId("erasure-email"), { target: { value: "kein-at" } });
    fireEvent.click(screen.getByTestId("erasure-check"));
    expect(await screen.findByText("Bitte geben Sie eine gültige E-Mail-Adresse ein.")).toBeVisible();
    expect(posted(calls, `${API}privacy/erasure/preview/`)).toHaveLength(0);

    fireEvent.change(screen.getByTestId("erasure-email"), { target: { value: " ina@example.de " } });
    fireEvent.click(screen.getByTestId("erasure-check"));
    const preview = await screen.findByTestId("erasure-preview");
    expect(preview).toHaveTextContent("Registrierungen2");
    expect(preview).toHaveTextContent("Auszahlungsbelege, die pseudonymisiert aufbewahrt werden1");
    expect(preview).toHaveTextContent("Positionen in Auszahlungsläufen, die ohne Namen aufbewahrt werden2");
    expect(posted(calls, `${API}privacy/erasure/preview/`)[0].body).toEqual({ email: "ina@example.de" });

    // the dialog wants the reference and the identity check
    fireEvent.click(within(preview).getByTestId("erasure-start"));
    const dialog = await screen.findByRole("dialog");
    expect(dialog).toHaveTextContent("Das Konto von ina@example.de und seine Daten werden sofort gelöscht.");
    fireEvent.click(within(dialog).getByTestId("erasure-confirm"));
    expect(await within(dialog).findByText("Bitte bestätigen Sie die Prüfung.")).toBeVisible();
    expect(within(dialog).getByText(/mindestens 3 Zeichen/)).toBeVisible();
    expect(posted(calls, `${API}privacy/erasure/`)).toHaveLength(0);

    fireEvent.change(within(dialog).getByTestId("erasure-reference"), { target: { value: "Brief vom 3. November" } });
    fireEvent.click(within(dialog).getByTestId("erasure-identity"));
    fireEvent.click(within(dialog).getByTestId("erasure-confirm"));

    expect(await screen.findByTestId("erasure-done")).toHaveTextContent("Das Kundenkonto wurde gelöscht.");
    const erase = posted(calls, `${API}privacy/erasure/`);
    expect(erase).toHaveLength(1);
    expect(erase[0].body).toEqual({ email: "ina@example.de", reference: "Brief vom 3. November" });
    expect(erase[0].headers.get("X-CSRFToken")).toBe("csrf-priv");
    expect(erase[0].headers.get("Authorization")).toBeNull();
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  });

  it("an unknown address and a refused erasure show the server's message", async () => {
    stubPartnerApi({
      ...admin(),
      [PREVIEW]: (call) =>
        (call.body as { email: string }).email === "weg@example.de"
          ? {
              status: 404,
              body: { detail: "Zu dieser E-Mail-Adresse gibt es bei Ihnen kein Kundenkonto.", error_code: "PRIV007" },
            }
          : { body: { registrations: 1, applications: 1, payout_records_kept: 0, settlement_items_kept: 0 } },
      [ERASE]: () => ({
        status: 403,
        body: { detail: "Dieses Konto kann hier nicht gelöscht werden.", error_code: "PRIV006" },
      }),
    });
    renderAt("/partner/privacy");
    fireEvent.change(await screen.findByTestId("erasure-email"), { target: { value: "weg@example.de" } });
    fireEvent.click(screen.getByTestId("erasure-check"));
    expect(await screen.findByTestId("erasure-lookup-error")).toHaveTextContent(
      "Zu dieser E-Mail-Adresse gibt es bei Ihnen kein Kundenkonto.",
    );

    fireEvent.change(screen.getByTestId("erasure-email"), { target: { value: "kollege@example.de" } });
    fireEvent.click(screen.getByTestId("erasure-check"));
    fireEvent.click(await screen.findByTestId("erasure-start"));
    const dialog = await screen.findByRole("dialog");
    fireEvent.change(within(dialog).getByTestId("erasure-reference"), { target: { value: "Mail vom 1.3." } });
    fireEvent.click(within(dialog).getByTestId("erasure-identity"));
    fireEvent.click(within(dialog).getByTestId("erasure-confirm"));
    expect(await within(dialog).findByTestId("erasure-error")).toHaveTextContent(
      "Dieses Konto kann hier nicht gelöscht werden.",
    );
  });

  it("back office and viewers get the refusal and no menu item", async () => {
    stubPartnerApi(admin("back_office"));
    renderAt("/partner/privacy");
    expect(await screen.findByTestId("forbidden")).toHaveTextContent("Dafür fehlt Ihnen die Berechtigung.");
    const menu = screen.getByTestId("partner-menu");
    expect(within(menu).queryByText("Datenschutz")).toBeNull();
  });

  it("speaks English when the area is switched", async () => {
    window.localStorage.setItem(PARTNER_KEYS.language, "en");
    stubPartnerApi(admin());
    renderAt("/partner/privacy");
    expect(await screen.findByRole("heading", { name: "Data protection" })).toBeVisible();
    expect(screen.getByText("Erasure on request (Art. 17 GDPR)")).toBeVisible();
    expect(screen.getByRole("button", { name: "Check" })).toBeVisible();
  });
});
