import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";

import type { PartnerConfig } from "@/api/config";
import { currentLocation, partnerConfig, renderAt } from "@/test/render";

import type { Role } from "../api/auth";
import { FILTER_OPTIONS, member, rows } from "../mocks/fixtures";
import {
  BATCH_LIST,
  BATCH_NEW,
  BATCH_PAID,
  BATCH_PAID_ERASED,
  BULK_LIST,
  BULK_READY,
  BULK_RUNNING,
  BULK_WITHOUT_CSV,
  bulkItem,
  bulkUpload,
} from "../mocks/money-fixtures";
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

const file = (name: string, type: string, size?: number) => {
  const made = new File(["PK\u0003\u0004"], name, { type });
  if (size !== undefined) Object.defineProperty(made, "size", { value: size });
  return made;
};
const pick = (testid: string, chosen: File) =>
  fireEvent.change(screen.getByTestId(testid), { target: { files: [chosen] } });

partnerTestSetup();

describe("bulk uploads", { timeout: 90_000 }, () => {
  it("lists the uploads with their spec status; a viewer follows but cannot upload", async () => {
    stubPartnerApi({ ...loggedIn("viewer"), [`GET ${API}bulk_uploads/`]: () => listPage(BULK_LIST) });
    renderAt("/partner/bulk-uploads");
    const list = await screen.findByTestId("bulk-list");
    expect(await within(list).findByText("Wird verarbeitet")).toBeInTheDocument();
    for (const label of ["Fertig (mit Ablehnungen)", "Keine Registrierung angelegt", "Zurückgenommen"])
      expect(within(list).getByText(label)).toBeInTheDocument();
    expect(screen.queryByTestId("bulk-add")).toBeNull();
    fireEvent.click(screen.getByTestId("bulk-open-4"));
    await waitFor(() => expect(currentLocation()).toBe("/partner/bulk-uploads/4"));
  });

  it("checks type and size in the browser before anything is sent", async () => {
    const calls = stubPartnerApi({ ...loggedIn(), [`GET ${API}bulk_uploads/`]: () => listPage([]) });
    renderAt("/partner/bulk-uploads");
    expect(await screen.findByTestId("list-empty")).toHaveTextContent("Noch keine Uploads.");
    fireEvent.click(screen.getByTestId("bulk-add"));
    fireEvent.click(await screen.findByTestId("bulk-send"));
    expect(await screen.findByTestId("bulk-archive-error")).toHaveTextContent(
      "Bitte wählen Sie ein ZIP-Archiv mit Scans aus.",
    );

    pick("bulk-archive", file("scans.rar", "application/x-rar"));
    fireEvent.click(screen.getByTestId("bulk-send"));
    await waitFor(() =>
      expect(screen.getByTestId("bulk-archive-error")).toHaveTextContent("Bitte wählen Sie eine ZIP-Datei."),
    );
    pick("bulk-archive", file("flotte.zip", "application/zip", 201 * 1024 * 1024));
    pick("bulk-csv", file("halter.xlsx", "application/vnd.ms-excel"));
    fireEvent.click(screen.getByTestId("bulk-send"));
    await waitFor(() =>
      expect(screen.getByTestId("bulk-archive-error")).toHaveTextContent("Das Archiv ist größer als 200 MB."),
    );
    expect(screen.getByTestId("bulk-csv-error")).toHaveTextContent("Bitte wählen Sie eine CSV-Datei.");
    expect(calls.some((call) => call.method === "POST")).toBe(false);
  });

  it("sends ZIP and CSV as multipart and opens the new upload; the server's refusal is shown with its details", async () => {
    let answer = 0;
    const calls = stubPartnerApi({
      ...loggedIn("back_office"),
      [`GET ${API}bulk_uploads/`]: () => listPage([]),
      [`POST ${API}bulk_uploads/`]: () =>
        ++answer === 1
          ? {
              status: 400,
              body: {
                archive: {
                  error_code: "BULK005",
                  message: "Das Archiv enthält unsichere Dateinamen.",
                  details: { files: ["../etc/passwd"] },
                },
              },
            }
          : { status: 201, body: bulkUpload(9, { status: "unstructured_data_upload_successful" }) },
      [`GET ${API}bulk_uploads/9/`]: () => ({ body: { ...BULK_RUNNING, id: 9 } }),
    });
    renderAt("/partner/bulk-uploads");
    fireEvent.click(await screen.findByTestId("bulk-add"));
    pick("bulk-archive", file("flotte.zip", "application/zip"));
    pick("bulk-csv", file("halter.csv", "text/csv"));
    fireEvent.click(screen.getByTestId("bulk-send"));
    const refusal = await screen.findByTestId("bulk-refusal");
    expect(refusal).toHaveTextContent("BULK005 Das Archiv enthält unsichere Dateinamen.");
    expect(refusal).toHaveTextContent("Dateien: ../etc/passwd");

    fireEvent.click(screen.getByTestId("bulk-send"));
    await waitFor(() => expect(currentLocation()).toBe("/partner/bulk-uploads/9"));
    const post = lastCall(calls, `${API}bulk_uploads/`, "POST");
    const body = post.body as FormData;
    expect(body).toBeInstanceOf(FormData);
    expect((body.get("archive") as File).name).toBe("flotte.zip");
    expect((body.get("owners_csv") as File).name).toBe("halter.csv");
    expect(post.headers.get("X-CSRFToken")).toBe("csrf-123");
    expect(post.headers.get("Content-Type")).toBeNull(); // the browser's multipart boundary
    expect(await screen.findByTestId("bulk-live")).toBeInTheDocument();
  });

  it("a CSV refused row by row names row, file and field", async () => {
    stubPartnerApi({
      ...loggedIn(),
      [`GET ${API}bulk_uploads/`]: () => listPage([]),
      [`POST ${API}bulk_uploads/`]: () => ({
        status: 400,
        body: {
          status: "unstructured_data_upload_failed",
          owners_csv: {
            error_code: "BULK022",
            message: "Einige Zeilen der CSV-Datei enthalten Fehler.",
            details: { rows: [{ row: 2, file_name: "a.jpg", errors: { account_iban: { error_code: "IBAN001" } } }] },
          },
        },
      }),
    });
    renderAt("/partner/bulk-uploads");
    fireEvent.click(await screen.findByTestId("bulk-add"));
    pick("bulk-archive", file("flotte.zip", "application/zip"));
    pick("bulk-csv", file("halter.csv", "text/csv"));
    fireEvent.click(screen.getByTestId("bulk-send"));
    expect(await screen.findByTestId("bulk-refusal")).toHaveTextContent("Zeile 2 (a.jpg): account_iban: IBAN001");
    expect(screen.getByTestId("bulk-csv-error")).toHaveTextContent("Einige Zeilen der CSV-Datei enthalten Fehler.");
  });

  it("polls a running upload until it is done and shows each file's result with its code", async () => {
    let polls = 0;
    const calls = stubPartnerApi({
      ...loggedIn(),
      [`GET ${API}bulk_uploads/5/`]: () => ({ body: ++polls < 2 ? BULK_RUNNING : { ...BULK_READY, id: 5 } }),
    });
    renderAt("/partner/bulk-uploads/5");
    expect(await screen.findByTestId("bulk-progress")).toHaveTextContent("2 von 5 Scans verarbeitet");
    expect(screen.getByTestId("bulk-rollback")).toBeDisabled();
    await waitFor(() => expect(screen.getByTestId("bulk-progress")).toHaveTextContent("5 von 5 Scans verarbeitet"), {
      timeout: 10_000,
    });
    expect(screen.queryByTestId("bulk-live")).toBeNull();
    expect(screen.getByText("IMGC002: Keine Zulassungsbescheinigung Teil I")).toBeInTheDocument();
    expect(screen.getByText("BULK032: Gleiche Datei wie b.pdf")).toBeInTheDocument();
    expect(screen.getByText("BULK033: Fahrzeug hat schon einen Antrag (Nr. 100010)")).toBeInTheDocument();
    const count = calls.filter((call) => call.path === `${API}bulk_uploads/5/`).length;
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(calls.filter((call) => call.path === `${API}bulk_uploads/5/`).length).toBe(count); // done: no more polling
  });

  it("rollback asks first; a refusal explains which applications are further along; then it succeeds", async () => {
    let tries = 0;
    stubPartnerApi({
      ...loggedIn(),
      [`GET ${API}bulk_uploads/4/`]: () => ({ body: BULK_READY }),
      [`POST ${API}bulk_uploads/4/rollback/`]: () =>
        ++tries === 1
          ? {
              status: 409,
              body: {
                detail: "Zurücknehmen geht nicht mehr: Anträge dieses Uploads sind schon weiter als „Erfasst“.",
                error_code: "BULK041",
                applications: [{ id: 20, status: "qa_picked_up" }],
              },
            }
          : {
              body: {
                ...bulkUpload(4, { status: "bevRegistration_bulk_is_rolled_back", can_roll_back: false }),
                removed: { applications: 2, registrations: 2, clients: 2, owners: 1 },
              },
            },
    });
    renderAt("/partner/bulk-uploads/4");
    fireEvent.click(await screen.findByTestId("bulk-rollback"));
    fireEvent.click(await screen.findByTestId("bulk-rollback-dialog-confirm"));
    const error = await screen.findByTestId("bulk-rollback-dialog-error");
    expect(error).toHaveTextContent("schon weiter als „Erfasst“");
    expect(error).toHaveTextContent("20 (In Prüfung)");
    fireEvent.click(screen.getByTestId("bulk-rollback-dialog-confirm"));
    expect(await screen.findByTestId("bulk-rolled-back")).toHaveTextContent(
      "Zurückgenommen: 2 Anträge, 2 Registrierungen.",
    );
  });

  it("a viewer sees the report but neither rollback nor owner data", async () => {
    stubPartnerApi({ ...loggedIn("viewer"), [`GET ${API}bulk_uploads/6/`]: () => ({ body: BULK_WITHOUT_CSV }) });
    renderAt("/partner/bulk-uploads/6");
    expect(await screen.findByTestId("bulk-progress")).toBeInTheDocument();
    expect(screen.queryByTestId("bulk-rollback")).toBeNull();
    expect(screen.queryByTestId("owner-add-0")).toBeNull();
  });

  it("the owner dialog offers only the forms of address the partner asks for, none when it asks for none", async () => {
    const offered = async (change: (config: PartnerConfig) => void) => {
      stubPartnerApi({ ...loggedIn("back_office"), [`GET ${API}bulk_uploads/6/`]: () => ({ body: BULK_WITHOUT_CSV }) });
      const view = renderAt("/partner/bulk-uploads/6", partnerConfig("standard", change));
      fireEvent.click(await screen.findByTestId("owner-add-0"));
      await screen.findByTestId("bulk-owner-form");
      const select = screen.queryByTestId("owner-gender") as HTMLSelectElement | null;
      const values = select ? [...select.options].map((option) => option.value) : null;
      view.unmount();
      return values;
    };
    expect(await offered((config) => (config.gender_option = 1))).toEqual(["", "woman", "man"]);
    expect(await offered((config) => (config.gender_option = 3))).toEqual([
      "",
      "woman",
      "man",
      "diverse",
      "not_specified",
    ]);
    expect(await offered((config) => (config.show_gender_option = false))).toBeNull();
  });

  it("owner data for a scan without CSV: the rules first, then the server's errors under their fields, then saved", async () => {
    let tries = 0;
    const calls = stubPartnerApi({
      ...loggedIn("back_office"),
      [`GET ${API}bulk_uploads/6/`]: () => ({
        body: tries > 1 ? { ...BULK_WITHOUT_CSV, items: [bulkItem(0), bulkItem(1)] } : BULK_WITHOUT_CSV,
      }),
      [`POST ${API}bulk_uploads/6/items/100/owner/`]: () =>
        ++tries === 1 ? { status: 400, body: { account_iban: { error_code: "IBAN001" } } } : { body: bulkItem(0) },
    });
    renderAt("/partner/bulk-uploads/6");
    expect(screen.queryByTestId("owner-add-1")).toBeNull(); // has its owner
    fireEvent.click(await screen.findByTestId("owner-add-0"));
    const form = await screen.findByTestId("bulk-owner-form");
    fireEvent.click(screen.getByTestId("owner-save"));
    expect(await within(form).findAllByText("Pflichtfeld")).not.toHaveLength(0);
    const fill: Record<string, string> = {
      email: "fahrerin@flotte.example",
      gender: "woman",
      first_name: "Jördis",
      last_name: "Weiß",
      street_name: "Hauptstraße",
      street_number: "1",
      postal_code: "10115",
      city: "Berlin",
      account_iban: "de89 3704 0044 0532 0130 00",
      vehicle_owner_type: "business",
    };
    for (const [name, value] of Object.entries(fill))
      fireEvent.change(screen.getByTestId(`owner-${name}`), { target: { value } });
    fireEvent.click(screen.getByTestId("owner-save"));
    expect(await within(form).findByText("Bitte wählen Sie aus.")).toBeInTheDocument(); // VAT liable?
    fireEvent.change(screen.getByTestId("owner-is_vat_mandatory"), { target: { value: "no" } });
    fireEvent.click(screen.getByTestId("owner-save"));
    expect(await within(form).findByText(/IBAN001: Die IBAN ist ungültig/)).toBeInTheDocument();
    fireEvent.click(screen.getByTestId("owner-save"));
    await waitFor(() => expect(screen.queryByTestId("bulk-owner-form")).toBeNull());
    expect(lastCall(calls, `${API}bulk_uploads/6/items/100/owner/`).body).toEqual({
      ...fill,
      account_iban: "DE89370400440532013000",
      account_name: "",
      is_vat_mandatory: false,
      name_of_business: "",
      vat_number: "",
    });
  });
});

