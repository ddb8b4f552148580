/**
 * The partner area's "Prüfung" (issue 45): the applications whose fields the reader left unread
 * or read unsure, each field with its crop of the display copy, the rule that decided it and a
 * keyboard-fast correction; the report of which field and rule the back office corrects most.
 * The states designers review: the queue with a VIN unread and a date unsure, a saved
 * correction, the server's refusal of a value, nothing to review, and the viewer (no inputs).
 */
import type { Meta, StoryObj } from "@storybook/react-vite";
import { http, HttpResponse } from "msw";
import { expect, userEvent, waitFor, within } from "storybook/test";

import { prepareStorage, type Screen, StoryApp } from "@/stories/story-app";

import { detail } from "../mocks/fixtures";
import { partnerHandlers } from "../mocks/partner-handlers";

const API = "/api/partner";

const field = (code: string, value: string | null, decided_by: string, confidence: number | null, box: number[]) => ({
  code,
  value,
  confidence,
  unread: value === null,
  decided_by,
  box,
});
// the boxes are shares of the display copy (/story-scan.svg, 1600 x 1100)
const QUEUE = [
  {
    id: 7,
    sequence: 1007,
    status: "qa_entered",
    status_label: "Eingegangen",
    created_at: "2026-03-01T10:00:00+01:00",
    owner_name: "Erika Mustermann",
    vin: "",
    image_url: "/story-scan.svg",
    fields: [
      field("E", null, "field3_disagrees", null, [0.33, 0.18, 0.64, 0.24]),
      field("B", "2021-03-04", "majority", 0.62, [0.33, 0.3, 0.5, 0.36]),
    ],
  },
  {
    id: 8,
    sequence: 1008,
    status: "qa_entered",
    status_label: "Eingegangen",
    created_at: "2026-03-02T09:30:00+01:00",
    owner_name: "Jonas Beispiel",
    vin: "WVWZZZ1KZAW000123",
    image_url: "/story-scan.svg",
    fields: [field("J", "M1", "unsure", 0.5, [0.66, 0.42, 0.8, 0.48])],
  },
];
const REPORT = [
  { code: "B", rule: "majority", stored: 40, corrected: 9, share: 0.225 },
  { code: "E", rule: "field3_disagrees", stored: 12, corrected: 2, share: 0.167 },
  { code: "J", rule: "unsure", stored: 30, corrected: 3, share: 0.1 },
  { code: "E", rule: "field3", stored: 210, corrected: 0, share: 0 },
];

const reviewHandlers = ({ role = "back_office" as const, queue = QUEUE, refuse = false } = {}) => [
  http.get(`${API}/quota_applications/review/`, () =>
    HttpResponse.json({ count: queue.length, page: 1, page_size: 25, results: queue }),
  ),
  http.get(`${API}/quota_applications/review/report/`, () => HttpResponse.json({ results: REPORT })),
  http.post(`${API}/quota_applications/:id/corrections/`, ({ params }) =>
    refuse
      ? HttpResponse.json(
          { value: { error_code: "READ001", message: "Die FIN hat 17 Zeichen (ohne I, O und Q)." } },
          { status: 400 },
        )
      : HttpResponse.json(detail(Number(params.id))),
  ),
  ...partnerHandlers({ role }),
];

const meta = {
  title: "Partner area/Review",
  component: StoryApp,
  beforeEach: ({ args }) => prepareStorage(args as Screen),
  args: { route: "/partner/review" },
  parameters: { msw: reviewHandlers() },
} satisfies Meta<typeof StoryApp>;

export default meta;
type Story = StoryObj<typeof meta>;

const body = (canvasElement: HTMLElement) => within(canvasElement.ownerDocument.body);
const timeout = { timeout: 20_000 };
const desktop = { viewport: { value: "desktop", isRotated: false } };

export const Queue: Story = {
  name: "Review: the queue",
  globals: desktop,
  tags: ["desktop"],
  play: async ({ canvasElement }) => {
    const page = body(canvasElement);
    await page.findByTestId("review-list", {}, timeout);
    await page.findByTestId("review-report", {}, timeout);
  },
};

export const QueuePhone: Story = {
  name: "Review: the queue, phone",
  play: async ({ canvasElement }) => {
    await body(canvasElement).findByTestId("review-list", {}, timeout);
  },
};

export const Saved: Story = {
  name: "Review: a VIN typed in and saved",
  globals: desktop,
  tags: ["desktop"],
  play: async ({ canvasElement }) => {
    const page = body(canvasElement);
    const input = await page.findByTestId("review-input-7-E", {}, timeout);
    await userEvent.type(input, "WVWZZZ1KZAW000456{Enter}");
    await expect(await page.findByTestId("review-saved", {}, timeout)).toBeVisible();
  },
};

export const Refused: Story = {
  name: "Review: a value the server refuses",
  globals: desktop,
  tags: ["desktop"],
  parameters: { msw: reviewHandlers({ refuse: true }) },
  play: async ({ canvasElement }) => {
    const page = body(canvasElement);
    const input = await page.findByTestId("review-input-7-E", {}, timeout);
    await userEvent.type(input, "WVWZZZ1KZAW00{Enter}");
    await waitFor(() => expect(page.getByText("Die FIN hat 17 Zeichen (ohne I, O und Q).")).toBeVisible(), timeout);
  },
};

export const Empty: Story = {
  name: "Review: nothing to review",
  globals: desktop,
  tags: ["desktop"],
  parameters: { msw: reviewHandlers({ queue: [] }) },
  play: async ({ canvasElement }) => {
    await body(canvasElement).findByTestId("review-empty", {}, timeout);
  },
};
