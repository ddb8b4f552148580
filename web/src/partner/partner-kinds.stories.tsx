/** The partner area's main screens in the utility and the wallbox kind (the standard kind: partner.stories.tsx). */
import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect, userEvent, within } from "storybook/test";

import { prepareStorage, type Screen, StoryApp } from "@/stories/story-app";

import { errorHandlers, emptyHandlers, loginHandlers, partnerHandlers } from "./partner-handlers";

const meta = {
  title: "Partner area: kinds",
  component: StoryApp,
  beforeEach: ({ args }) => prepareStorage(args as Screen),
  parameters: { msw: partnerHandlers() },
} satisfies Meta<typeof StoryApp>;

export default meta;
type Story = StoryObj<typeof meta>;

/** The story is ready when the screen's content has arrived (lazy chunks, MSW answers). */
const shows = (testid: string) => ({
  play: async ({ canvasElement }: { canvasElement: HTMLElement }) => {
    await within(canvasElement.ownerDocument.body).findByTestId(testid, {}, { timeout: 20_000 });
  },
});

const desktop = { viewport: { value: "desktop", isRotated: false } };
const utility = { theme: "utility" };
const wallbox = { theme: "wallbox" };
const FILTERED = "/partner/applications?status=qa_entered&sub_partner=1&q=Muster";

async function bulkMove({ canvasElement }: { canvasElement: HTMLElement }) {
  const canvas = within(canvasElement);
  const body = within(canvasElement.ownerDocument.body);
  for (const sequence of ["100001", "100002"]) {
    await userEvent.click(
      within(await canvas.findByRole("row", { name: new RegExp(sequence) }, { timeout: 20_000 })).getByRole("checkbox"),
    );
  }
  await userEvent.click(canvas.getByTestId("bulk-move"));
  const dialog = within(await body.findByRole("dialog"));
  await userEvent.click(dialog.getByTestId("move-status"));
  await userEvent.click(await body.findByRole("option", { name: "Ausgezahlt" }));
  await userEvent.type(dialog.getByTestId("move-reason"), "Zahlung erfolgt");
  await userEvent.click(dialog.getByTestId("move-submit"));
  await expect(await dialog.findByTestId("move-refusals", {}, { timeout: 20_000 })).toBeVisible();
}

export const UtilityLogin: Story = {
  name: "Utility: login",
  args: { route: "/partner/login" },
  parameters: { msw: loginHandlers() },
  globals: utility,
  ...shows("partner-login"),
};
export const UtilityDashboard: Story = {
  name: "Utility: dashboard",
  args: { route: "/partner/dashboard" },
  globals: { ...utility, ...desktop },
  tags: ["desktop"],
  ...shows("stats-charts"),
};
export const UtilityDashboardEmpty: Story = {
  name: "Utility: dashboard empty",
  args: { route: "/partner/dashboard" },
  parameters: { msw: emptyHandlers },
  globals: { ...utility, ...desktop },
  tags: ["desktop"],
  ...shows("stats-empty"),
};
export const UtilityApplicationsFiltered: Story = {
  name: "Utility: applications filtered",
  args: { route: FILTERED },
  globals: { ...utility, ...desktop },
  tags: ["desktop"],
  ...shows("open-1"),
};
export const UtilityApplicationsError: Story = {
  name: "Utility: applications error",
  args: { route: "/partner/applications" },
  parameters: { msw: errorHandlers },
  globals: { ...utility, ...desktop },
  tags: ["desktop"],
  ...shows("forbidden"),
};
export const UtilityBulkResult: Story = {
  name: "Utility: bulk result with refusals",
  args: { route: "/partner/applications" },
  globals: { ...utility, ...desktop },
  tags: ["desktop"],
  play: bulkMove,
};
export const UtilityDetail: Story = {
  name: "Utility: detail drawer",
  args: { route: "/partner/applications?open=2" },
  globals: utility,
  ...shows("application-detail"),
};
export const UtilitySubPartners: Story = {
  name: "Utility: sub-partners",
  args: { route: "/partner/sub-partners" },
  globals: { ...utility, ...desktop },
  tags: ["desktop"],
  ...shows("edit-1"),
};

export const WallboxLogin: Story = {
  name: "Wallbox: login",
  args: { route: "/partner/login" },
  parameters: { msw: loginHandlers() },
  globals: wallbox,
  ...shows("partner-login"),
};
export const WallboxDashboard: Story = {
  name: "Wallbox: dashboard",
  args: { route: "/partner/dashboard" },
  globals: { ...wallbox, ...desktop },
  tags: ["desktop"],
  ...shows("stats-charts"),
};
export const WallboxApplicationsEmpty: Story = {
  name: "Wallbox: applications empty",
  args: { route: "/partner/applications?status=qa_test" },
  parameters: { msw: emptyHandlers },
  globals: { ...wallbox, ...desktop },
  tags: ["desktop"],
  ...shows("applications-empty"),
};
export const WallboxApplicationsPhone: Story = {
  name: "Wallbox: applications phone",
  args: { route: "/partner/applications" },
  globals: wallbox,
  ...shows("open-1"),
};
export const WallboxBulkResult: Story = {
  name: "Wallbox: bulk result with refusals",
  args: { route: "/partner/applications" },
  globals: { ...wallbox, ...desktop },
  tags: ["desktop"],
  play: bulkMove,
};
export const WallboxSingleDeals: Story = {
  name: "Wallbox: single deals",
  args: { route: "/partner/single-deals" },
  globals: { ...wallbox, ...desktop },
  tags: ["desktop"],
  ...shows("edit-1"),
};
export const WallboxStaff: Story = {
  name: "Wallbox: staff",
  args: { route: "/partner/staff" },
  globals: { ...wallbox, ...desktop },
  tags: ["desktop"],
  ...shows("staff-table"),
};
