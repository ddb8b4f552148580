/** The portal's building blocks on their own: timeline, card, dialog parts. */
import Box from "@mui/material/Box";
import type { Meta, StoryObj } from "@storybook/react-vite";
import { I18nextProvider } from "react-i18next";
import { MemoryRouter } from "react-router";

import { registration, REJECTED } from "@/stories/handlers";

import { createPortalI18n } from "../i18n";
import { RegistrationCard } from "./registration-card";
import { StatusTimeline } from "./status-timeline";

const i18n = createPortalI18n("de");

const meta = {
  title: "Components/Portal",
  decorators: [
    (Story) => (
      <I18nextProvider i18n={i18n}>
        <MemoryRouter>
          <Box component="main" sx={{ p: 2, maxWidth: 960 }}>
            <Story />
          </Box>
        </MemoryRouter>
      </I18nextProvider>
    ),
  ],
} satisfies Meta;

export default meta;
type Story = StoryObj<typeof meta>;

export const Timeline: Story = { render: () => <StatusTimeline entries={registration(1).status_timeline} /> };
export const TimelineRejected: Story = { name: "Timeline: rejected", render: () => <StatusTimeline entries={REJECTED.status_timeline} /> };
export const Card: Story = { render: () => <RegistrationCard item={registration(100001)} onResubmit={() => {}} /> };
export const CardBusiness: Story = {
  name: "Card: business owner",
  render: () => (
    <RegistrationCard
      item={registration(100004, {
        registration: {
          ...registration(100004).registration,
          client: { ...registration(100004).registration.client, vehicle_owner_type: "business", name_of_business: "Muster GmbH", is_vat_mandatory: false, vat_number: "DE136695976" },
        },
      })}
      onResubmit={() => {}}
    />
  ),
};
