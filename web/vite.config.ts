/// <reference types="vitest/config" />
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, URL } from "node:url";
import { brotliCompressSync, constants as zlib, gzipSync } from "node:zlib";

import { SentryCli } from "@sentry/cli";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin, type Rollup } from "vite";

const src = fileURLToPath(new URL("./src", import.meta.url));
const BOOT = fileURLToPath(new URL("./src/boot.ts", import.meta.url));
const INDEX = fileURLToPath(new URL("./index.html", import.meta.url));
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
 * Gives every script and its source map the same debug id (`sentry-cli sourcemaps inject`,
 * offline): a short snippet at the top of each script registers the id, a `//# debugId=`
 * comment ends it, and the map gets a `debugId` field. Sentry then finds the map of a stack
 * frame by that id, whichever host served the file (a partner's custom domain) and whatever
 * release. Part of every build, so the files tested are the files deployed: the id is derived
 * from the file's content (the same build gives the same bytes, a second run changes nothing)
 * and it costs about 200 bytes gzipped per script. Before the compressed copies are written.
 */
function injectDebugIds(dir: string): void {
  const result = spawnSync(SentryCli.getPath(), ["sourcemaps", "inject", "--quiet", dir], {
    encoding: "utf8",
    env: { ...process.env, SENTRY_DISABLE_UPDATE_CHECK: "1", SENTRY_LOAD_DOTENV: "0" },
  });
  if (result.status !== 0) {
    throw new Error(`sentry-cli sourcemaps inject failed: ${result.error ?? ""}${result.stderr}${result.stdout}`);
  }
}

/**
 * After the build: gives scripts and maps their debug ids (injectDebugIds), moves the hidden
 * source maps out of web/dist, then writes a gzip and a
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
      if (walk(dist).some((path) => path.endsWith(".js.map"))) injectDebugIds(dist);
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

/**
 * src/boot.ts, a chunk of its own, as an `async` module script after the app's entry: it
 * runs as soon as it arrives (a few hundred bytes) and starts the configuration call while
 * the app's scripts are still loading. After the entry in the page, which stays the first
 * script (the delivery tests read it as the entry).
 */
function bootScript(): Plugin {
  return {
    name: "thg-boot-script",
    apply: "build",
    transformIndexHtml: {
      order: "post",
      handler(html, { bundle, filename }) {
        // Only the app's page: Storybook builds its own pages with this configuration.
        if (resolve(filename) !== INDEX) return html;
        const boot = Object.values(bundle ?? {}).find(
          (chunk) => chunk.type === "chunk" && chunk.isEntry && chunk.facadeModuleId === BOOT,
        );
        if (!boot) throw new Error("src/boot.ts was not built");
        const entry = /<script type="module"[^>]*><\/script>/.exec(html);
        if (!entry) throw new Error("index.html has no entry script");
        const tag = `\n    <script type="module" async crossorigin src="/${boot.fileName}"></script>`;
        return html.replace(entry[0], entry[0] + tag);
      },
    },
  };
}

/** The areas of the app whose screens are prefetched while the visitor reads (lazy-screen.ts). */
const AREAS = ["flow", "portal", "partner"] as const;

/**
 * The screen -> files map for prefetching: for each area of the app (the flow, the portal, the
 * partner area: src/<area>/), every file its lazily loaded screens need (the screen's chunk,
 * the chunks it imports, their stylesheets) that the entry has not loaded already. Written as
 * a hashed asset (assets/screens-<hash>.json, cached for good like the others) and named in
 * index.html (`<meta name="thg-screens">`, a few dozen bytes on the first screen): once a
 * screen is up and the browser idle, the app adds `<link rel="prefetch">` for its area's files,
 * so they are in the cache without being evaluated (no long task on a slow phone).
 */
function screenFiles(): Plugin {
  let out = dist;
  let written: { fileName: string; source: string } | null = null;
  return {
    name: "thg-screen-files",
    apply: "build",
    configResolved(config) {
      out = resolve(config.root, config.build.outDir);
    },
    transformIndexHtml: {
      order: "post",
      handler(html, { bundle, filename }) {
        if (resolve(filename) !== INDEX || !bundle) return html;
        const chunks = new Map<string, Rollup.OutputChunk>();
        for (const item of Object.values(bundle)) if (item.type === "chunk") chunks.set(item.fileName, item);
        const closure = (fileName: string, seen: Set<string>): Set<string> => {
          if (seen.has(fileName)) return seen;
          seen.add(fileName);
          const chunk = chunks.get(fileName);
          for (const css of chunk?.viteMetadata?.importedCss ?? []) seen.add(css);
          for (const imported of chunk?.imports ?? []) closure(imported, seen);
          return seen;
        };
        const entry = [...chunks.values()].find((chunk) => chunk.isEntry && chunk.facadeModuleId === INDEX);
        if (!entry) throw new Error("index.html has no entry chunk");
        const loaded = closure(entry.fileName, new Set());
        const map: Record<string, string[]> = {};
        for (const area of AREAS) {
          const files = new Set<string>();
          for (const chunk of chunks.values()) {
            if (!chunk.isDynamicEntry || !chunk.facadeModuleId) continue;
            if (!chunk.facadeModuleId.startsWith(join(src, area) + "/")) continue;
            for (const file of closure(chunk.fileName, new Set())) if (!loaded.has(file)) files.add(`/${file}`);
          }
          map[area] = [...files].sort();
        }
        const source = JSON.stringify(map);
        const hash = createHash("sha256").update(source).digest("base64url").slice(0, 8);
        written = { fileName: `assets/screens-${hash}.json`, source };
        const meta = `<meta name="thg-screens" content="/${written.fileName}" />`;
        return html.replace("</head>", `  ${meta}\n  </head>`);
      },
    },
    writeBundle() {
      // Before deliveryFiles' closeBundle, which writes its compressed copies.
      if (written) writeFileSync(join(out, written.fileName), written.source);
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/",
  plugins: [react(), bootScript(), screenFiles(), deliveryFiles()],
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
      input: { index: INDEX, boot: BOOT },
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
    testTimeout: 30_000,
    // The setup loads every screen's chunk once (transformed on first use): at load 15 on two
    // cores that took over the default 10 s.
    hookTimeout: 120_000,
    // Vitest's default is one fork less than the cores: a single fork on a 2-core machine. Two
    // take the suite from 115 s to about half.
    maxWorkers: Math.max(2, availableParallelism()),
    // Worker threads rather than child processes: the same 467 tests in 155 CPU-s instead of
    // 180 (user + system, measured one after the other on this machine), 114 s instead of 274 s.
    pool: "threads",
    // Bundled like the browser build, so styled-components' default export resolves.
    server: { deps: { inline: [/@mui\//, /styled-components/] } },
  },
});
