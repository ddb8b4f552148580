import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { renderAt } from "@/test/render";

import type { Role } from "../api/auth";
import { member } from "../mocks/fixtures";
import { API_KEYS, DELIVERIES, NEW_KEY, NEW_SECRET, WEBHOOKS } from "../mocks/integrations-fixtures";
import { PARTNER_KEYS } from "../lib/storage";
import { type PartnerCall, partnerTestSetup, stubPartnerApi } from "../mocks/test-api";

const API = "/api/partner/";
const KEYS = `${API}integrations/api_keys/`;
const HOOKS = `${API}integrations/webhooks/`;

partnerTestSetup({ csrfCookie: "csrftoken=csrf-int; path=/" });

const posted = (calls: PartnerCall[], path: string) => calls.filter((c) => c.method === "POST" && c.path === path);

function routes(role: Role = "partner_admin") {
  let keys = [...API_KEYS];
  return {
    [`GET ${API}me/`]: () => ({ body: member(role) }),
    [`GET ${KEYS}`]: () => ({ body: keys }),
    [`POST ${KEYS}`]: (call: PartnerCall) => {
      const { name, scope } = call.body as { name: string; scope: "read" | "write" };
      const made = { ...API_KEYS[0], id: 9, name, scope, key_hint: "thg_n3wk3y0001_…", last_used_at: null };
      keys = [made, ...keys];
      return { status: 201, body: { ...made, key: NEW_KEY } };
    },
    [`POST ${KEYS}1/revoke/`]: () => {
      keys = keys.map((key) => (key.id === 1 ? { ...key, state: "revoked" as const } : key));
      return { body: keys.find((key) => key.id === 1) };
    },
    [`POST ${KEYS}1/rotate/`]: () => ({ body: { ...API_KEYS[0], key: NEW_KEY } }),
    [`GET ${HOOKS}`]: () => ({ body: WEBHOOKS }),
    [`POST ${HOOKS}`]: (call: PartnerCall) => {
      const { url } = call.body as { url: string };
      if (url.includes("192.168.")) {
        return {
          status: 400,
          body: {
            url: {
              error_code: "WEBHOOK003",
              message:
                "Diese Adresse ist nicht öffentlich erreichbar (private oder lokale Adressen sind nicht erlaubt).",
            },
          },
        };
      }
      return { status: 201, body: { ...WEBHOOKS[0], id: 8, url, secret: NEW_SECRET } };
    },
    [`POST ${HOOKS}7/test/`]: () => ({ body: { ...DELIVERIES[1], id: 40, event_type: "ping" } }),
    [`GET ${HOOKS}7/deliveries/`]: () => ({ body: { count: 2, page: 1, page_size: 50, results: DELIVERIES } }),
    [`POST ${API}integrations/webhook_deliveries/31/resend/`]: () => ({
      body: { ...DELIVERIES[0], status: "delivered" },
    }),
  };
}

