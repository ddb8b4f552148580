/**
 * Every screen of spec/registration-flow.md at its route, in the partner kind chosen in the
 * toolbar (phone by default; the desktop screens preset the desktop viewport).
 */
import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect, userEvent, waitFor, within } from "storybook/test";

import { EMPTY_CHECKLIST } from "@/flow/state/flow-state";
import { prepareStorage, type Screen, StoryApp } from "@/stories/story-app";
import { scanError, type ScanErrorCode, systemConstraints, TOKENS, verifyingForever, wrongCode } from "@/stories/handlers";

const CHECKLIST = { ...EMPTY_CHECKLIST, currentYear: true, terms: true };
const LOGGED_IN = { tokens: TOKENS, authenticated: true, checklist: CHECKLIST, email: "erika@example.de" };

const meta = {
  title: "Registration flow",
  component: StoryApp,
  beforeEach: ({ args }) => prepareStorage(args as Screen),
} satisfies Meta<typeof StoryApp>;

export default meta;
type Story = StoryObj<typeof meta>;

const desktop = { viewport: { value: "desktop", isRotated: false } };

export const Welcome: Story = { args: { route: "/?campaign=herbst" } };
export const WelcomeDesktop: Story = { args: { route: "/welcome" }, globals: desktop, tags: ["desktop"] };
export const WelcomeB2B: Story = { args: { route: "/b2b/welcome" } };
export const FrontendDeactivated: Story = { args: { route: "/" }, globals: { theme: "deactivated" } };
export const TermsView: Story = { args: { route: "/terms" } };
export const TermsViewErrors: Story = {
  name: "TermsView: every rule's message",
  args: { route: "/terms" },
  play: async ({ canvasElement }) => {
    const canvas = within(canvasElement);
    // The current year chosen without its terms: the period and terms rules speak.
    await userEvent.click(await canvas.findByTestId("check-currentYear"));
    await userEvent.click(await canvas.findByTestId("terms-submit"));
    await expect(await canvas.findByTestId("error-terms")).toBeVisible();
  },
};
export const TermsDetails: Story = { args: { route: "/termsdetails" } };
export const PrivacyDetails: Story = { args: { route: "/privacydetails" } };
export const Faq: Story = { args: { route: "/faq" } };
export const Impressum: Story = { args: { route: "/impressum" } };
export const LoginCA: Story = { args: { route: "/login?email=erika%40example.de", store: { checklist: CHECKLIST } } };
export const LoginInvalidEmail: Story = {
  name: "LoginCA: invalid e-mail",
  args: { route: "/login", store: { checklist: CHECKLIST } },
  play: async ({ canvasElement }) => {
    const canvas = within(canvasElement);
    await userEvent.type(await canvas.findByTestId("login-email"), "erika@");
    await userEvent.click(canvas.getByTestId("login-submit"));
    await expect(await canvas.findByRole("alert")).toBeVisible();
  },
};
export const LoginB2B: Story = { args: { route: "/b2b/login" }, globals: desktop, tags: ["desktop"] };
export const Confirm: Story = { args: { route: "/confirm?email=erika%40example.de", store: { checklist: CHECKLIST, email: "erika@example.de" } } };
export const CodeValidation: Story = { args: { route: "/codevalidation?email=erika%40example.de" } };
export const CodeValidationWrongCode: Story = {
  name: "CodeValidation: Ungültiger Code",
  args: { route: "/codevalidation?email=erika%40example.de" },
  parameters: { msw: wrongCode },
  play: async ({ canvasElement }) => {
    const canvas = within(canvasElement);
    await userEvent.type(await canvas.findByTestId("code-input"), "123456");
    await expect(await canvas.findByText("Ungültiger Code")).toBeVisible();
  },
};
export const UploadTutorial: Story = { name: "ImageUploadWrapper: phone tutorial", args: { route: "/upload", store: LOGGED_IN }, parameters: { msw: systemConstraints } };
export const UploadDesktop: Story = { name: "ImageUploadWrapper: desktop", args: { route: "/upload", store: LOGGED_IN }, parameters: { msw: systemConstraints }, globals: desktop, tags: ["desktop"] };

/** The file input of the upload screen as the window shows it: the desktop view's below 'Datei
 * auswählen', or, in a window narrower than 900 px (the layout checks open these stories at
 * 320 px), the phone tutorial's camera input (its picture is sent a second after it is taken). */
async function uploadInput(canvasElement: HTMLElement): Promise<HTMLInputElement> {
  const canvas = within(canvasElement);
  await waitFor(() => expect(canvas.queryByTestId("upload-dropzone") ?? canvas.queryByTestId("tutorial-image")).not.toBeNull(), {
    timeout: 10_000,
  });
  const input = canvasElement.querySelector<HTMLInputElement>("[data-testid=upload-input], [data-testid=scan-input]");
  if (!input) throw new Error("the upload screen has no file input");
  return input;
}

