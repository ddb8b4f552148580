import { configure, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { renderAt } from "@/test/render";

import type { Role } from "../api/auth";
import { returnFileProblem } from "../components/return-upload-dialog";
import { detail, FILTER_OPTIONS, member, rows } from "../mocks/fixtures";
import { BATCH_LIST, BATCH_NEW, BATCH_PAID } from "../mocks/money-fixtures";
import { PAID_DOCUMENTS, RETURN_RESULT } from "../mocks/payout-fixtures";
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

const paidBatch = (documents = PAID_DOCUMENTS): PartnerRoutes => ({
  [`GET ${API}settlement_batches/2/`]: () => ({ body: { ...BATCH_PAID, id: 2 } }),
  [`GET ${API}settlement_batches/2/documents/`]: () => ({ body: { batch: 2, results: documents } }),
});

const xml = (name = "rueckgaben.xml", type = "text/xml") => new File(["<Document/>"], name, { type });
const pick = (chosen: File) => fireEvent.change(screen.getByTestId("returns-file"), { target: { files: [chosen] } });

partnerTestSetup();
// Grid screens on a loaded 2-core machine: more time than the area's default to appear.
configure({ asyncUtilTimeout: 20_000 });

describe("payout documents of a batch", { timeout: 90_000 }, () => {
  it("lists each credit note and payout statement with its downloads, the ZIP and the statements", async () => {
    stubPartnerApi({ ...loggedIn(), ...paidBatch() });
    renderAt("/partner/settlement-batches/2");
    // the first screen of the file loads its grid chunk: more time than the default
    const list = await screen.findByTestId("documents-list", {}, { timeout: 30_000 });
    const credit = (await within(list).findByText("GS-AUTOHAUS-000001")).closest("[role=row]") as HTMLElement;
    expect(credit).toHaveTextContent("Gutschrift");
    expect(credit).toHaveTextContent("100018/2026");
    expect(credit).toHaveTextContent("31.03.2026");
    expect(credit).toHaveTextContent("120,00 €22,80 €142,80 €");
    expect(within(credit).getByTestId("document-pdf-2")).toHaveAttribute(
      "href",
      "/api/partner/payout_documents/2/document.pdf",
    );
    expect(within(credit).getByTestId("document-xml-2")).toHaveAttribute(
      "href",
      "/api/partner/payout_documents/2/einvoice.xml",
    );
    // a private owner's statement: a PDF, no e-invoice
    const statement = within(list).getByText("AB-AUTOHAUS-000001").closest("[role=row]") as HTMLElement;
    expect(statement).toHaveTextContent("Auszahlungsbeleg");
    expect(within(statement).queryByTestId("document-xml-1")).toBeNull();
    expect(screen.getByTestId("documents-zip")).toHaveAttribute(
      "href",
      "/api/partner/settlement_batches/2/documents.zip",
    );
    expect(screen.getByTestId("statement-csv")).toHaveAttribute(
      "href",
      "/api/partner/settlement_batches/2/statement.csv",
    );
    // issue 49: the same statement as Excel, beside the CSV
    expect(screen.getByTestId("statement-xlsx")).toHaveAttribute(
      "href",
      "/api/partner/settlement_batches/2/statement.xlsx",
    );
    expect(screen.getByTestId("statement-pdf")).toHaveAttribute(
      "href",
      "/api/partner/settlement_batches/2/statement.pdf",
    );
  });

  it("a NEW batch has no documents yet and says when they come; no ZIP is offered", async () => {
    stubPartnerApi({
      ...loggedIn(),
      [`GET ${API}settlement_batches/3/`]: () => ({ body: BATCH_NEW }),
      [`GET ${API}settlement_batches/3/documents/`]: () => ({ body: { batch: 3, results: [] } }),
    });
    renderAt("/partner/settlement-batches/3");
    expect(await screen.findByTestId("documents-none")).toHaveTextContent(
      "Belege entstehen, sobald der Lauf als bezahlt markiert ist.",
    );
    expect(screen.queryByTestId("documents-zip")).toBeNull();
    expect(screen.getByTestId("statement-csv")).toBeInTheDocument();
  });
});

describe("failed payouts", { timeout: 90_000 }, () => {
  it("a failed item is paid again as it is after a confirmation", async () => {
    const calls = stubPartnerApi({
      ...loggedIn(),
      ...paidBatch(),
      [`POST ${API}settlement_batches/2/items/3/requeue/`]: () => ({ body: BATCH_PAID.items[2] }),
    });
    renderAt("/partner/settlement-batches/2");
    const items = await screen.findByTestId("batch-items");
    // the open and paid items have no such menu
    expect(within(items).queryByTestId("more-1")).toBeNull();
    fireEvent.click(await within(items).findByTestId("more-3"));
    fireEvent.click(await screen.findByTestId("requeue-3"));
    expect(await screen.findByTestId("requeue-dialog")).toHaveTextContent("mit der bisherigen Bankverbindung");
    fireEvent.click(screen.getByTestId("requeue-dialog-confirm"));
    await waitFor(() => expect(screen.queryByTestId("requeue-dialog")).toBeNull());
    expect(lastCall(calls, `${API}settlement_batches/2/items/3/requeue/`, "POST")).toBeDefined();
  });

  it("a failed item the bank paid after all is confirmed with a note; a refusal stays in the dialog", async () => {
    let refused = true;
    const calls = stubPartnerApi({
      ...loggedIn(),
      ...paidBatch(),
      [`POST ${API}settlement_batches/2/items/3/paid/`]: () => {
        if (refused) {
          refused = false;
          return {
            status: 400,
            body: {
              detail: "Nur ein Antrag mit fehlgeschlagener Auszahlung kann als doch ausgezahlt bestätigt werden.",
              error_code: "SETTLE023",
            },
          };
        }
        return { body: { ...BATCH_PAID.items[2], status: "paid", failure_reason: "" } };
      },
    });
    renderAt("/partner/settlement-batches/2");
    fireEvent.click(await screen.findByTestId("more-3"));
    fireEvent.click(await screen.findByTestId("paid-3"));
    fireEvent.change(await screen.findByTestId("paid-form-note"), { target: { value: "Kontoauszug 12.04." } });
    fireEvent.click(screen.getByTestId("paid-form-save"));
    expect(await screen.findByTestId("form-error")).toHaveTextContent("fehlgeschlagener Auszahlung");
    fireEvent.click(screen.getByTestId("paid-form-save"));
    await waitFor(() => expect(screen.queryByTestId("paid-form")).toBeNull());
    expect(lastCall(calls, `${API}settlement_batches/2/items/3/paid/`, "POST").body).toEqual({
      note: "Kontoauszug 12.04.",
    });
  });
});

describe("the bank's return file", { timeout: 90_000 }, () => {
  it("checks the file in the browser before anything is sent", async () => {
    const calls = stubPartnerApi({ ...loggedIn(), [`GET ${API}settlement_batches/`]: () => listPage(BATCH_LIST) });
    renderAt("/partner/settlement-batches");
    fireEvent.click(await screen.findByTestId("returns-open"));
    fireEvent.click(await screen.findByTestId("returns-send"));
    expect(await screen.findByTestId("returns-file-error")).toHaveTextContent(
      "Bitte wählen Sie die Rückmeldung der Bank (camt.054 oder pain.002) aus.",
    );
    pick(new File(["x"], "rueckgaben.pdf", { type: "application/pdf" }));
    fireEvent.click(screen.getByTestId("returns-send"));
    expect(await screen.findByTestId("returns-file-error")).toHaveTextContent("Bitte wählen Sie eine XML-Datei.");
    expect(calls.some((call) => call.method === "POST")).toBe(false);
    const large = xml();
    Object.defineProperty(large, "size", { value: 11 * 1024 * 1024 });
    expect(returnFileProblem(large)).toBe("payout.returnsSize");
    expect(returnFileProblem(xml("camt.XML", ""))).toBeNull();
  });

  it("uploads a camt.054 and shows which items failed and why, with the way to their batch", async () => {
    const calls = stubPartnerApi({
      ...loggedIn(),
      [`GET ${API}settlement_batches/`]: () => listPage(BATCH_LIST),
      [`POST ${API}settlement_returns/`]: () => ({ body: RETURN_RESULT }),
    });
    renderAt("/partner/settlement-batches");
    fireEvent.click(await screen.findByTestId("returns-open"));
    pick(xml());
    expect(screen.getByTestId("returns-file-name")).toHaveTextContent("rueckgaben.xml");
    fireEvent.click(screen.getByTestId("returns-send"));
    expect(await screen.findByTestId("returns-summary")).toHaveTextContent(
      "camt.054: 3 Überweisungen genannt, 1 Positionen als fehlgeschlagen markiert.",
    );
    const row = screen.getByTestId("returns-item-3");
    expect(row).toHaveTextContent("THG2-100019-2026");
    expect(row).toHaveTextContent("AC04");
    expect(row).toHaveTextContent("Rückmeldung der Bank AC04: Konto erloschen");
    expect(within(row).getByRole("link", { name: /Zum Lauf 2/ })).toHaveAttribute(
      "href",
      "/partner/settlement-batches/2",
    );
    expect(screen.getByTestId("returns-already")).toHaveTextContent("THG2-100017-2026");
    expect(screen.getByTestId("returns-unknown")).toHaveTextContent("FREMD-4711");
    const sent = lastCall(calls, `${API}settlement_returns/`, "POST");
    expect(sent.body).toBeInstanceOf(FormData);
    expect(((sent.body as FormData).get("file") as File).name).toBe("rueckgaben.xml");
    expect(sent.headers.get("X-CSRFToken")).toBe("csrf-123");
  });

  it("a pain.002 that reports a failed transfer settled: it is named as confirmed paid", async () => {
    stubPartnerApi({
      ...loggedIn(),
      [`GET ${API}settlement_batches/`]: () => listPage(BATCH_LIST),
      [`POST ${API}settlement_returns/`]: () => ({
        body: {
          kind: "pain.002",
          returned: 0,
          failed: [],
          paid: [{ item: 3, batch: 2, application: 19, end_to_end_id: "THG2-100019-2026", code: "ACSC" }],
          already_failed: [],
          unknown: [],
        },
      }),
    });
    renderAt("/partner/settlement-batches");
    fireEvent.click(await screen.findByTestId("returns-open"));
    pick(xml("status.xml"));
    fireEvent.click(screen.getByTestId("returns-send"));
    const paid = await screen.findByTestId("returns-paid");
    expect(paid).toHaveTextContent("Laut Bank doch ausgeführt, als ausgezahlt bestätigt: THG2-100019-2026 (ACSC)");
    expect(within(paid).getByRole("link", { name: "THG2-100019-2026" })).toHaveAttribute(
      "href",
      "/partner/settlement-batches/2",
    );
    expect(screen.queryByTestId("returns-failed")).toBeNull();
  });

  it("shows the server's refusal under the file", async () => {
    stubPartnerApi({
      ...loggedIn(),
      [`GET ${API}settlement_batches/`]: () => listPage(BATCH_LIST),
      [`POST ${API}settlement_returns/`]: () => ({
        status: 400,
        body: { file: { error_code: "RETURN002", message: "Die Datei nennt keine Überweisung dieses Partners." } },
      }),
    });
    renderAt("/partner/settlement-batches");
    fireEvent.click(await screen.findByTestId("returns-open"));
    pick(xml());
    fireEvent.click(screen.getByTestId("returns-send"));
    expect(await screen.findByTestId("returns-file-error")).toHaveTextContent(
      "Die Datei nennt keine Überweisung dieses Partners.",
    );
    expect(screen.queryByTestId("returns-result")).toBeNull();
  });
});

describe("an application's payout document in its drawer", { timeout: 90_000 }, () => {
  const drawerRoutes = (role: Role): PartnerRoutes => ({
    ...loggedIn(role),
    [`GET ${API}quota_applications/`]: () => listPage(rows(3)),
    [`GET ${API}quota_applications/2/`]: () => ({ body: detail(2, { status: "qa_paid", status_label: "Ausgezahlt" }) }),
    [`GET ${API}quota_applications/2/payout_documents/`]: () => ({
      body: { application: 2, results: [{ ...PAID_DOCUMENTS[1], application_id: 2 }] },
    }),
  });

  it("the back office sees the credit note with its PDF and e-invoice", async () => {
    stubPartnerApi(drawerRoutes("back_office"));
    renderAt("/partner/applications?open=2");
    const section = await screen.findByTestId("application-documents", {}, { timeout: 30_000 });
    expect(within(section).getByRole("heading", { name: "Gutschrift / Auszahlungsbeleg" })).toBeVisible();
    expect(section).toHaveTextContent("Gutschrift GS-AUTOHAUS-000001");
    expect(section).toHaveTextContent("31.03.2026 · 142,80 €");
    expect(within(section).getByRole("link", { name: "PDF von GS-AUTOHAUS-000001 herunterladen" })).toHaveAttribute(
      "href",
      "/api/partner/payout_documents/2/document.pdf",
    );
    expect(within(section).getByTestId("document-xml-2")).toBeInTheDocument();
  });

  it("a viewer's drawer does not ask for documents", async () => {
    const calls = stubPartnerApi(drawerRoutes("viewer"));
    renderAt("/partner/applications?open=2");
    await screen.findByTestId("application-detail", {}, { timeout: 30_000 });
    expect(screen.queryByTestId("application-documents")).toBeNull();
    expect(calls.some((call) => call.path.endsWith("/payout_documents/"))).toBe(false);
  });
});