describe("interfaces page", () => {
  it("lists the keys without their secret, shows a new key once and revokes after asking", async () => {
    const calls = stubPartnerApi(routes());
    renderAt("/partner/integrations");

    const first = await screen.findByTestId("api-key-1");
    expect(first).toHaveTextContent("Flottensystem");
    expect(first).toHaveTextContent("Lesen und schreiben");
    expect(first).toHaveTextContent("thg_k3v9x2m1qa_…");
    expect(first).toHaveTextContent("28.03.2026");
    expect(screen.getByTestId("api-key-2")).toHaveTextContent("Ruht");
    expect(screen.getByTestId("api-key-2")).toHaveTextContent("Noch nie");
    expect(within(screen.getByTestId("api-key-3")).queryByRole("button")).toBeNull();

    // a name is required before any call
    fireEvent.click(screen.getByTestId("key-create"));
    expect(await screen.findByText("Bitte geben Sie einen Namen an (höchstens 100 Zeichen).")).toBeVisible();
    expect(posted(calls, KEYS)).toHaveLength(0);

    fireEvent.change(screen.getByTestId("key-name"), { target: { value: " Telematik " } });
    fireEvent.click(screen.getByTestId("key-create"));
    expect(await screen.findByTestId("key-shown-value")).toHaveTextContent(NEW_KEY);
    expect(screen.getByTestId("key-shown")).toHaveTextContent("nur dieses eine Mal angezeigt");
    expect(posted(calls, KEYS)[0].body).toEqual({ name: "Telematik", scope: "read" });
    expect(posted(calls, KEYS)[0].headers.get("X-CSRFToken")).toBe("csrf-int");
    fireEvent.click(within(screen.getByTestId("key-shown")).getByRole("button", { name: "Schließen" }));
    await waitFor(() => expect(screen.queryByText(NEW_KEY)).toBeNull());
    expect(await screen.findByTestId("api-key-9")).toHaveTextContent("Telematik");

    fireEvent.click(screen.getByTestId("key-revoke-1"));
    const dialog = await screen.findByRole("dialog");
    expect(dialog).toHaveTextContent("Der Schlüssel „Flottensystem“ funktioniert danach sofort nicht mehr.");
    expect(posted(calls, `${KEYS}1/revoke/`)).toHaveLength(0);
    fireEvent.click(within(dialog).getByRole("button", { name: "Widerrufen" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(posted(calls, `${KEYS}1/revoke/`)).toHaveLength(1);
    expect(await screen.findByTestId("api-key-1")).toHaveTextContent("Widerrufen");
  });

  it("rotating shows the new key once", async () => {
    stubPartnerApi(routes());
    renderAt("/partner/integrations");
    fireEvent.click(await screen.findByTestId("key-rotate-1"));
    fireEvent.click(within(await screen.findByRole("dialog")).getByRole("button", { name: "Erneuern" }));
    expect(await screen.findByTestId("key-shown-value")).toHaveTextContent(NEW_KEY);
  });

  it("adds a webhook (secret shown once), sends a test and resends a delivery from the log", async () => {
    const calls = stubPartnerApi(routes());
    renderAt("/partner/integrations");

    const hook = await screen.findByTestId("webhook-7");
    expect(hook).toHaveTextContent("https://flotte.example.com/thg/webhooks");
    expect(hook).toHaveTextContent("Statuswechsel eines Antrags");
    expect(hook).toHaveTextContent("Letzte Zustellung: Fehlgeschlagen, 28.03.2026");

    // the form's own rules first
    fireEvent.change(screen.getByTestId("webhook-url"), { target: { value: "flotte.example.com" } });
    fireEvent.click(screen.getByTestId("webhook-event-application.status_changed"));
    fireEvent.click(screen.getByTestId("webhook-add"));
    expect(await screen.findByText("Bitte geben Sie eine vollständige Adresse an (https://…).")).toBeVisible();
    expect(screen.getByText("Bitte wählen Sie mindestens ein Ereignis.")).toBeVisible();
    expect(posted(calls, HOOKS)).toHaveLength(0);

    // the server's refusal of a private address at the field
    fireEvent.change(screen.getByTestId("webhook-url"), { target: { value: "https://192.168.1.5/hook" } });
    fireEvent.click(screen.getByTestId("webhook-event-payout.paid"));
    fireEvent.click(screen.getByTestId("webhook-add"));
    expect(await screen.findByText(/nicht öffentlich erreichbar/)).toBeVisible();

    fireEvent.change(screen.getByTestId("webhook-url"), { target: { value: "https://erp.example.com/hook" } });
    fireEvent.click(screen.getByTestId("webhook-add"));
    expect(await screen.findByTestId("secret-shown-value")).toHaveTextContent(NEW_SECRET);
    expect(posted(calls, HOOKS)[1].body).toEqual({ url: "https://erp.example.com/hook", events: ["payout.paid"] });

    fireEvent.click(screen.getByTestId("webhook-test-7"));
    expect(await screen.findByTestId("test-result")).toHaveTextContent("Test gesendet: HTTP 200");

    fireEvent.click(screen.getByTestId("webhook-log-7"));
    const pending = await screen.findByTestId("delivery-31");
    expect(pending).toHaveTextContent("Ausstehend");
    expect(pending).toHaveTextContent("Nächster Versuch 28.03.2026");
    expect(pending).toHaveTextContent("HTTP 500");
    expect(pending).toHaveTextContent("Zeitüberschreitung");
    expect(screen.getByTestId("delivery-30")).toHaveTextContent("Zugestellt");
    fireEvent.click(within(pending).getByTestId("delivery-resend-31"));
    await waitFor(() => expect(posted(calls, `${API}integrations/webhook_deliveries/31/resend/`)).toHaveLength(1));
  });

  it("back office and viewers get the refusal and no menu item", async () => {
    stubPartnerApi(routes("back_office"));
    renderAt("/partner/integrations");
    expect(await screen.findByTestId("forbidden")).toHaveTextContent("Dafür fehlt Ihnen die Berechtigung.");
    expect(within(screen.getByTestId("partner-menu")).queryByText("Schnittstellen")).toBeNull();
  });

  it("speaks English when the area is switched", async () => {
    window.localStorage.setItem(PARTNER_KEYS.language, "en");
    stubPartnerApi(routes());
    renderAt("/partner/integrations");
    expect(await screen.findByRole("heading", { name: "Interfaces" })).toBeVisible();
    expect(await screen.findByText("API keys")).toBeVisible();
    expect(screen.getByRole("button", { name: "Add webhook" })).toBeVisible();
  });
});
