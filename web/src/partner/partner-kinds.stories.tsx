/**
 * Every partner-area screen and state of partner.stories.tsx (the standard kind) in the utility
 * and the wallbox kind: the same route, answers, viewport and play function, only the partner
 * kind (addon-themes' `theme` global) differs. Kept as one story per state and kind, so a
 * designer finds "Wallbox: applications empty" in the sidebar and the story test covers it.
 */
import type { Meta, StoryObj } from "@storybook/react-vite";

import { prepareStorage, type Screen, StoryApp } from "@/stories/story-app";

import { partnerHandlers } from "./mocks/partner-handlers";
import * as standard from "./partner.stories";

const meta = {
  title: "Partner area: kinds",
  component: StoryApp,
  beforeEach: ({ args }) => prepareStorage(args as Screen),
  parameters: { msw: partnerHandlers() },
} satisfies Meta<typeof StoryApp>;

export default meta;
type Story = StoryObj<typeof meta>;

/** A standard story in another partner kind (name and tags stay literal: Storybook indexes them). */
const inKind = (story: Story, kind: "utility" | "wallbox"): Story => ({
  ...story,
  globals: { ...story.globals, theme: kind },
});

export const UtilityLogin: Story = { ...inKind(standard.Login, "utility"), name: "Utility: login" };
export const UtilityLoginWrongPassword: Story = {
  ...inKind(standard.LoginWrongPassword, "utility"),
  name: "Utility: login, wrong password",
};
export const UtilityLoginCode: Story = {
  ...inKind(standard.LoginCode, "utility"),
  name: "Utility: login, code step, wrong code",
};
export const UtilityLoginEnrolment: Story = {
  ...inKind(standard.LoginEnrolment, "utility"),
  name: "Utility: login, enrolment with QR code",
};
export const UtilityLoginBackupCodes: Story = {
  ...inKind(standard.LoginBackupCodes, "utility"),
  name: "Utility: login, backup codes",
};
export const UtilityInvite: Story = { ...inKind(standard.Invite, "utility"), name: "Utility: invite" };
export const UtilityInviteExpired: Story = {
  ...inKind(standard.InviteExpired, "utility"),
  name: "Utility: invite, expired",
};
export const UtilityDashboard: Story = {
  ...inKind(standard.Dashboard, "utility"),
  name: "Utility: dashboard",
  tags: ["desktop"],
};
export const UtilityDashboardPhone: Story = {
  ...inKind(standard.DashboardPhone, "utility"),
  name: "Utility: dashboard, phone",
};
export const UtilityDashboardEmpty: Story = {
  ...inKind(standard.DashboardEmpty, "utility"),
  name: "Utility: dashboard, empty",
  tags: ["desktop"],
};
export const UtilityDashboardLoading: Story = {
  ...inKind(standard.DashboardLoading, "utility"),
  name: "Utility: dashboard, loading",
  tags: ["desktop"],
};
export const UtilityDashboardError: Story = {
  ...inKind(standard.DashboardError, "utility"),
  name: "Utility: dashboard, error",
  tags: ["desktop"],
};
export const UtilityApplications: Story = {
  ...inKind(standard.Applications, "utility"),
  name: "Utility: applications",
  tags: ["desktop"],
};
export const UtilityApplicationsPhone: Story = {
  ...inKind(standard.ApplicationsPhone, "utility"),
  name: "Utility: applications, phone",
};
export const UtilityApplicationsFiltered: Story = {
  ...inKind(standard.ApplicationsFiltered, "utility"),
  name: "Utility: applications, filtered",
  tags: ["desktop"],
};
export const UtilityApplicationsEstimated: Story = {
  ...inKind(standard.ApplicationsEstimated, "utility"),
  name: "Utility: applications, large match, estimated count",
  tags: ["desktop"],
};
export const UtilityApplicationsRestored: Story = {
  ...inKind(standard.ApplicationsRestored, "utility"),
  name: "Utility: applications, filter restored from filter-values",
  tags: ["desktop"],
};
export const UtilityApplicationsEmpty: Story = {
  ...inKind(standard.ApplicationsEmpty, "utility"),
  name: "Utility: applications, empty",
  tags: ["desktop"],
};
export const UtilityApplicationsLoading: Story = {
  ...inKind(standard.ApplicationsLoading, "utility"),
  name: "Utility: applications, loading",
  tags: ["desktop"],
};
export const UtilityApplicationsForbidden: Story = {
  ...inKind(standard.ApplicationsForbidden, "utility"),
  name: "Utility: applications, error (403)",
  tags: ["desktop"],
};
export const UtilityApplicationsViewer: Story = {
  ...inKind(standard.ApplicationsViewer, "utility"),
  name: "Utility: applications, viewer",
  tags: ["desktop"],
};
export const UtilityApplicationsBulkResult: Story = {
  ...inKind(standard.ApplicationsBulkResult, "utility"),
  name: "Utility: applications, bulk result with refusals",
  tags: ["desktop"],
};
export const UtilityApplicationDetail: Story = {
  ...inKind(standard.ApplicationDetail, "utility"),
  name: "Utility: applications, detail drawer",
  tags: ["desktop"],
};
export const UtilityApplicationDetailPhone: Story = {
  ...inKind(standard.ApplicationDetailPhone, "utility"),
  name: "Utility: applications, detail drawer, phone",
};
export const UtilitySubPartners: Story = {
  ...inKind(standard.SubPartners, "utility"),
  name: "Utility: sub-partners",
  tags: ["desktop"],
};
export const UtilitySubPartnersEmpty: Story = {
  ...inKind(standard.SubPartnersEmpty, "utility"),
  name: "Utility: sub-partners, empty",
  tags: ["desktop"],
};
export const UtilitySubPartnerForm: Story = {
  ...inKind(standard.SubPartnerForm, "utility"),
  name: "Utility: sub-partners, form with the server's message",
};
export const UtilitySingleDeals: Story = {
  ...inKind(standard.SingleDeals, "utility"),
  name: "Utility: single deals",
  tags: ["desktop"],
};
export const UtilitySingleDealDraft: Story = {
  ...inKind(standard.SingleDealDraft, "utility"),
  name: "Utility: single deals, unsaved form restored (single-deal-details)",
};
export const UtilityStaff: Story = { ...inKind(standard.Staff, "utility"), name: "Utility: staff", tags: ["desktop"] };
export const UtilityStaffViewer: Story = {
  ...inKind(standard.StaffViewer, "utility"),
  name: "Utility: staff, not allowed",
};
export const UtilityAudit: Story = { ...inKind(standard.Audit, "utility"), name: "Utility: audit", tags: ["desktop"] };
export const UtilityAuditEmpty: Story = { ...inKind(standard.AuditEmpty, "utility"), name: "Utility: audit, empty" };
export const UtilityMenu: Story = { ...inKind(standard.Menu, "utility"), name: "Utility: menu, phone" };

