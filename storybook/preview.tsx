import { withThemeFromJSXProvider } from "@storybook/addon-themes";
import type { Preview } from "@storybook/react-vite";
import { mswLoader } from "msw-storybook-addon/csf3";
import type { ReactNode } from "react";
import { configure } from "storybook/test";

import type { PartnerConfig } from "@/api/config";
import { PartnerProviders } from "@/app/app";
import { PARTNERS } from "@/stories/partners";

function PartnerProvider({ theme, children }: { theme: PartnerConfig; children: ReactNode }) {
  return (
    <PartnerProviders key={theme.subdomain} config={theme}>
      {children}
    </PartnerProviders>
  );
}

// A play function waits for a lazy screen's chunk and MSW's answer. Testing Library's default
// of one second is less than that takes in `make test`, where two pytest workers each drive a
// Chromium on a busy machine: a story then failed for want of patience, not for a fault. A
// story that really does not show what its play function looks for still fails, after 15 s
// (the Storybook tests wait 30 s for a story to end).
configure({ asyncUtilTimeout: 15_000 });

const preview: Preview = {
  decorators: [withThemeFromJSXProvider({ themes: PARTNERS, defaultTheme: "standard", Provider: PartnerProvider })],
  loaders: [mswLoader()],
  parameters: {
    layout: "fullscreen",
    viewport: {
      options: {
        phone: { name: "Phone", styles: { width: "390px", height: "844px" }, type: "mobile" },
        desktop: { name: "Desktop", styles: { width: "1366px", height: "900px" }, type: "desktop" },
      },
    },
    a11y: { test: "error" },
  },
  initialGlobals: { viewport: { value: "phone", isRotated: false } },
};

export default preview;
