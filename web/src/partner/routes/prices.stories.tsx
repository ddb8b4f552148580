/**
 * The partner's fee table, "Preise" (issue 49), with the states designers review: the partner
 * admin's editor with versions, the demo dealer before it set prices (the warning), a price
 * above the platform's bound, what back office and viewers see, a phone; and the warning on the
 * dashboard and in the settlement batch dialog while payable applications have no price.
 */
import type { Meta, StoryObj } from "@storybook/react-vite";
import { http, HttpResponse } from "msw";
import { expect, userEvent, within } from "storybook/test";

import { prepareStorage, type Screen, StoryApp } from "@/stories/story-app";

import { moneyHandlers } from "../mocks/money-handlers";
import { MISSING } from "../mocks/prices-fixtures";
import { emptyPricesHandlers, pricesHandlers } from "../mocks/prices-handlers";

const meta = {
  title: "Partner area/Prices",
  component: StoryApp,
  beforeEach: ({ args }) => prepareStorage(args as Screen),
  parameters: { msw: pricesHandlers() },
} satisfies Meta<typeof StoryApp>;

export default meta;
type Story = StoryObj<typeof meta>;

const desktop = { globals: { viewport: { value: "desktop", isRotated: false } }, tags: ["desktop"] };
const body = (canvasElement: HTMLElement) => within(canvasElement.ownerDocument.body);
const WAIT = { timeout: 20_000 };
const shows =
  (testid: string): Story["play"] =>
  async ({ canvasElement }) => {
    await body(canvasElement).findByTestId(testid, {}, WAIT);
  };

export const Prices: Story = {
  ...desktop,
  name: "Prices: partner admin",
  args: { route: "/partner/prices" },
  play: shows("prices-versions"),
};

export const PricesPhone: Story = {
  name: "Prices: phone",
  args: { route: "/partner/prices" },
  play: shows("prices-form"),
};

export const PricesEmpty: Story = {
  ...desktop,
  name: "Prices: none yet, applications waiting",
  args: { route: "/partner/prices" },
  parameters: { msw: emptyPricesHandlers() },
  play: async ({ canvasElement }) => {
    const canvas = body(canvasElement);
    await expect(await canvas.findByTestId("price-missing", {}, WAIT)).toHaveTextContent("14 zur Auszahlung");
    // The warning comes from the missing-price count, the form from the price table: two answers,
    // in either order.
    await userEvent.click(await canvas.findByTestId("price-add", {}, WAIT));
    await canvas.findByTestId("price-private_payout-1");
  },
};

export const PricesAboveTheBound: Story = {
  ...desktop,
  name: "Prices: above the platform's bound",
  args: { route: "/partner/prices" },
  play: async ({ canvasElement }) => {
    const canvas = body(canvasElement);
    const input = await canvas.findByTestId("price-private_payout-1", {}, WAIT);
    await userEvent.clear(input);
    await userEvent.type(input, "85000");
    await userEvent.click(canvas.getByTestId("price-save"));
    await expect(await canvas.findByText(/Höchstens 1\.000,00\s€ je Fahrzeug/)).toBeVisible();
  },
};

export const PricesViewer: Story = {
  ...desktop,
  name: "Prices: viewer (read only)",
  args: { route: "/partner/prices" },
  parameters: { msw: pricesHandlers({ role: "viewer" }) },
  play: async ({ canvasElement }) => {
    await body(canvasElement).findByTestId("prices-table", {}, WAIT);
    await expect(body(canvasElement).queryByTestId("price-save")).toBeNull();
  },
};

export const DashboardWithoutPrices: Story = {
  ...desktop,
  name: "Dashboard: applications without a price",
  args: { route: "/partner/dashboard" },
  parameters: { msw: emptyPricesHandlers() },
  play: shows("price-missing"),
};

export const BatchWithoutPrices: Story = {
  ...desktop,
  name: "Settlement batch dialog: applications without a price",
  args: { route: "/partner/settlement-batches" },
  parameters: {
    msw: [http.get("/api/partner/fees/missing/", () => HttpResponse.json(MISSING)), ...moneyHandlers()],
  },
  play: async ({ canvasElement }) => {
    const canvas = body(canvasElement);
    await userEvent.click(await canvas.findByTestId("batch-add", {}, WAIT));
    await canvas.findByTestId("price-missing", {}, WAIT);
  },
};
