import { withThemeFromJSXProvider } from "@storybook/addon-themes";
import type { Preview } from "@storybook/react-vite";
import { mswLoader } from "msw-storybook-addon/csf3";
import type { ReactNode } from "react";

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
