/**
 * The bulk upload and settlement screens of the partner area (issue 17) at their routes, with
 * the states designers review: list (running, finished, rejected, rolled back), empty, the
 * upload dialog with the client's and the server's refusals, live progress, the per-file
 * report, rollback refused, owner data with the server's field errors, batches new and paid,
 * mark paid, a batch from the rows selected in the applications, and what a viewer sees.
 */
import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect, userEvent, within } from "storybook/test";

import { prepareStorage, type Screen, StoryApp } from "@/stories/story-app";

import { moneyHandlers } from "../mocks/money-handlers";

const meta = {
  title: "Partner area/Money path",
  component: StoryApp,
  beforeEach: ({ args }) => prepareStorage(args as Screen),
  parameters: { msw: moneyHandlers() },
  globals: { viewport: { value: "desktop", isRotated: false } },
  tags: ["desktop"],
} satisfies Meta<typeof StoryApp>;

export default meta;
type Story = StoryObj<typeof meta>;
type Handlers = Parameters<typeof moneyHandlers>[0];

const body = (canvasElement: HTMLElement) => within(canvasElement.ownerDocument.body);
const WAIT = { timeout: 20_000 };

/** The screen at its route, waiting for `shows` (or running `play`); other API answers by `handlers`. */
function story(
  name: string,
  route: string,
  {
    shows,
    play,
    handlers,
    local,
  }: { shows?: string; play?: Story["play"]; handlers?: Handlers; local?: Record<string, string> },
): Story {
  return {
    name,
    args: { route, ...(local ? { local } : {}) },
    ...(handlers ? { parameters: { msw: moneyHandlers(handlers) } } : {}),
    play:
      play ??
      (async ({ canvasElement }) => {
        await body(canvasElement).findByTestId(shows ?? "", {}, WAIT);
      }),
  };
}

/** Waits for the control, clicks it, and hands back the page to go on with. */
async function clickFirst(canvasElement: HTMLElement, testid: string) {
  const canvas = body(canvasElement);
  await userEvent.click(await canvas.findByTestId(testid, {}, WAIT));
  return canvas;
}

export const BulkUploads = story("Bulk uploads", "/partner/bulk-uploads", { shows: "bulk-open-5" });
export const BulkUploadsEmpty = story("Bulk uploads: empty", "/partner/bulk-uploads", {
  shows: "list-empty",
  handlers: { empty: true },
});
export const BulkUploadsViewer = story("Bulk uploads: viewer (no upload)", "/partner/bulk-uploads", {
  handlers: { role: "viewer" },
  play: async ({ canvasElement }) => {
    await body(canvasElement).findByTestId("bulk-open-5", {}, WAIT);
    await expect(body(canvasElement).queryByTestId("bulk-add")).toBeNull();
  },
});
export const BulkUploadDialog = story("Bulk upload: dialog, file checks", "/partner/bulk-uploads", {
  play: async ({ canvasElement }) => {
    const canvas = await clickFirst(canvasElement, "bulk-add");
    const rar = new File(["x"], "scans.rar", { type: "application/x-rar" });
    await userEvent.upload(canvas.getByTestId("bulk-archive"), rar, { applyAccept: false });
    await userEvent.click(canvas.getByTestId("bulk-send"));
    await expect(await canvas.findByTestId("bulk-archive-error")).toHaveTextContent("Bitte wählen Sie eine ZIP-Datei.");
  },
});
export const BulkUploadCsvRefused = story("Bulk upload: owner CSV refused by the server", "/partner/bulk-uploads", {
  play: async ({ canvasElement }) => {
    const canvas = await clickFirst(canvasElement, "bulk-add");
    await userEvent.upload(
      canvas.getByTestId("bulk-archive"),
      new File(["PK"], "flotte.zip", { type: "application/zip" }),
    );
    await userEvent.upload(canvas.getByTestId("bulk-csv"), new File(["a;b"], "halter.csv", { type: "text/csv" }));
    await userEvent.click(canvas.getByTestId("bulk-send"));
    await expect(await canvas.findByTestId("bulk-refusal")).toHaveTextContent("Zeile 2 (a.jpg)");
  },
});
export const BulkUploadRunning = story("Bulk upload: live progress", "/partner/bulk-uploads/5", {
  shows: "bulk-live",
});
export const BulkUploadReport = story("Bulk upload: per-file report", "/partner/bulk-uploads/4", {
  shows: "item-status-4",
});
export const BulkUploadRollbackRefused = story("Bulk upload: rollback refused", "/partner/bulk-uploads/4", {
  play: async ({ canvasElement }) => {
    const canvas = await clickFirst(canvasElement, "bulk-rollback");
    await userEvent.click(await canvas.findByTestId("bulk-rollback-dialog-confirm"));
    await expect(await canvas.findByTestId("bulk-rollback-dialog-error")).toHaveTextContent("20 (In Prüfung)");
  },
});
export const BulkUploadOwner = story("Bulk upload: owner data, server's field errors", "/partner/bulk-uploads/6", {
  play: async ({ canvasElement }) => {
    const canvas = await clickFirst(canvasElement, "owner-add-0");
    const fill: [string, string][] = [
      ["owner-email", "anna@flotte.example"],
      ["owner-first_name", "Anna"],
      ["owner-last_name", "Muster"],
      ["owner-street_name", "Hauptstraße"],
      ["owner-street_number", "1"],
      ["owner-postal_code", "10115"],
      ["owner-city", "Berlin"],
      ["owner-account_iban", "DE89 3704 0044 0532 0130 00"],
    ];
    for (const [testid, value] of fill) await userEvent.type(canvas.getByTestId(testid), value);
    await userEvent.click(canvas.getByTestId("owner-save"));
    await expect(await canvas.findByText(/IBAN001: Die IBAN ist ungültig/)).toBeVisible();
  },
});

