import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { renderAt } from "@/test/render";

import { detail, FILTER_OPTIONS, member, rows } from "../mocks/fixtures";
import { dateTime } from "../lib/format";
import { listPage, type PartnerRoutes, partnerTestSetup, stubPartnerApi } from "../mocks/test-api";

const API = "/api/partner/";

function routes(answer: ReturnType<typeof detail>): PartnerRoutes {
  return {
    [`GET ${API}me/`]: () => ({ body: member("viewer") }),
    [`GET ${API}quota_applications/filters/`]: () => ({ body: FILTER_OPTIONS }),
    [`GET ${API}quota_applications/`]: () => listPage(rows(3)),
    [`GET ${API}quota_applications/2/`]: () => ({ body: answer }),
  };
}

partnerTestSetup();

describe("the drawer's agreement as third party (38. BImSchV § 5)", { timeout: 90_000 }, () => {
  it("shows when, through which channel and under which text version the owner agreed", async () => {
    const answer = detail(2);
    stubPartnerApi(routes(answer));

    renderAt("/partner/applications?open=2");

    const drawer = await screen.findByTestId("application-detail");
    expect(within(drawer).getByRole("heading", { name: "Vereinbarung als Dritter (38. BImSchV § 5)" })).toBeVisible();
    const agreement = within(drawer).getByTestId("detail-agreement");
    expect(within(agreement).getByText(dateTime("2026-03-01T09:58:12+01:00", "de"))).toBeInTheDocument();
    expect(within(agreement).getByText("Registrierung")).toBeInTheDocument();
    // the short form of the SHA-256, the whole one on hover
    const version = within(agreement).getByText("3f5e9c1a7b2d");
    expect(version).toHaveAttribute("title", answer.agreement?.text_version);
    expect(within(agreement).getByText("Ich akzeptiere die Allgemeinen Geschäftsbedingungen.")).toBeInTheDocument();
    expect(within(drawer).queryByTestId("holder-mismatch")).not.toBeInTheDocument();
  });

  it("says that none is recorded for the year, and flags a holder who is not the payee", async () => {
    const answer = detail(2, { agreement: null });
    answer.registration.holder_mismatch = true;
    stubPartnerApi(routes(answer));

    renderAt("/partner/applications?open=2");

    const drawer = await screen.findByTestId("application-detail");
    expect(within(drawer).getByTestId("detail-agreement-none")).toHaveTextContent(
      `Für ${answer.legislation_year} ist keine Vereinbarung in Textform erfasst.`,
    );
    expect(within(drawer).queryByTestId("detail-agreement")).not.toBeInTheDocument();
    expect(within(drawer).getByTestId("holder-mismatch")).toHaveTextContent("Halter weicht vom Zahlungsempfänger ab");
  });
});
