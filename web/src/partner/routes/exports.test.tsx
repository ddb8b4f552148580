/** Issue 49 in the partner area: the own digest switch, the upload dialog's quota year and CSV
 * template, the sub-partner's QR code, the XLSX beside the CSV downloads. */
import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { renderAt } from "@/test/render";

import type { Role } from "../api/auth";
import { previousMonth } from "../components/commission-statement";
import { FILTER_OPTIONS, member, subPartner } from "../mocks/fixtures";
import { BULK_READY, bulkUpload } from "../mocks/money-fixtures";
import { lastCall, listPage, type PartnerRoutes, partnerTestSetup, stubPartnerApi } from "../mocks/test-api";

const API = "/api/partner/";

function loggedIn(role: Role = "partner_admin", digest = true): PartnerRoutes {
  return {
    [`GET ${API}me/`]: () => ({ body: { ...member(role), digest_enabled: digest } }),
    [`GET ${API}auth/csrf/`]: () => {
      document.cookie = "csrftoken=csrf-49; path=/";
      return { status: 204 };
    },
    [`GET ${API}quota_applications/filters/`]: () => ({ body: FILTER_OPTIONS }),
  };
}

const pick = (testid: string, chosen: File) =>
  fireEvent.change(screen.getByTestId(testid), { target: { files: [chosen] } });

partnerTestSetup();

