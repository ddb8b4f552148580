/**
 * The partner area's data protection page (issue 19): a partner admin erases an owner on a
 * request received by mail. The states designers review: the form, the checked address with
 * what goes and what stays, the confirmation dialog with its rules, an unknown address, and
 * the refusal for other roles.
 */
import type { Meta, StoryObj } from "@storybook/react-vite";
import { http, HttpResponse } from "msw";
import { expect, userEvent, waitFor, within } from "storybook/test";

import { prepareStorage, type Screen, StoryApp } from "@/stories/story-app";

import { partnerHandlers } from "../mocks/partner-handlers";

const API = "/api/partner";

const privacyHandlers = (known = true) => [
  http.post(`${API}/privacy/erasure/preview/`, () =>
    known
      ? HttpResponse.json({ registrations: 2, applications: 3, payout_records_kept: 1, settlement_items_kept: 2 })
      : HttpResponse.json(
          { detail: "Zu dieser E-Mail-Adresse gibt es bei Ihnen kein Kundenkonto.", error_code: "PRIV007" },
          { status: 404 },
        ),
  ),
  http.post(`${API}/privacy/erasure/`, () =>
    HttpResponse.json({ detail: "Das Kundenkonto und seine Daten wurden gelöscht.", counts: { accounts: 1 } }),
  ),
  ...partnerHandlers(),
];

const meta = {
  title: "Partner area/Data protection",
  component: StoryApp,
  beforeEach: ({ args }) => prepareStorage(args as Screen),
  args: { route: "/partner/privacy" },
  parameters: { msw: privacyHandlers() },
} satisfies Meta<typeof StoryApp>;

export default meta;
type Story = StoryObj<typeof meta>;

const body = (canvasElement: HTMLElement) => within(canvasElement.ownerDocument.body);
const timeout = { timeout: 20_000 };

async function check(canvasElement: HTMLElement, email: string) {
  const page = body(canvasElement);
  await userEvent.type(await page.findByTestId("erasure-email", {}, timeout), email);
  await userEvent.click(page.getByTestId("erasure-check"));
}

export const Form: Story = {
  name: "Data protection: erasure form",
  play: async ({ canvasElement }) => {
    await body(canvasElement).findByTestId("erasure-lookup", {}, timeout);
  },
};

export const Checked: Story = {
  name: "Data protection: address checked",
  play: async ({ canvasElement }) => {
    await check(canvasElement, "ina@example.de");
    await expect(await body(canvasElement).findByTestId("erasure-preview", {}, timeout)).toBeVisible();
  },
};

export const Confirm: Story = {
  name: "Data protection: confirmation with its rules",
  play: async ({ canvasElement }) => {
    await check(canvasElement, "ina@example.de");
    await userEvent.click(await body(canvasElement).findByTestId("erasure-start", {}, timeout));
    const dialog = within(await body(canvasElement).findByRole("dialog", {}, timeout));
    await userEvent.click(dialog.getByTestId("erasure-confirm"));
    // the dialog may still be fading in when the message arrives (a busy machine)
    await waitFor(() => expect(dialog.getByText("Bitte bestätigen Sie die Prüfung.")).toBeVisible(), timeout);
  },
};

export const Erased: Story = {
  name: "Data protection: erased",
  play: async ({ canvasElement }) => {
    await check(canvasElement, "ina@example.de");
    await userEvent.click(await body(canvasElement).findByTestId("erasure-start", {}, timeout));
    const dialog = within(await body(canvasElement).findByRole("dialog", {}, timeout));
    await userEvent.type(dialog.getByTestId("erasure-reference"), "Brief vom 3. November");
    await userEvent.click(dialog.getByTestId("erasure-identity"));
    await userEvent.click(dialog.getByTestId("erasure-confirm"));
    await expect(await body(canvasElement).findByTestId("erasure-done", {}, timeout)).toBeVisible();
  },
};

export const Unknown: Story = {
  name: "Data protection: unknown address",
  parameters: { msw: privacyHandlers(false) },
  play: async ({ canvasElement }) => {
    await check(canvasElement, "weg@example.de");
    await expect(await body(canvasElement).findByTestId("erasure-lookup-error", {}, timeout)).toBeVisible();
  },
};

export const BackOffice: Story = {
  name: "Data protection: not allowed",
  parameters: { msw: [...partnerHandlers({ role: "back_office" })] },
  play: async ({ canvasElement }) => {
    await body(canvasElement).findByTestId("forbidden", {}, timeout);
  },
};