export const SettlementBatches = story("Settlement batches", "/partner/settlement-batches", {
  shows: "batch-last",
  local: { "settlement-batch-id": "3" },
});
export const SettlementBatchesEmpty = story("Settlement batches: empty", "/partner/settlement-batches", {
  shows: "list-empty",
  handlers: { empty: true },
});
export const SettlementBatchesBackOffice = story(
  "Settlement batches: back office (partner admins only)",
  "/partner/settlement-batches",
  { shows: "forbidden", handlers: { role: "back_office" } },
);
export const SettlementBatchCreateRefused = story("Settlement batch: nothing to pay", "/partner/settlement-batches", {
  play: async ({ canvasElement }) => {
    const canvas = await clickFirst(canvasElement, "batch-add");
    await userEvent.click(canvas.getByTestId("batch-create-submit"));
    await expect(await canvas.findByTestId("batch-create-error")).toHaveTextContent("41: Für Jahr und Fahrzeugklasse");
  },
});
export const SettlementBatchFromSelection = story(
  "Settlement batch: from the rows selected in the applications",
  "/partner/applications",
  {
    play: async ({ canvasElement }) => {
      const canvas = body(canvasElement);
      const [first] = await canvas.findAllByRole("checkbox", { name: "Zeile auswählen" }, WAIT);
      await userEvent.click(first as HTMLElement);
      await userEvent.click(await canvas.findByTestId("batch-from-selection"));
      await expect(await canvas.findByTestId("batch-create-text")).toHaveTextContent("Die 1 ausgewählten Anträge");
      await expect(canvas.queryByTestId("batch-legislation_year")).toBeNull();
      await userEvent.click(canvas.getByTestId("batch-create-submit"));
      await expect(await canvas.findByTestId("batch-create-error")).toHaveTextContent(
        "41: Für Jahr und Fahrzeugklasse",
      );
    },
  },
);
export const SettlementBatchNew = story("Settlement batch: NEW with totals", "/partner/settlement-batches/3", {
  shows: "batch-totals",
});
export const SettlementBatchMarkPaid = story("Settlement batch: mark paid", "/partner/settlement-batches/3", {
  play: async ({ canvasElement }) => {
    const canvas = await clickFirst(canvasElement, "mark-paid");
    await userEvent.click(await canvas.findByTestId("mark-paid-dialog-confirm"));
    await expect(await canvas.findByTestId("mark-paid-done")).toHaveTextContent(
      "Der Abrechnungslauf ist als bezahlt markiert.",
    );
  },
});
export const SettlementBatchPaid = story("Settlement batch: PAID, a failed item", "/partner/settlement-batches/2", {
  shows: "iban-3",
});

// ---- issue 46: payout documents, the bank's return files, failed payouts' actions

const returnFile = () =>
  new File(
    ['<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08"/>'],
    "rueckgaben.xml",
    {
      type: "text/xml",
    },
  );

export const SettlementBatchDocuments = story(
  "Settlement batch: PAID, credit notes and payout statements",
  "/partner/settlement-batches/2",
  { shows: "documents-list" },
);
export const SettlementBatchRequeue = story(
  "Settlement batch: failed item, pay again",
  "/partner/settlement-batches/2",
  {
    play: async ({ canvasElement }) => {
      const canvas = await clickFirst(canvasElement, "more-3");
      await userEvent.click(await canvas.findByTestId("requeue-3"));
      await expect(await canvas.findByTestId("requeue-dialog")).toHaveTextContent("Erneut auszahlen?");
    },
  },
);
export const SettlementBatchPaidAfterAll = story(
  "Settlement batch: failed item, paid after all",
  "/partner/settlement-batches/2",
  {
    play: async ({ canvasElement }) => {
      const canvas = await clickFirst(canvasElement, "more-3");
      await userEvent.click(await canvas.findByTestId("paid-3"));
      await userEvent.type(await canvas.findByTestId("paid-form-note"), "Kontoauszug vom 12.04.");
      await expect(canvas.getByTestId("paid-form")).toHaveTextContent("Doch ausgezahlt bestätigen");
    },
  },
);
export const BankReturnFile = story("Bank return file: the items it failed", "/partner/settlement-batches", {
  play: async ({ canvasElement }) => {
    const canvas = await clickFirst(canvasElement, "returns-open");
    await userEvent.upload(canvas.getByTestId("returns-file"), returnFile(), { applyAccept: false });
    await userEvent.click(canvas.getByTestId("returns-send"));
    await expect(await canvas.findByTestId("returns-item-3")).toHaveTextContent("AC04");
  },
});
export const BankReturnFileRefused = story("Bank return file: refused by the server", "/partner/settlement-batches", {
  handlers: { returnRefused: true },
  play: async ({ canvasElement }) => {
    const canvas = await clickFirst(canvasElement, "returns-open");
    await userEvent.upload(canvas.getByTestId("returns-file"), returnFile(), { applyAccept: false });
    await userEvent.click(canvas.getByTestId("returns-send"));
    await expect(await canvas.findByTestId("returns-file-error")).toHaveTextContent("camt.054 oder pain.002");
  },
});
