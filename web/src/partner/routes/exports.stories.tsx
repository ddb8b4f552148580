/**
 * Issue 49's exports and notices in the partner area: the upload dialog with the quota year and
 * the owner CSV template, a sub-partner's link with its QR code to print, the member's own
 * settings with the daily mail digest switch.
 */
import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect, userEvent, waitFor, within } from "storybook/test";

import { prepareStorage, type Screen, StoryApp } from "@/stories/story-app";

import { moneyHandlers } from "../mocks/money-handlers";

const meta = {
  title: "Partner area/Exports and notices",
  component: StoryApp,
  beforeEach: ({ args }) => prepareStorage(args as Screen),
  parameters: { msw: moneyHandlers() },
  globals: { viewport: { value: "desktop", isRotated: false } },
  tags: ["desktop"],
} satisfies Meta<typeof StoryApp>;

export default meta;
type Story = StoryObj<typeof meta>;

const body = (canvasElement: HTMLElement) => within(canvasElement.ownerDocument.body);
const WAIT = { timeout: 20_000 };

export const BulkUploadYearAndTemplate: Story = {
  name: "Bulk upload: quota year and CSV template",
  args: { route: "/partner/bulk-uploads" },
  play: async ({ canvasElement }) => {
    const canvas = body(canvasElement);
    await userEvent.click(await canvas.findByTestId("bulk-add", {}, WAIT));
    await expect(await canvas.findByTestId("bulk-template", {}, WAIT)).toHaveTextContent("CSV-Vorlage herunterladen");
    const year = String(new Date().getFullYear());
    // the select is empty until the open years have arrived
    await waitFor(() => expect(canvas.getByTestId("bulk-year")).toHaveTextContent(year), WAIT);
  },
};

export const SubPartnerQrCode: Story = {
  name: "Sub-partner: link and QR code to print",
  args: { route: "/partner/sub-partners" },
  play: async ({ canvasElement }) => {
    const canvas = body(canvasElement);
    await userEvent.click(await canvas.findByTestId("sub-partner-qr-1", {}, WAIT));
    // the field is there at once, its value when the link's answer has arrived
    await waitFor(
      () => expect(canvas.getByTestId("sub-partner-link")).toHaveValue("https://autohaus.example/?ref=PARTNER1"),
      WAIT,
    );
  },
};

export const AccountDigest: Story = {
  name: "My account: daily e-mail summary",
  args: { route: "/partner/applications" },
  play: async ({ canvasElement }) => {
    const canvas = body(canvasElement);
    await userEvent.click(await canvas.findByTestId("partner-account", {}, WAIT));
    const toggle = await canvas.findByRole("switch", { name: "Tagesübersicht per E-Mail" }, WAIT);
    await expect(toggle).toBeChecked();
  },
};