export const WallboxLogin: Story = { ...inKind(standard.Login, "wallbox"), name: "Wallbox: login" };
export const WallboxLoginWrongPassword: Story = {
  ...inKind(standard.LoginWrongPassword, "wallbox"),
  name: "Wallbox: login, wrong password",
};
export const WallboxLoginCode: Story = {
  ...inKind(standard.LoginCode, "wallbox"),
  name: "Wallbox: login, code step, wrong code",
};
export const WallboxLoginEnrolment: Story = {
  ...inKind(standard.LoginEnrolment, "wallbox"),
  name: "Wallbox: login, enrolment with QR code",
};
export const WallboxLoginBackupCodes: Story = {
  ...inKind(standard.LoginBackupCodes, "wallbox"),
  name: "Wallbox: login, backup codes",
};
export const WallboxInvite: Story = { ...inKind(standard.Invite, "wallbox"), name: "Wallbox: invite" };
export const WallboxInviteExpired: Story = {
  ...inKind(standard.InviteExpired, "wallbox"),
  name: "Wallbox: invite, expired",
};
export const WallboxDashboard: Story = {
  ...inKind(standard.Dashboard, "wallbox"),
  name: "Wallbox: dashboard",
  tags: ["desktop"],
};
export const WallboxDashboardPhone: Story = {
  ...inKind(standard.DashboardPhone, "wallbox"),
  name: "Wallbox: dashboard, phone",
};
export const WallboxDashboardEmpty: Story = {
  ...inKind(standard.DashboardEmpty, "wallbox"),
  name: "Wallbox: dashboard, empty",
  tags: ["desktop"],
};
export const WallboxDashboardLoading: Story = {
  ...inKind(standard.DashboardLoading, "wallbox"),
  name: "Wallbox: dashboard, loading",
  tags: ["desktop"],
};
export const WallboxDashboardError: Story = {
  ...inKind(standard.DashboardError, "wallbox"),
  name: "Wallbox: dashboard, error",
  tags: ["desktop"],
};
export const WallboxApplications: Story = {
  ...inKind(standard.Applications, "wallbox"),
  name: "Wallbox: applications",
  tags: ["desktop"],
};
export const WallboxApplicationsPhone: Story = {
  ...inKind(standard.ApplicationsPhone, "wallbox"),
  name: "Wallbox: applications, phone",
};
export const WallboxApplicationsFiltered: Story = {
  ...inKind(standard.ApplicationsFiltered, "wallbox"),
  name: "Wallbox: applications, filtered",
  tags: ["desktop"],
};
export const WallboxApplicationsEstimated: Story = {
  ...inKind(standard.ApplicationsEstimated, "wallbox"),
  name: "Wallbox: applications, large match, estimated count",
  tags: ["desktop"],
};
export const WallboxApplicationsRestored: Story = {
  ...inKind(standard.ApplicationsRestored, "wallbox"),
  name: "Wallbox: applications, filter restored from filter-values",
  tags: ["desktop"],
};
export const WallboxApplicationsEmpty: Story = {
  ...inKind(standard.ApplicationsEmpty, "wallbox"),
  name: "Wallbox: applications, empty",
  tags: ["desktop"],
};
export const WallboxApplicationsLoading: Story = {
  ...inKind(standard.ApplicationsLoading, "wallbox"),
  name: "Wallbox: applications, loading",
  tags: ["desktop"],
};
export const WallboxApplicationsForbidden: Story = {
  ...inKind(standard.ApplicationsForbidden, "wallbox"),
  name: "Wallbox: applications, error (403)",
  tags: ["desktop"],
};
export const WallboxApplicationsViewer: Story = {
  ...inKind(standard.ApplicationsViewer, "wallbox"),
  name: "Wallbox: applications, viewer",
  tags: ["desktop"],
};
export const WallboxApplicationsBulkResult: Story = {
  ...inKind(standard.ApplicationsBulkResult, "wallbox"),
  name: "Wallbox: applications, bulk result with refusals",
  tags: ["desktop"],
};
export const WallboxApplicationDetail: Story = {
  ...inKind(standard.ApplicationDetail, "wallbox"),
  name: "Wallbox: applications, detail drawer",
  tags: ["desktop"],
};
export const WallboxApplicationDetailPhone: Story = {
  ...inKind(standard.ApplicationDetailPhone, "wallbox"),
  name: "Wallbox: applications, detail drawer, phone",
};
export const WallboxSubPartners: Story = {
  ...inKind(standard.SubPartners, "wallbox"),
  name: "Wallbox: sub-partners",
  tags: ["desktop"],
};
export const WallboxSubPartnersEmpty: Story = {
  ...inKind(standard.SubPartnersEmpty, "wallbox"),
  name: "Wallbox: sub-partners, empty",
  tags: ["desktop"],
};
export const WallboxSubPartnerForm: Story = {
  ...inKind(standard.SubPartnerForm, "wallbox"),
  name: "Wallbox: sub-partners, form with the server's message",
};
export const WallboxSingleDeals: Story = {
  ...inKind(standard.SingleDeals, "wallbox"),
  name: "Wallbox: single deals",
  tags: ["desktop"],
};
export const WallboxSingleDealDraft: Story = {
  ...inKind(standard.SingleDealDraft, "wallbox"),
  name: "Wallbox: single deals, unsaved form restored (single-deal-details)",
};
export const WallboxStaff: Story = { ...inKind(standard.Staff, "wallbox"), name: "Wallbox: staff", tags: ["desktop"] };
export const WallboxStaffViewer: Story = {
  ...inKind(standard.StaffViewer, "wallbox"),
  name: "Wallbox: staff, not allowed",
};
export const WallboxAudit: Story = { ...inKind(standard.Audit, "wallbox"), name: "Wallbox: audit", tags: ["desktop"] };
export const WallboxAuditEmpty: Story = { ...inKind(standard.AuditEmpty, "wallbox"), name: "Wallbox: audit, empty" };
export const WallboxMenu: Story = { ...inKind(standard.Menu, "wallbox"), name: "Wallbox: menu, phone" };