describe("exports and notices", { timeout: 90_000 }, () => {
  it("a member switches the daily digest off for themselves", async () => {
    const calls = stubPartnerApi({
      ...loggedIn("viewer"),
      [`GET ${API}quota_applications/`]: () => listPage([]),
      [`PATCH ${API}me/`]: (call) => ({
        body: { ...member("viewer"), digest_enabled: (call.body as { digest_enabled: boolean }).digest_enabled },
      }),
    });
    renderAt("/partner/applications");
    fireEvent.click(await screen.findByTestId("partner-account"));
    const dialog = await screen.findByRole("dialog", { name: "Mein Konto: Anna Admin" });
    const toggle = within(dialog).getByRole("switch", { name: "Tagesübersicht per E-Mail" });
    await waitFor(() => expect(toggle).toBeEnabled());
    expect(toggle).toBeChecked();

    fireEvent.click(toggle);

    expect(await within(dialog).findByTestId("digest-saved")).toHaveTextContent(
      "Die Tagesübersicht ist ausgeschaltet.",
    );
    const patch = lastCall(calls, `${API}me/`, "PATCH");
    expect(patch.body).toEqual({ digest_enabled: false });
    expect(patch.headers.get("X-CSRFToken")).toBe("csrf-49");
    expect(toggle).not.toBeChecked();
  });

  it("the upload dialog offers only the open quota years and the CSV template", async () => {
    const calls = stubPartnerApi({
      ...loggedIn("back_office"),
      [`GET ${API}bulk_uploads/`]: () => listPage([]),
      [`GET ${API}bulk_upload_years/`]: () => ({ body: { years: [2026, 2027], default: 2026 } }),
      [`POST ${API}bulk_uploads/`]: () => ({ status: 201, body: bulkUpload(9) }),
      [`GET ${API}bulk_uploads/9/`]: () => ({ body: { ...BULK_READY, id: 9 } }),
    });
    renderAt("/partner/bulk-uploads");
    fireEvent.click(await screen.findByTestId("bulk-add"));
    expect(await screen.findByTestId("bulk-template")).toHaveAttribute("href", `${API}bulk_uploads/template.csv`);
    const year = await screen.findByTestId("bulk-year");
    await waitFor(() => expect(year).toHaveTextContent("2026"));
    fireEvent.mouseDown(year);
    const options = await screen.findAllByRole("option");
    expect(options.map((option) => option.textContent)).toEqual(["2026", "2027"]);
    fireEvent.click(options[1]);
    await waitFor(() => expect(screen.getByTestId("bulk-year")).toHaveTextContent("2027"));
    pick("bulk-archive", new File(["PK\u0003\u0004"], "flotte.zip", { type: "application/zip" }));
    fireEvent.click(screen.getByTestId("bulk-send"));

    await waitFor(() => expect(lastCall(calls, `${API}bulk_uploads/`, "POST")).toBeTruthy());
    const body = lastCall(calls, `${API}bulk_uploads/`, "POST").body as FormData;
    expect(body.get("registration_years")).toBe("2027");
  });

  it("no open quota year: the dialog says so and sends nothing", async () => {
    stubPartnerApi({
      ...loggedIn("back_office"),
      [`GET ${API}bulk_uploads/`]: () => listPage([]),
      [`GET ${API}bulk_upload_years/`]: () => ({ body: { years: [], default: null } }),
    });
    renderAt("/partner/bulk-uploads");
    fireEvent.click(await screen.findByTestId("bulk-add"));
    expect(await screen.findByTestId("bulk-no-year")).toHaveTextContent(
      "Für kein Quotenjahr werden derzeit Anträge angenommen.",
    );
    expect(screen.getByTestId("bulk-send")).toBeDisabled();
  });

  it("a sub-partner's link with its QR code to print, as PNG and SVG", async () => {
    stubPartnerApi({
      ...loggedIn("viewer"),
      [`GET ${API}sub_partners/`]: () => listPage([subPartner(7, { name: "Elektro Blitz" })]),
      [`GET ${API}sub_partners/7/link/`]: () => ({ body: { id: 7, url: "https://autohaus.example/?ref=BLITZ" } }),
    });
    renderAt("/partner/sub-partners");
    fireEvent.click(await screen.findByRole("button", { name: "QR-Code und Link von Elektro Blitz" }));

    const dialog = await screen.findByRole("dialog", { name: "Empfehlungslink von Elektro Blitz" });
    await waitFor(() =>
      expect(within(dialog).getByTestId("sub-partner-link")).toHaveValue("https://autohaus.example/?ref=BLITZ"),
    );
    expect(within(dialog).getByTestId("sub-partner-qr-image")).toHaveAttribute("src", `${API}sub_partners/7/qr.svg`);
    expect(within(dialog).getByTestId("sub-partner-qr-png")).toHaveAttribute("href", `${API}sub_partners/7/qr.png`);
    expect(within(dialog).getByTestId("sub-partner-qr-svg")).toHaveAttribute("href", `${API}sub_partners/7/qr.svg`);
  });

  it("the monthly sub-partner commission statement: the partner admin's, last month by default", async () => {
    stubPartnerApi({
      ...loggedIn("partner_admin"),
      [`GET ${API}sub_partners/`]: () => listPage([subPartner(7, { name: "Elektro Blitz" })]),
    });
    renderAt("/partner/sub-partners");
    const card = await screen.findByTestId("commission-statement");
    const month = previousMonth();
    expect(within(card).getByTestId("commission-month")).toHaveValue(month);
    expect(within(card).getByTestId("commission-csv")).toHaveAttribute(
      "href",
      `${API}reports/sub_partner_commissions.csv?month=${month}`,
    );
    fireEvent.change(within(card).getByTestId("commission-month"), { target: { value: "2026-03" } });
    expect(within(card).getByTestId("commission-pdf")).toHaveAttribute(
      "href",
      `${API}reports/sub_partner_commissions.pdf?month=2026-03`,
    );
    fireEvent.change(within(card).getByTestId("commission-month"), { target: { value: "" } });
    expect(within(card).getByTestId("commission-csv")).toBeDisabled();
  });

  it("the commission statement is not offered to back office or viewer (the server refuses them)", async () => {
    stubPartnerApi({
      ...loggedIn("back_office"),
      [`GET ${API}sub_partners/`]: () => listPage([subPartner(7, { name: "Elektro Blitz" })]),
    });
    renderAt("/partner/sub-partners");
    await screen.findByRole("button", { name: "QR-Code und Link von Elektro Blitz" });
    expect(screen.queryByTestId("commission-statement")).toBeNull();
  });

  it("previousMonth crosses the year", () => {
    expect(previousMonth(new Date(2027, 0, 15))).toBe("2026-12");
    expect(previousMonth(new Date(2026, 10, 29))).toBe("2026-10");
  });

  it("the audit log as CSV and XLSX with the filter shown, without paging", async () => {
    stubPartnerApi({
      ...loggedIn(),
      [`GET ${API}audit/`]: () => ({ body: { count: 0, page: 1, page_size: 50, results: [] } }),
    });
    renderAt("/partner/audit?action=staff.update&page=2");
    const xlsx = await screen.findByTestId("audit-export-xlsx");
    expect(xlsx).toHaveAttribute("href", `${API}audit/export.xlsx?action=staff.update`);
    expect(screen.getByTestId("audit-export-csv")).toHaveAttribute(
      "href",
      `${API}audit/export.csv?action=staff.update`,
    );
  });

  it("a bulk upload's results as CSV and XLSX", async () => {
    stubPartnerApi({
      ...loggedIn("viewer"),
      [`GET ${API}bulk_uploads/4/`]: () => ({ body: { ...BULK_READY, id: 4 } }),
    });
    renderAt("/partner/bulk-uploads/4");
    expect(await screen.findByTestId("bulk-results-xlsx")).toHaveAttribute("href", `${API}bulk_uploads/4/results.xlsx`);
    expect(screen.getByTestId("bulk-results-csv")).toHaveAttribute("href", `${API}bulk_uploads/4/results.csv`);
  });
});