describe("settlement batches", { timeout: 90_000 }, () => {
  it("partner admins only: the back office gets the refusal and no call", async () => {
    const calls = stubPartnerApi(loggedIn("back_office"));
    renderAt("/partner/settlement-batches/3");
    expect(await screen.findByTestId("forbidden")).toHaveTextContent("Dafür fehlt Ihnen die Berechtigung.");
    expect(calls.some((call) => call.path.startsWith(`${API}settlement_batches/`))).toBe(false);
  });

  it("lists the batches with totals and offers the one last opened (settlement-batch-id)", async () => {
    window.localStorage.setItem("settlement-batch-id", "3");
    stubPartnerApi({ ...loggedIn(), [`GET ${API}settlement_batches/`]: () => listPage(BATCH_LIST) });
    renderAt("/partner/settlement-batches");
    const list = await screen.findByTestId("batch-list");
    expect(await within(list).findByText("THG-20260328-3")).toBeInTheDocument();
    expect(within(list).getByText("Neu")).toBeInTheDocument();
    expect(within(list).getByText("Bezahlt")).toBeInTheDocument();
    expect(within(list).getByText("397,80 €")).toBeInTheDocument();
    fireEvent.click(screen.getByTestId("batch-last"));
    await waitFor(() => expect(currentLocation()).toBe("/partner/settlement-batches/3"));
  });

  it("creates a batch from the filters and shows what was left out", async () => {
    const calls = stubPartnerApi({
      ...loggedIn(),
      [`GET ${API}settlement_batches/`]: () => listPage([]),
      [`POST ${API}settlement_batches/`]: () => ({
        status: 201,
        body: {
          ...BATCH_NEW,
          skipped: [{ id: 41, sequence: 100041, detail: "Keine Bankverbindung und keine Ladekarte." }],
        },
      }),
      [`GET ${API}settlement_batches/3/`]: () => ({ body: BATCH_NEW }),
    });
    renderAt("/partner/settlement-batches");
    fireEvent.click(await screen.findByTestId("batch-add"));
    await screen.findByRole("option", { name: "2026" });
    fireEvent.change(screen.getByTestId("batch-legislation_year"), { target: { value: "2026" } });
    fireEvent.change(screen.getByTestId("batch-vehicle_class"), { target: { value: "M1" } });
    fireEvent.change(screen.getByTestId("batch-execution_date"), { target: { value: "01.01.2020" } });
    fireEvent.click(screen.getByTestId("batch-create-submit"));
    expect(await screen.findByText("Das Ausführungsdatum darf nicht in der Vergangenheit liegen.")).toBeInTheDocument();
    fireEvent.change(screen.getByTestId("batch-execution_date"), { target: { value: "" } });
    fireEvent.click(screen.getByTestId("batch-create-submit"));
    await waitFor(() => expect(currentLocation()).toBe("/partner/settlement-batches/3"));
    expect(lastCall(calls, `${API}settlement_batches/`, "POST").body).toEqual({
      filters: { legislation_year: 2026, vehicle_class: "M1" },
    });
    expect(await screen.findByTestId("batch-skipped")).toHaveTextContent(
      "100041 (Keine Bankverbindung und keine Ladekarte.)",
    );
    expect(window.localStorage.getItem("settlement-batch-id")).toBe("3");
  });

  it("creates a batch of the rows selected in the applications grid (partner admins)", async () => {
    const calls = stubPartnerApi({
      ...loggedIn(),
      [`GET ${API}quota_applications/`]: () => listPage(rows(3)),
      [`POST ${API}settlement_batches/`]: () => ({
        status: 201,
        body: { ...BATCH_NEW, skipped: [{ id: 2, sequence: 100002, detail: "Nicht zur Auszahlung freigegeben." }] },
      }),
      [`GET ${API}settlement_batches/3/`]: () => ({ body: BATCH_NEW }),
    });
    renderAt("/partner/applications");
    await screen.findByText("100001");
    const settle = screen.getByTestId("batch-from-selection");
    expect(settle).toBeDisabled();
    fireEvent.click(within(screen.getByRole("row", { name: /100001/ })).getByRole("checkbox"));
    fireEvent.click(within(screen.getByRole("row", { name: /100002/ })).getByRole("checkbox"));
    await waitFor(() => expect(settle).toHaveTextContent("Abrechnungslauf aus Auswahl (2)"));
    fireEvent.click(settle);
    const dialog = await screen.findByRole("dialog");
    expect(within(dialog).getByTestId("batch-create-text")).toHaveTextContent("Die 2 ausgewählten Anträge");
    // a selection needs no filters: only the execution date is asked for
    expect(within(dialog).queryByTestId("batch-legislation_year")).toBeNull();
    fireEvent.change(within(dialog).getByTestId("batch-execution_date"), { target: { value: "02.01.2099" } });
    fireEvent.click(within(dialog).getByTestId("batch-create-submit"));
    await waitFor(() => expect(currentLocation()).toBe("/partner/settlement-batches/3"));
    expect(lastCall(calls, `${API}settlement_batches/`, "POST").body).toEqual({
      ids: [1, 2],
      execution_date: "2099-01-02",
    });
    expect(await screen.findByTestId("batch-skipped")).toHaveTextContent("100002 (Nicht zur Auszahlung freigegeben.)");
  });

  it("the back office selects rows for moves but gets no settlement batch from them", async () => {
    stubPartnerApi({ ...loggedIn("back_office"), [`GET ${API}quota_applications/`]: () => listPage(rows(2)) });
    renderAt("/partner/applications");
    await screen.findByText("100001");
    expect(screen.getByTestId("bulk-move")).toBeInTheDocument();
    expect(screen.queryByTestId("batch-from-selection")).toBeNull();
  });

  it("the detail: totals per owner type, the SEPA download, mark paid from NEW with the spec's message", async () => {
    let paid = false;
    const calls = stubPartnerApi({
      ...loggedIn(),
      [`GET ${API}settlement_batches/3/`]: () => ({ body: paid ? { ...BATCH_PAID, id: 3 } : BATCH_NEW }),
      [`GET ${API}settlement_batches/3/sepa.xml`]: () => ({
        body: "<Document/>",
        headers: { "Content-Type": "application/xml" },
      }),
      [`POST ${API}settlement_batches/3/mark_paid/`]: () => {
        paid = true;
        return { body: { detail: "Successfully updated to status PAID", batch: { ...BATCH_PAID, id: 3 } } };
      },
    });
    const created = vi.fn(() => "blob:sepa");
    vi.stubGlobal("URL", Object.assign(URL, { createObjectURL: created, revokeObjectURL: vi.fn() }));
    const clicked = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => {});
    renderAt("/partner/settlement-batches/3");
    const totals = await screen.findByTestId("batch-totals");
    expect(within(totals).getByTestId("totals-all")).toHaveTextContent("4375,00 €22,80 €397,80 €");
    expect(within(totals).getByTestId("totals-private")).toHaveTextContent("3255,00 €0,00 €255,00 €");
    expect(within(totals).getByTestId("totals-business")).toHaveTextContent("1120,00 €22,80 €142,80 €");

    fireEvent.click(screen.getByTestId("sepa-download"));
    await waitFor(() => expect(clicked).toHaveBeenCalled());
    expect(lastCall(calls, `${API}settlement_batches/3/sepa.xml`).query.get("version")).toBe("09");
    const link = clicked.mock.contexts[0] as HTMLAnchorElement;
    expect(link.download).toBe("THG-20260328-3-pain.001.001.09.xml");

    fireEvent.click(screen.getByTestId("mark-paid"));
    fireEvent.click(await screen.findByTestId("mark-paid-dialog-confirm"));
    expect(await screen.findByTestId("mark-paid-done")).toHaveTextContent(
      "Der Abrechnungslauf ist als bezahlt markiert.",
    );
    expect(screen.queryByTestId("mark-paid")).toBeNull();
    expect(screen.getByTestId("batch-status")).toHaveTextContent("Bezahlt");
  });

  it("four eyes: a batch above the threshold shows the notice, a second admin approves it", async () => {
    const waiting = {
      ...BATCH_NEW,
      approval: { required: true, approved: false, approved_at: null, approved_by: null, created_by: "a@x.de" },
    };
    const approved = {
      ...waiting,
      approval: {
        ...waiting.approval,
        approved: true,
        approved_at: "2026-03-28T10:00:00+01:00",
        approved_by: "b@x.de",
      },
    };
    let done = false;
    const calls = stubPartnerApi({
      ...loggedIn(),
      [`GET ${API}settlement_batches/3/`]: () => ({ body: done ? approved : waiting }),
      [`POST ${API}settlement_batches/3/approve/`]: () => {
        done = true;
        return { body: approved };
      },
    });
    renderAt("/partner/settlement-batches/3");
    expect(await screen.findByTestId("approval-needed")).toHaveTextContent("zweiter Partner-Admin");
    fireEvent.click(screen.getByTestId("approve"));
    expect(await screen.findByTestId("approved-by")).toHaveTextContent("Freigegeben von b@x.de");
    expect(screen.queryByTestId("approval-needed")).toBeNull();
    expect(lastCall(calls, `${API}settlement_batches/3/approve/`)).toBeDefined();
  });

  it("a paid batch's kept SEPA file: the server's warning is shown", async () => {
    const warning = "Achtung: Dieser Lauf ist bereits bezahlt. Laden Sie die Datei nicht erneut bei der Bank hoch.";
    stubPartnerApi({
      ...loggedIn(),
      [`GET ${API}settlement_batches/3/`]: () => ({
        body: {
          ...BATCH_PAID,
          id: 3,
          sepa_file: {
            version: "09",
            msg_id: "THG-20260328-3",
            built_at: "2026-03-28T10:00:00+01:00",
            downloads: 2,
            warning,
          },
        },
      }),
    });
    renderAt("/partner/settlement-batches/3");
    expect(await screen.findByTestId("sepa-paid-warning")).toHaveTextContent(warning);
  });

  it("an erased owner's item: no name, no owner type, no action; the owner-type totals leave it out", async () => {
    stubPartnerApi({
      ...loggedIn(),
      [`GET ${API}settlement_batches/2/`]: () => ({ body: { ...BATCH_PAID_ERASED, id: 2 } }),
    });
    renderAt("/partner/settlement-batches/2");
    const items = await screen.findByTestId("batch-items");
    const erased = await within(items).findByText("Gelöscht (Art. 17 DSGVO)");
    const row = erased.closest("[role=row]") as HTMLElement;
    expect(row).toHaveTextContent("100017/2026");
    expect(row).toHaveTextContent("DE89 **** **** **** **30 00");
    expect(row).not.toHaveTextContent("Anna Muster");
    expect(row).toHaveTextContent("–");
    expect(within(row).queryByRole("button")).toBeNull();
    // the other paid item still offers its failure; the failed one its IBAN correction
    expect(within(items).getByTestId("fail-2")).toBeInTheDocument();
    expect(within(items).getByTestId("iban-3")).toBeInTheDocument();
    const totals = screen.getByTestId("batch-totals");
    expect(within(totals).getByTestId("totals-private")).toHaveTextContent("185,00 €0,00 €85,00 €");
  });

  it("a batch no longer NEW: the server's message 'Settlement batch status must be \"NEW\"' is shown", async () => {
    stubPartnerApi({
      ...loggedIn(),
      [`GET ${API}settlement_batches/3/`]: () => ({ body: BATCH_NEW }),
      [`POST ${API}settlement_batches/3/mark_paid/`]: () => ({
        status: 400,
        body: { detail: 'Settlement batch status must be "NEW"', error_code: "SETTLE001" },
      }),
    });
    renderAt("/partner/settlement-batches/3");
    fireEvent.click(await screen.findByTestId("mark-paid"));
    fireEvent.click(await screen.findByTestId("mark-paid-dialog-confirm"));
    expect(await screen.findByTestId("mark-paid-dialog-error")).toHaveTextContent(
      'Settlement batch status must be "NEW"',
    );
  });

  it("an item fails with a reason; a failed item gets a corrected IBAN", async () => {
    const calls = stubPartnerApi({
      ...loggedIn(),
      [`GET ${API}settlement_batches/2/`]: () => ({ body: { ...BATCH_PAID, id: 2 } }),
      [`POST ${API}settlement_batches/2/items/1/fail/`]: () => ({ body: BATCH_PAID.items[0] }),
      [`POST ${API}settlement_batches/2/items/3/iban/`]: (call) =>
        (call.body as { account_iban: string }).account_iban === "DE02120300000000202051"
          ? { body: BATCH_PAID.items[2] }
          : {
              status: 400,
              body: { detail: "Bitte geben Sie eine gültige IBAN aus dem SEPA-Raum ein.", error_code: "SETTLE007" },
            },
    });
    renderAt("/partner/settlement-batches/2");
    fireEvent.click(await screen.findByTestId("fail-1"));
    fireEvent.click(await screen.findByTestId("fail-form-save"));
    expect(await screen.findByText("Bitte geben Sie einen Grund an.")).toBeInTheDocument();
    fireEvent.change(screen.getByTestId("fail-form-reason"), { target: { value: "Rücklastschrift AC04" } });
    fireEvent.click(screen.getByTestId("fail-form-save"));
    await waitFor(() => expect(screen.queryByTestId("fail-form")).toBeNull());
    expect(lastCall(calls, `${API}settlement_batches/2/items/1/fail/`).body).toEqual({
      reason: "Rücklastschrift AC04",
    });

    fireEvent.click(screen.getByTestId("iban-3"));
    fireEvent.change(await screen.findByTestId("iban-form-account_iban"), { target: { value: "GB00 1234" } });
    fireEvent.click(screen.getByTestId("iban-form-save"));
    expect(await screen.findByText("Bitte geben Sie eine gültige IBAN ein.")).toBeInTheDocument();
    fireEvent.change(screen.getByTestId("iban-form-account_iban"), {
      target: { value: "DE02 1203 0000 0000 2020 51" },
    });
    fireEvent.click(screen.getByTestId("iban-form-save"));
    await waitFor(() => expect(screen.queryByTestId("iban-form")).toBeNull());
    expect(lastCall(calls, `${API}settlement_batches/2/items/3/iban/`).body).toEqual({
      account_iban: "DE02120300000000202051",
      account_name: "",
    });
  });
});
