import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { renderAt } from "@/test/render";

import { member } from "../mocks/fixtures";
import { lastCall, partnerTestSetup, stubPartnerApi } from "../mocks/test-api";

const API = "/api/partner/";

partnerTestSetup({ csrfCookie: "csrftoken=csrf-staff; path=/" });

describe("staff page", () => {
  it("a partner admin withdraws an open invitation", async () => {
    let invites = [
      {
        id: 5,
        email: "cem@autohaus.example",
        name: "Cem",
        role: "viewer",
        created_at: "2026-03-01T00:00:00Z",
        expires_at: "2026-03-04T00:00:00Z",
        invited_by: 1,
      },
    ];
    const calls = stubPartnerApi({
      [`GET ${API}me/`]: () => ({ body: member("partner_admin") }),
      [`GET ${API}auth/csrf/`]: () => ({ status: 204 }),
      [`GET ${API}staff/`]: () => ({
        body: { count: 1, results: [{ ...member("partner_admin"), is_active: true }], invites },
      }),
      [`DELETE ${API}staff/invites/5/`]: () => {
        invites = [];
        return { status: 204 };
      },
    });
    renderAt("/partner/staff");
    const table = await screen.findByTestId("staff-table");
    expect(within(table).getByText("Eingeladen")).toBeInTheDocument();
    // members have no such button, only the open invitation
    expect(within(table).getAllByRole("button", { name: /Einladung zurückziehen/ })).toHaveLength(1);

    fireEvent.click(within(table).getByRole("button", { name: "Einladung zurückziehen: Cem" }));

    await waitFor(() => expect(lastCall(calls, `${API}staff/invites/5/`, "DELETE")).toBeTruthy());
    await waitFor(() => expect(within(table).queryByText("cem@autohaus.example")).toBeNull());
  });
});
