import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { storeGet, storeSet } from "@/shared/lib/session-store";
import { stubApi } from "@/test/api-stub";
import { currentLocation, partnerConfig, renderAt, setDesktop } from "@/test/render";

const TOKENS = { access: "access-1", refresh: "refresh-1" };
const BASE = {
  "GET /api/auth/user/profile/end-user-portal/": () => ({ body: [{ email: "paula@example.de", first_name: "Paula", last_name: "Portal" }] }),
  "GET /api/end_user_portal/quota_applications/": () => ({ body: { count: 0, results: [] } }),
};

beforeEach(() => {
  setDesktop(true);
  window.localStorage.clear();
  storeSet("tokens", TOKENS);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("Meine Daten", () => {
  it("asks for the export with the bearer token and shows the server's answer", async () => {
    const calls = stubApi({
      ...BASE,
      "POST /api/end_user_portal/data_export/": () => ({ status: 202, body: { detail: "Wir stellen Ihre Daten zusammen und schicken Ihnen in wenigen Minuten einen Link per E-Mail." } }),
    });
    renderAt("/portal/registrations", partnerConfig("standard"));
    const panel = await screen.findByTestId("privacy-panel");
    expect(within(panel).getByRole("heading", { name: "Meine Daten" })).toBeInTheDocument();
    fireEvent.click(within(panel).getByRole("button", { name: "Meine Daten herunterladen" }));

    expect(await screen.findByTestId("toast")).toHaveTextContent("Link per E-Mail");
    const post = calls.find((call) => call.path === "/api/end_user_portal/data_export/");
    expect(post?.method).toBe("POST");
    expect(post?.headers.get("Authorization")).toBe("Bearer access-1");
  });

  it("shows the rate limit's German message", async () => {
    stubApi({
      ...BASE,
      "POST /api/end_user_portal/data_export/": () => ({
        status: 429,
        body: { detail: "Sie haben Ihre Daten gerade erst angefordert. Bitte versuchen Sie es später erneut.", error_code: "PRIV001" },
        headers: { "Retry-After": "3600" },
      }),
    });
    renderAt("/portal/registrations", partnerConfig("standard"));
    fireEvent.click(await screen.findByTestId("data-export"));
    expect(await screen.findByTestId("toast")).toHaveTextContent("gerade erst angefordert");
  });

  it("erases the account after the mailed code, then goes to the login without tokens", async () => {
    const calls = stubApi({
      ...BASE,
      "POST /api/end_user_portal/erasure/": () => ({ body: { detail: "Wir haben Ihnen einen Bestätigungscode per E-Mail geschickt." } }),
      "POST /api/end_user_portal/erasure/confirm/": (call) =>
        (call.body as { code: string }).code === "123456"
          ? { body: { detail: "Ihr Konto und Ihre Daten wurden gelöscht." } }
          : { status: 400, body: { detail: "Der Code ist ungültig oder abgelaufen.", error_code: "PRIV003" } },
    });
    renderAt("/portal/registrations", partnerConfig("standard"));
    fireEvent.click(await screen.findByTestId("erasure-open"));
    const dialog = await screen.findByTestId("erasure-dialog");
    fireEvent.click(within(dialog).getByTestId("erasure-send"));
    const input = await within(dialog).findByTestId("erasure-code");

    fireEvent.change(input, { target: { value: "12" } });
    fireEvent.click(within(dialog).getByTestId("erasure-confirm"));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent("6-stelligen Code");

    fireEvent.change(input, { target: { value: "654321" } });
    fireEvent.click(within(dialog).getByTestId("erasure-confirm"));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent("Der Code ist ungültig oder abgelaufen.");

    fireEvent.change(input, { target: { value: "123456" } });
    fireEvent.click(within(dialog).getByTestId("erasure-confirm"));
    await waitFor(() => expect(calls.filter((call) => call.path === "/api/end_user_portal/erasure/confirm/")).toHaveLength(2), { timeout: 5000 });
    await waitFor(() => expect(currentLocation()).toBe("/portal/auth/login"), { timeout: 5000 });
    expect(storeGet("tokens")).toBeNull();
    expect(calls.filter((call) => call.path === "/api/end_user_portal/erasure/confirm/").map((call) => call.body)).toEqual([{ code: "654321" }, { code: "123456" }]);
  });
});