function scanErrorStory(code: Exclude<ScanErrorCode, "IMGC005">): Story {
  return {
    name: `ImageUploadWrapper: ${code}`,
    args: { route: "/upload", store: LOGGED_IN },
    parameters: { msw: scanError(code) },
    globals: desktop,
    play: async ({ canvasElement }) => {
      const canvas = within(canvasElement);
      const input = await uploadInput(canvasElement);
      await userEvent.upload(input, new File([new Uint8Array([255, 216, 255])], "scan.jpg", { type: "image/jpeg" }));
      await expect(await canvas.findByTestId("scan-error", {}, { timeout: 5_000 })).toBeVisible();
    },
  };
}
export const ScanTooSmall: Story = { ...scanErrorStory("IMGC001"), tags: ["desktop"] };
export const ScanNotADocument: Story = { ...scanErrorStory("IMGC002"), tags: ["desktop"] };
export const ScanNotClassifiable: Story = { ...scanErrorStory("IMGC003"), tags: ["desktop"] };
export const ScanWrongType: Story = { ...scanErrorStory("IMGC004"), tags: ["desktop"] };
export const ScanTooBlurred: Story = { ...scanErrorStory("IMGC007"), tags: ["desktop"] };
export const ScanNotElectric: Story = { ...scanErrorStory("IMGC008"), tags: ["desktop"] };
export const ScanExemptClass: Story = { ...scanErrorStory("IMGC009"), tags: ["desktop"] };
export const ScanTooLarge: Story = {
  name: "ImageUploadWrapper: IMGC005 (over 10 MB)",
  args: { route: "/upload", store: LOGGED_IN },
  parameters: { msw: systemConstraints },
  globals: desktop,
  tags: ["desktop"],
  play: async ({ canvasElement }) => {
    const canvas = within(canvasElement);
    const input = await uploadInput(canvasElement);
    await userEvent.upload(input, new File([new Uint8Array(11 * 1024 * 1024)], "gross.jpg", { type: "image/jpeg" }));
    await expect(await canvas.findByTestId("scan-error", {}, { timeout: 5_000 })).toHaveTextContent("größer als 10 MB");
  },
};
export const Validation: Story = { args: { route: "/validation/42", store: { ...LOGGED_IN, imageSuccess: true, bevRegistrationId: 42, quoteId: 100001 } } };
export const ValidationB2B: Story = { args: { route: "/b2b/validation", store: { ...LOGGED_IN, imageSuccess: true, bevRegistrationId: 42 } }, globals: desktop, tags: ["desktop"] };
export const Billing: Story = { args: { route: "/billing", store: { ...LOGGED_IN, bevRegistrationCompleted: true, bevRegistrationId: 42 } } };
const BILLED = { ...LOGGED_IN, bevRegistrationCompleted: true, bevRegistrationId: 42 };
const DRAFT = {
  gender: "woman",
  first_name: "Erika",
  last_name: "Mustermann",
  street_name: "Hauptstraße",
  street_number: "12a",
  postal_code: "10115",
  city: "Berlin",
  vehicle_owner_type: "private",
  account_name: "Erika Mustermann",
  account_iban: "DE89370400440532013000",
};
export const BillingErrors: Story = {
  name: "Billing: every field's message",
  args: { route: "/billing", store: BILLED },
  play: async ({ canvasElement }) => {
    const canvas = within(canvasElement);
    await userEvent.click(await canvas.findByTestId("billing-review"));
    await expect(await canvas.findByTestId("error-first_name")).toBeVisible();
  },
};
export const BillingSummary: Story = {
  name: "Billing: summary mode",
  args: { route: "/billing", store: { ...BILLED, billingDraft: DRAFT } },
  play: async ({ canvasElement }) => {
    const canvas = within(canvasElement);
    await userEvent.click(await canvas.findByTestId("billing-review"));
    await expect(await canvas.findByTestId("billing-summary")).toBeVisible();
  },
};
export const VerifyEmail: Story = { name: "VerifyEmail: checking the link", args: { route: "/verify-email?key=k&campaign=herbst" }, parameters: { msw: verifyingForever } };
export const ConfirmB2B: Story = { args: { route: "/b2b/confirm?email=erika%40example.de", store: { email: "erika@example.de" } }, globals: desktop, tags: ["desktop"] };
export const CodeValidationB2B: Story = { args: { route: "/b2b/codevalidation?email=erika%40example.de" }, globals: desktop, tags: ["desktop"] };
export const FinishB2B: Story = { args: { route: "/b2b/finish", store: { ...LOGGED_IN, bevRegistrationCompleted: true, billingSuccess: true, quoteId: 100001 } }, globals: desktop, tags: ["desktop"] };
export const Finish: Story = { args: { route: "/finish", store: { ...LOGGED_IN, bevRegistrationCompleted: true, billingSuccess: true, quoteId: 100001 } } };
export const FinishCountdown: Story = {
  name: "Finish: wallbox countdown",
  args: { route: "/finish", store: { ...LOGGED_IN, bevRegistrationCompleted: true, billingSuccess: true, quoteId: 100001 } },
  globals: { theme: "wallbox" },
};
