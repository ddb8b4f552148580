/// <reference types="vitest/config" />
import { fileURLToPath, URL } from "node:url";

import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

const src = fileURLToPath(new URL("./src", import.meta.url));

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/",
  plugins: [react()],
  resolve: {
    alias: {
      "@": src,
      // MUI on styled-components instead of emotion (DESIGN.md, stack).
      "@mui/styled-engine": "@mui/styled-engine-sc",
    },
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    assetsDir: "assets",
    sourcemap: true,
    // tests/web/test_bundle.py reads it to measure what each route loads.
    manifest: true,
    // The budget that matters is gzipped JavaScript per route, checked by that test.
    chunkSizeWarningLimit: 600,
  },
  server: {
    proxy: { "/api": { target: "http://127.0.0.1:8000", changeOrigin: false } },
  },
  test: {
    environment: "jsdom",
    setupFiles: ["./src/test/setup.ts"],
    include: ["src/**/*.test.{ts,tsx}"],
    css: false,
    // Real timers (3 s waits) on a busy 2-core machine: the default 5 s leaves no margin.
    testTimeout: 15_000,
    // Bundled like the browser build, so styled-components' default export resolves.
    server: { deps: { inline: [/@mui\//, /styled-components/] } },
  },
});
