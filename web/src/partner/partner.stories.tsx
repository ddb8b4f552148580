/**
 * Every screen of the partner area (issue 16) at its route, with the states designers review:
 * empty, loading, error, filtered, the bulk result with refusals, forms with the server's
 * messages. The partner kind comes from the toolbar (standard by default); the kinds' own
 * stories are in partner-kinds.stories.tsx.
 */
import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect, userEvent, waitFor, within } from "storybook/test";

import { prepareStorage, type Screen, StoryApp } from "@/stories/story-app";

import {
  emptyHandlers,
  errorHandlers,
  inviteHandlers,
  loadingHandlers,
  loginHandlers,
  partnerHandlers,
} from "./mocks/partner-handlers";

const meta = {
  title: "Partner area",
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
const showsText = (text: string) => ({
  play: async ({ canvasElement }: { canvasElement: HTMLElement }) => {
    await within(canvasElement.ownerDocument.body).findByText(text, {}, { timeout: 20_000 });
  },
});

const desktop = { viewport: { value: "desktop", isRotated: false } };
const FILTERED =
  "/partner/applications?status=qa_entered&status=qa_picked_up&sub_partner=1&created_from=2026-03-01&q=Muster";

export const Login: Story = {
  name: "Partner login",
  args: { route: "/partner/login" },
  parameters: { msw: loginHandlers() },
  ...shows("partner-login"),
};
export const LoginWrongPassword: Story = {
  name: "Partner login: wrong password",
  args: { route: "/partner/login" },
  parameters: { msw: loginHandlers() },
  play: async ({ canvasElement }) => {
    const canvas = within(canvasElement);
    await userEvent.type(await canvas.findByTestId("partner-username", {}, { timeout: 20_000 }), "anna");
    await userEvent.type(canvas.getByTestId("partner-password"), "falsch");
    await userEvent.click(canvas.getByTestId("partner-login"));
    await expect(await canvas.findByTestId("login-error")).toHaveTextContent("Benutzername oder Passwort ist falsch.");
  },
};
export const LoginCode: Story = {
  name: "Partner login: code step, wrong code",
  args: { route: "/partner/login" },
  parameters: { msw: loginHandlers("otp") },
  play: async ({ canvasElement }) => {
    const canvas = within(canvasElement);
    await userEvent.type(await canvas.findByTestId("partner-username", {}, { timeout: 20_000 }), "anna");
    await userEvent.type(canvas.getByTestId("partner-password"), "Geheim_2026!");
    await userEvent.click(canvas.getByTestId("partner-login"));
    await userEvent.type(await canvas.findByTestId("partner-otp"), "123456");
    await userEvent.click(canvas.getByTestId("partner-otp-submit"));
    await expect(await canvas.findByText("Der Code ist falsch.")).toBeVisible();
  },
};
export const LoginEnrolment: Story = {
  name: "Partner login: enrolment with QR code",
  args: { route: "/partner/login" },
  parameters: { msw: loginHandlers("enrol") },
  play: async ({ canvasElement }) => {
    const canvas = within(canvasElement);
    await userEvent.type(await canvas.findByTestId("partner-username", {}, { timeout: 20_000 }), "anna");
    await userEvent.type(canvas.getByTestId("partner-password"), "Geheim_2026!");
    await userEvent.click(canvas.getByTestId("partner-login"));
    await expect(await canvas.findByTestId("enrol-qr")).toBeVisible();
  },
};
export const LoginBackupCodes: Story = {
  name: "Partner login: backup codes",
  args: { route: "/partner/login" },
  parameters: { msw: loginHandlers("enrol") },
  play: async ({ canvasElement }) => {
    const canvas = within(canvasElement);
    await userEvent.type(await canvas.findByTestId("partner-username", {}, { timeout: 20_000 }), "anna");
    await userEvent.type(canvas.getByTestId("partner-password"), "Geheim_2026!");
    await userEvent.click(canvas.getByTestId("partner-login"));
    await userEvent.type(await canvas.findByTestId("enrol-token"), "246810");
    await userEvent.click(canvas.getByTestId("enrol-submit"));
    await expect(await canvas.findByTestId("backup-codes")).toBeVisible();
  },
};
export const Invite: Story = {
  name: "Partner invite",
  args: { route: "/partner/invite/k3y" },
  parameters: { msw: inviteHandlers() },
  ...shows("invite-form"),
};
export const InviteExpired: Story = {
  name: "Partner invite: expired",
  args: { route: "/partner/invite/old" },
  parameters: { msw: inviteHandlers(false) },
  ...shows("invite-invalid"),
};

export const Dashboard: Story = {
  name: "Partner dashboard",
  args: { route: "/partner/dashboard" },
  globals: desktop,
  tags: ["desktop"],
  ...shows("stats-charts"),
};
export const DashboardPhone: Story = {
  name: "Partner dashboard: phone",
  args: { route: "/partner/dashboard" },
  ...shows("stats-charts"),
};
export const DashboardEmpty: Story = {
  name: "Partner dashboard: empty",
  args: { route: "/partner/dashboard" },
  parameters: { msw: emptyHandlers },
  globals: desktop,
  tags: ["desktop"],
  ...shows("stats-empty"),
};
export const DashboardLoading: Story = {
  name: "Partner dashboard: loading",
  args: { route: "/partner/dashboard" },
  parameters: { msw: loadingHandlers },
  globals: desktop,
  tags: ["desktop"],
};
export const DashboardError: Story = {
  name: "Partner dashboard: error",
  args: { route: "/partner/dashboard" },
  parameters: { msw: errorHandlers },
  globals: desktop,
  tags: ["desktop"],
  ...shows("load-error"),
};

export const Applications: Story = {
  name: "Partner applications",
  args: { route: "/partner/applications" },
  globals: desktop,
  tags: ["desktop"],
  ...shows("open-1"),
};
export const ApplicationsPhone: Story = {
  name: "Partner applications: phone",
  args: { route: "/partner/applications" },
  ...shows("open-1"),
};
export const ApplicationsFiltered: Story = {
  name: "Partner applications: filtered",
  args: { route: FILTERED },
  globals: desktop,
  tags: ["desktop"],
  ...shows("open-1"),
};
export const ApplicationsEstimated: Story = {
  name: "Partner applications: large match, estimated count",
  args: { route: "/partner/applications?q=WVW" },
  parameters: { msw: partnerHandlers({ count: 18_541, countExact: false }) },
  globals: desktop,
  tags: ["desktop"],
  ...shows("application-count"),
};
export const ApplicationsRestored: Story = {
  name: "Partner applications: filter restored from filter-values",
  args: {
    route: "/partner/applications",
    local: { "filter-values": JSON.stringify({ status: ["qa_paid"], legislation_year: ["2026"], page_size: ["50"] }) },
  },
  globals: desktop,
  tags: ["desktop"],
};
export const ApplicationsEmpty: Story = {
  name: "Partner applications: empty",
  args: { route: "/partner/applications?status=qa_test" },
  parameters: { msw: emptyHandlers },
  globals: desktop,
  tags: ["desktop"],
  ...shows("list-empty"),
};
export const ApplicationsLoading: Story = {
  name: "Partner applications: loading",
  args: { route: "/partner/applications" },
  parameters: { msw: loadingHandlers },
  globals: desktop,
  tags: ["desktop"],
};
export const ApplicationsForbidden: Story = {
  name: "Partner applications: error (403)",
  args: { route: "/partner/applications" },
  parameters: { msw: errorHandlers },
  globals: desktop,
  tags: ["desktop"],
  ...shows("forbidden"),
};
export const ApplicationsViewer: Story = {
  name: "Partner applications: viewer",
  args: { route: "/partner/applications" },
  parameters: { msw: partnerHandlers({ role: "viewer" }) },
  globals: desktop,
  tags: ["desktop"],
  ...shows("open-1"),
};
export const ApplicationsBulkResult: Story = {
  name: "Partner applications: bulk result with refusals",
  args: { route: "/partner/applications" },
  globals: desktop,
  tags: ["desktop"],
  play: async ({ canvasElement }) => {
    const canvas = within(canvasElement);
    const body = within(canvasElement.ownerDocument.body);
    for (const sequence of ["100001", "100002", "100003"]) {
      await userEvent.click(
        within(await canvas.findByRole("row", { name: new RegExp(sequence) }, { timeout: 20_000 })).getByRole(
          "checkbox",
        ),
      );
    }
    await userEvent.click(canvas.getByTestId("bulk-move"));
    const dialog = within(await body.findByRole("dialog"));
    await userEvent.click(dialog.getByTestId("move-status"));
    await userEvent.click(await body.findByRole("option", { name: "Zur Auszahlung freigegeben" }));
    await userEvent.type(dialog.getByTestId("move-reason"), "Zahlung am 28.03. erfolgt");
    await userEvent.click(dialog.getByTestId("move-submit"));
    await expect(await dialog.findByTestId("move-refusals", {}, { timeout: 20_000 })).toBeVisible();
  },
};
export const ApplicationDetail: Story = {
  name: "Partner applications: detail drawer",
  args: { route: "/partner/applications?open=2" },
  globals: desktop,
  tags: ["desktop"],
  ...shows("application-detail"),
};
/** Issue 49: "Speichern" and "Abbrechen" of the correction form broke mid-word in the 1440 px
 * drawer (the value cell breaks long values anywhere). Each button's label is one line, and the
 * table stays inside the drawer. */
export const ApplicationDetailCorrecting: Story = {
  name: "Partner applications: detail drawer, correcting a field",
  args: { route: "/partner/applications?open=2" },
  globals: desktop,
  tags: ["desktop"],
  play: async ({ canvasElement }) => {
    const body = within(canvasElement.ownerDocument.body);
    const [correct] = await body.findAllByTestId(/^correct-/, {}, { timeout: 20_000 });
    await userEvent.click(correct);
    const form = await body.findByTestId(/^correction-form-/);
    for (const button of within(form).getAllByRole("button")) {
      // the label's text (not the ripple's box): one line box per line it takes
      const label = Array.from(button.childNodes).find((node) => node.nodeType === Node.TEXT_NODE);
      const range = canvasElement.ownerDocument.createRange();
      if (label) range.selectNodeContents(label);
      const lines = new Set(Array.from(range.getClientRects(), (rect) => Math.round(rect.top)));
      await expect({ label: button.textContent, lines: lines.size }).toEqual({ label: button.textContent, lines: 1 });
    }
    // and the open form does not widen the table beyond the drawer (a phone's too)
    const table = body.getByTestId("reading-table");
    const drawer = table.closest(".MuiDrawer-paper") ?? table;
    await expect(table.getBoundingClientRect().right).toBeLessThanOrEqual(drawer.getBoundingClientRect().right);
  },
};
export const ApplicationDetailPhone: Story = {
  name: "Partner applications: detail drawer, phone",
  args: { route: "/partner/applications?open=2" },
  ...shows("application-detail"),
};

export const SubPartners: Story = {
  name: "Partner sub-partners",
  args: { route: "/partner/sub-partners" },
  globals: desktop,
  tags: ["desktop"],
  ...shows("edit-1"),
};
export const SubPartnersEmpty: Story = {
  name: "Partner sub-partners: empty",
  args: { route: "/partner/sub-partners" },
  parameters: { msw: emptyHandlers },
  globals: desktop,
  tags: ["desktop"],
  ...shows("list-empty"),
};
export const SubPartnerForm: Story = {
  name: "Partner sub-partners: form with the server's message",
  args: { route: "/partner/sub-partners" },
  play: async ({ canvasElement }) => {
    const canvas = within(canvasElement);
    const body = within(canvasElement.ownerDocument.body);
    await userEvent.click(await canvas.findByTestId("sub-partner-add", {}, { timeout: 20_000 }));
    const form = within(await body.findByTestId("sub-partner-form"));
    await userEvent.type(form.getByTestId("field-name"), "Solar Schulz");
    await userEvent.type(form.getByTestId("field-referral_key"), "meier-1");
    await userEvent.click(form.getByTestId("form-save"));
    await expect(await form.findByText("Dieser Empfehlungsschlüssel ist schon vergeben.")).toBeVisible();
  },
};
export const SingleDeals: Story = {
  name: "Partner single deals",
  args: { route: "/partner/single-deals" },
  globals: desktop,
  tags: ["desktop"],
  ...shows("edit-1"),
};
export const SingleDealDraft: Story = {
  name: "Partner single deals: unsaved form restored (single-deal-details)",
  args: {
    route: "/partner/single-deals",
    local: {
      "single-deal-details": JSON.stringify({
        id: null,
        values: { name: "Taxi Berlin", price_net: "70,5", legislation_years: "2026, 2027", vehicle_cap: "0" },
      }),
    },
  },
  play: async ({ canvasElement }) => {
    const form = within(
      await within(canvasElement.ownerDocument.body).findByTestId("single-deal-form", {}, { timeout: 20_000 }),
    );
    await userEvent.click(form.getByTestId("form-save"));
    // The message is there at once, the dialog around it may still be fading in.
    await waitFor(() => expect(form.getByText("Eine ganze Zahl ab 1, oder leer für keine Grenze.")).toBeVisible());
  },
};
export const Staff: Story = {
  name: "Partner staff",
  args: { route: "/partner/staff" },
  globals: desktop,
  tags: ["desktop"],
  ...shows("staff-table"),
};
export const StaffViewer: Story = {
  name: "Partner staff: not allowed",
  args: { route: "/partner/staff" },
  parameters: { msw: partnerHandlers({ role: "viewer" }) },
  ...shows("forbidden"),
};
export const Audit: Story = {
  name: "Partner audit",
  args: { route: "/partner/audit" },
  globals: desktop,
  tags: ["desktop"],
  ...showsText("Status geändert"),
};
export const AuditEmpty: Story = {
  name: "Partner audit: empty",
  args: { route: "/partner/audit" },
  parameters: { msw: emptyHandlers },
  ...shows("list-empty"),
};
export const Menu: Story = {
  name: "Partner menu: phone",
  args: { route: "/partner/dashboard" },
  play: async ({ canvasElement }) => {
    const canvas = within(canvasElement);
    const page = within(canvasElement.ownerDocument.body);
    // A phone opens the menu with its toggle; from 900 px on (the layout checks open this story
    // at 1440 px too) the menu is always there and there is no toggle to press.
    await waitFor(
      () => expect(canvas.queryByTestId("partner-menu-toggle") ?? page.queryByTestId("partner-menu")).not.toBeNull(),
      { timeout: 20_000 },
    );
    const toggle = canvas.queryByTestId("partner-menu-toggle");
    if (toggle) await userEvent.click(toggle);
    await expect(await page.findByTestId("partner-menu")).toBeVisible();
  },
};
