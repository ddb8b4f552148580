/// <reference types="vitest/config" />
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, URL } from "node:url";
import { brotliCompressSync, constants as zlib, gzipSync } from "node:zlib";

import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";

const src = fileURLToPath(new URL("./src", import.meta.url));
const dist = fileURLToPath(new URL("./dist", import.meta.url));
// Source maps stay on the build machine for error reporting, never under web/dist (served).
const sourcemaps = fileURLToPath(new URL("../var/sourcemaps", import.meta.url));

// The long-lived vendor chunk: a release that changes only our code keeps its file name.
// React, the router and MUI's styling core; MUI's components stay with the screens that use
// them (all of @mui/material in one chunk would put every lazy screen's widgets on the first).
const VENDOR =
  /[\\/]node_modules[\\/](react|react-dom|react-router|scheduler|styled-components|stylis|@mui[\\/](system|utils|styled-engine|styled-engine-sc|private-theming)|@babel[\\/]runtime|react-is|clsx|prop-types|hoist-non-react-statics|cookie|set-cookie-parser)[\\/]/;
const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|txt|ico|map)$/;
// MUI X (the partner area's grid and charts) brings its own @mui/utils and uses parts of the
// styling core nothing else does: those stay in the partner area's chunks, off the first screen.
const MUI_X = /[\\/]node_modules[\\/]@mui[\\/]x-/;

type ModuleInfo = { importers: readonly string[]; dynamicImporters: readonly string[] } | null;

/** True when a module is imported only by MUI X (directly or through modules that are). */
function onlyForMuiX(id: string, info: (id: string) => ModuleInfo, seen = new Map<string, boolean>()): boolean {
  if (MUI_X.test(id)) return true;
  const known = seen.get(id);
  if (known !== undefined) return known;
  seen.set(id, true); // a cycle back here decides nothing
  const module = info(id);
  const importers = module ? [...module.importers, ...module.dynamicImporters] : [];
  const result = importers.length > 0 && importers.every((importer) => onlyForMuiX(importer, info, seen));
  seen.set(id, result);
  return result;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

/**
 * After the build: moves the hidden source maps out of web/dist, then writes a gzip and a
 * brotli copy next to every text asset. WhiteNoise serves `x.br` / `x.gz` when the browser
 * accepts them (it only looks for the files; the Python brotli package is not needed here:
 * Node's zlib compresses).
 */
function deliveryFiles(): Plugin {
  let out = dist;
  let maps = sourcemaps;
  return {
    name: "thg-delivery-files",
    apply: "build",
    configResolved(config) {
      out = resolve(config.root, config.build.outDir);
      // Another output folder (a one-off build) keeps its maps beside it, not in var/.
      maps = out === dist ? sourcemaps : `${out}-sourcemaps`;
    },
    closeBundle() {
      const dist = out;
      const sourcemaps = maps;
      for (const path of walk(dist)) {
        if (path.endsWith(".map")) {
          const target = join(sourcemaps, relative(dist, path));
          mkdirSync(dirname(target), { recursive: true });
          renameSync(path, target);
        }
      }
      for (const path of walk(dist)) {
        if (!COMPRESSIBLE.test(path) || path.includes(`${join(dist, ".vite")}`)) continue;
        const body = readFileSync(path);
        if (body.length < 512) continue;
        writeFileSync(`${path}.gz`, gzipSync(body, { level: 9 }));
        writeFileSync(
          `${path}.br`,
          brotliCompressSync(body, {
            params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length },
          }),
        );
      }
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/",
  plugins: [react(), deliveryFiles()],
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
    // Built for error reporting, referenced by no file, moved to var/sourcemaps (deliveryFiles).
    sourcemap: "hidden",
    // tests/web/test_bundle.py reads it to measure what each route loads.
    manifest: true,
    // The budget that matters is gzipped JavaScript per route, checked by that test.
    chunkSizeWarningLimit: 600,
    rollupOptions: {
      output: {
        manualChunks(id, { getModuleInfo }) {
          if (VENDOR.test(id) && !onlyForMuiX(id, getModuleInfo)) return "vendor";
          return undefined;
        },
      },
    },
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
