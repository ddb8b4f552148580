import { fileURLToPath } from "node:url";

import type { StorybookConfig } from "@storybook/react-vite";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** Stories sit next to the screens in web/src; the app's own Vite configuration builds them. */
const config: StorybookConfig = {
  stories: ["../web/src/**/*.stories.tsx"],
  framework: { name: "@storybook/react-vite", options: { builder: { viteConfigPath: here("../web/vite.config.ts") } } },
  addons: ["@storybook/addon-themes", "@storybook/addon-a11y", "msw-storybook-addon"],
  // The MSW worker script (written by `msw init` at build time, not committed).
  staticDirs: ["./public", "./assets"],
  core: { disableTelemetry: true },
  viteFinal: async (vite) => ({ ...vite, root: here("../web"), build: { ...vite.build, chunkSizeWarningLimit: 4000 } }),
};

export default config;
