/** Every screen of spec/customer-portal.md at its route, with the states designers review. */
import type { Meta, StoryObj } from "@storybook/react-vite";
import { expect, spyOn, userEvent, waitFor, within } from "storybook/test";

import { browser } from "@/shared/lib/browser";
import {
  expiringSession,
  invalidResetLink,
  loadingForever,
  portalHandlers,
  registration,
  REJECTED,
  resetLink,
  signupKey,
  TOKENS,
} from "@/stories/handlers";
import { PartnerProviders, prepareStorage, type Screen, StoryApp } from "@/stories/story-app";

import { PARTNERS } from "@/stories/partners";

const LOGGED_IN = { tokens: TOKENS, authenticated: true };
const desktop = { viewport: { value: "desktop", isRotated: false } };

const meta = {
  title: "Customer portal",
  component: StoryApp,
  beforeEach: ({ args }) => prepareStorage(args as Screen),
  // The portal's screens are chunks of their own: there before the story renders, as the flow's are.
  loaders: [() => import("@/portal/portal-app").then((portal) => portal.loadPortalScreens())],
  globals: { theme: "utility" },
} satisfies Meta<typeof StoryApp>;

export default meta;
type Story = StoryObj<typeof meta>;

export const Login: Story = { args: { route: "/portal/auth/login" } };
export const LoginRequired: Story = {
  name: "Login: required fields",
  args: { route: "/portal/auth/login" },
  play: async ({ canvasElement }) => {
    const canvas = within(canvasElement);
    await userEvent.click(await canvas.findByTestId("portal-login"));
    await expect((await canvas.findAllByText("Pflichtfeld")).length).toBeGreaterThan(0);
  },
};
export const ForgotPassword: Story = {
  name: "Login: forgot password",
  args: { route: "/portal/auth/login" },
  play: async ({ canvasElement }) => {
    await userEvent.click(await within(canvasElement).findByTestId("forgot-password"));
  },
};
export const Otp: Story = { name: "RecaptchaOtpFlow", args: { route: "/portal/auth/otp/42" } };
export const ResetPassword: Story = {
  args: { route: "/portal/auth/reset-password?token=t&id=MQ" },
  parameters: { msw: resetLink },
};
export const ResetPasswordInvalid: Story = {
  name: "ResetPassword: invalid link",
  args: { route: "/portal/auth/reset-password?token=t&id=MQ" },
  parameters: { msw: invalidResetLink },
};
export const AccountCreation: Story = {
  name: "ResetPassword: account creation",
  args: { route: "/portal/auth/reset-password?token=t&id=MQ&is_user_creation=true" },
  parameters: { msw: resetLink },
};
export const EmailVerify: Story = { args: { route: "/portal/auth/verify-email" } };
export const TermsAndConditions: Story = { args: { route: "/portal/auth/terms-and-conditions" } };
export const Signup: Story = {
  name: "SignupView",
  args: { route: "/portal/auth/signup?key=k" },
  parameters: { msw: signupKey },
};
export const Registrations: Story = {
  name: "RegistrationsView",
  args: { route: "/portal/registrations", store: LOGGED_IN },
  parameters: {
    msw: portalHandlers([registration(100001), REJECTED, registration(100003, { allowed_resubmit_years: [] })], 12),
  },
  globals: desktop,
  tags: ["desktop"],
};
export const RegistrationsPhone: Story = {
  name: "RegistrationsView: phone",
  args: { route: "/portal/registrations", store: LOGGED_IN },
  parameters: { msw: portalHandlers([registration(100001)]) },
};
export const RegistrationsEmpty: Story = {
  name: "RegistrationsView: empty",
  args: { route: "/portal/registrations", store: LOGGED_IN },
  parameters: { msw: portalHandlers([]) },
};
export const RegistrationsLoading: Story = {
  name: "RegistrationsView: loading",
  args: { route: "/portal/registrations", store: LOGGED_IN },
  parameters: { msw: loadingForever },
};
export const RegistrationsPayoutDocument: Story = {
  name: "Card: paid, with the owner's credit note",
  args: { route: "/portal/registrations", store: LOGGED_IN },
  parameters: {
    msw: portalHandlers([
      registration(100001, {
        status: "qa_paid",
        payout_documents: [
          {
            kind: "credit_note",
            kind_label: "Gutschrift",
            number: "GS-STADTWERK-000001",
            issue_date: "2026-03-31",
            url: "/api/end_user_portal/payout_documents/story-token/",
          },
        ],
      }),
    ]),
  },
  globals: desktop,
  tags: ["desktop"],
  play: async ({ canvasElement }) => {
    await expect(await within(canvasElement).findByTestId("payout-document-link")).toHaveTextContent(
      "Gutschrift GS-STADTWERK-000001",
    );
  },
};
export const RejectedTimeline: Story = {
  name: "Card: rejected timeline",
  args: { route: "/portal/registrations", store: LOGGED_IN },
  parameters: { msw: portalHandlers([REJECTED]) },
};
export const AdvertisementFreeText: Story = {
  name: "RegistrationsView: free-text advertisement",
  args: { route: "/portal/registrations", store: LOGGED_IN },
  parameters: { msw: portalHandlers([registration(100001)]) },
  decorators: [
    (Story) => {
      const config = structuredClone(PARTNERS.utility);
      config.partneradvertisement = {
        ...config.partneradvertisement,
        id: 2,
        type: "freetext",
        freetext: "<p><strong>Ökostrom</strong> für Ihr E-Auto: jetzt wechseln.</p>",
        image: null,
        url: "",
        enabled: true,
      };
      return (
        <PartnerProviders config={config}>
          <Story />
        </PartnerProviders>
      );
    },
  ],
};
export const AdvertisementText: Story = {
  name: "RegistrationsView: text advertisement",
  args: { route: "/portal/registrations", store: LOGGED_IN },
  parameters: { msw: portalHandlers([registration(100001)]) },
  decorators: [
    (Story) => {
      const config = structuredClone(PARTNERS.utility);
      config.partneradvertisement = {
        ...config.partneradvertisement,
        id: 3,
        type: "text",
        headline: "Ökostrom für Ihr E-Auto",
        text: "Jetzt zum Stadtwerke-Autostromtarif wechseln und beim Laden sparen.",
        button_label: "Tarif ansehen",
        url: "https://stadtwerke.example/autostrom",
        enabled: true,
      };
      return (
        <PartnerProviders config={config}>
          <Story />
        </PartnerProviders>
      );
    },
  ],
};
export const ResubmitDialog: Story = {
  name: "Resubmit dialog open",
  args: { route: "/portal/registrations", store: LOGGED_IN },
  parameters: { msw: portalHandlers([registration(100001)]) },
  globals: desktop,
  tags: ["desktop"],
  play: async ({ canvasElement }) => {
    await userEvent.click(await within(canvasElement).findByTestId("resubmit"));
  },
};
export const SessionExpiry: Story = {
  name: "Session expiry toast",
  args: { route: "/portal/registrations", store: LOGGED_IN },
  parameters: { msw: expiringSession([registration(100001)]) },
  // The restore ends with a reload; the story keeps the restored page on screen instead.
  beforeEach: () => {
    spyOn(browser, "reload").mockImplementation(() => {});
  },
  // Both toasts show in turn; the story ends when the second has cleared itself (4 s), on the
  // restored page: the same picture every time, not one caught between the toasts' timers.
  play: async ({ canvasElement }) => {
    const body = within(canvasElement.ownerDocument.body);
    await body.findByText(/Ihre aktuelle Sitzung ist abgelaufen/);
    await body.findByText("Ihre Sitzung wurde wiederhergestellt");
    await waitFor(() => expect(body.queryByTestId("toast")).toBeNull(), { timeout: 15_000 });
  },
};
export const Impressum: Story = {
  args: { route: "/portal/impressum", store: LOGGED_IN },
  parameters: { msw: portalHandlers([]) },
};
export const DataPrivacyInfo: Story = {
  args: { route: "/portal/data-privacy-info", store: LOGGED_IN },
  parameters: { msw: portalHandlers([]) },
};
