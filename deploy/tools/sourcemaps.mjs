#!/usr/bin/env node
// The web build's source maps, uploaded privately to Sentry (`make sourcemaps-upload`, and the
// Dockerfile's web stage): they never go under web/dist, so no browser can fetch them.
//
//   node deploy/tools/sourcemaps.mjs release   prints the build's release name
//   node deploy/tools/sourcemaps.mjs upload    uploads, or says why it skips
//
// The build (web/vite.config.ts, injectDebugIds) already gave every script and its map the same
// debug id, offline and deterministically; this step only uploads, it changes no built file.
// Sentry finds a frame's map by that id; the release (a digest of the built index.html, the same
// name the server writes into the page: platform/common/error_reporting.py, web_release) groups
// the uploads by build. Needs SENTRY_AUTH_TOKEN, SENTRY_ORG and SENTRY_PROJECT (SENTRY_URL for
// a self-hosted Sentry); without them it prints that it skips and succeeds.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { SentryCli } from "@sentry/cli";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const dist = resolve(process.env.WEB_DIST ?? join(root, "web/dist"));
const maps = resolve(process.env.SOURCEMAPS_DIR ?? join(root, "var/sourcemaps"));
const REQUIRED = ["SENTRY_AUTH_TOKEN", "SENTRY_ORG", "SENTRY_PROJECT"];
const DEBUG_ID = /\/\/# debugId=([0-9a-f-]{36})\s*$/;

function fail(message) {
  console.error(`sourcemaps: ${message}`);
  process.exit(1);
}

function release() {
  const index = join(dist, "index.html");
  if (!existsSync(index)) fail(`${index} is missing: build the web app first (npm run build:web)`);
  return "web@" + createHash("sha256").update(readFileSync(index)).digest("hex").slice(0, 12);
}

/** The build's scripts with their maps in a folder of their own: var/sourcemaps also keeps
 * older builds' maps, web/dist the compressed copies; neither belongs in the upload. */
function stage() {
  const folder = mkdtempSync(join(tmpdir(), "thg-sourcemaps-"));
  const assets = join(folder, "assets");
  mkdirSync(assets);
  let count = 0;
  for (const name of readdirSync(join(dist, "assets"))) {
    if (!name.endsWith(".js")) continue;
    const script = join(dist, "assets", name);
    const map = join(maps, "assets", `${name}.map`);
    if (!DEBUG_ID.test(readFileSync(script, "utf8"))) fail(`${name} has no debug id: rebuild the web app`);
    if (!existsSync(map)) fail(`${name}.map is missing under ${maps}: rebuild the web app`);
    copyFileSync(script, join(assets, name));
    copyFileSync(map, join(assets, `${name}.map`));
    count += 1;
  }
  return { folder, assets, count };
}

function upload() {
  const missing = REQUIRED.filter((name) => !process.env[name]);
  if (missing.length > 0) {
    console.log(`sourcemaps: not uploaded (${missing.join(", ")} not set); the build keeps them in ${maps}`);
    return;
  }
  const name = release();
  const { folder, assets, count } = stage();
  try {
    // Organisation, project, token and SENTRY_URL reach sentry-cli through the environment,
    // never on a command line another process could read.
    const result = spawnSync(
      SentryCli.getPath(),
      ["sourcemaps", "upload", "--release", name, "--url-prefix", "~/assets", "--strict", assets],
      { stdio: "inherit", env: { ...process.env, SENTRY_DISABLE_UPDATE_CHECK: "1", SENTRY_LOAD_DOTENV: "0" } },
    );
    if (result.status !== 0) fail(`sentry-cli failed (${result.error ?? `exit ${result.status}`})`);
    console.log(`sourcemaps: ${count} scripts with their maps uploaded for ${name}`);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const command = process.argv[2];
if (command === "release") console.log(release());
else if (command === "upload") upload();
else fail("usage: node deploy/tools/sourcemaps.mjs release|upload");
