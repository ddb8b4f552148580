import "@testing-library/jest-dom/vitest";

import { cleanup, configure } from "@testing-library/react";
import { afterEach, beforeAll } from "vitest";

import { preloadAllScreens } from "@/shared/lib/lazy-screen";

// findBy/waitFor wait up to 5 s (Testing Library's default is 1 s): the portal login solves a
// real proof-of-work challenge, which takes longer than a second on a busy 2-core machine.
configure({ asyncUtilTimeout: 5000 });

// jsdom has no layout: scrolling is a no-op instead of a "not implemented" error.
window.scrollTo = () => {};

// Every screen's chunk is loaded once up front, so screens render as they do after the preload.
// Only for the files that render (.test.tsx): a unit test of a schema or a helper (.test.ts)
// renders no screen, and loading every chunk was most of its time (15 files, 1-3 s each).
beforeAll(async (file) => {
  if (!("filepath" in file) || !file.filepath.endsWith(".tsx")) return;
  await import("@/app/router");
  await preloadAllScreens();
  // The portal's own screens are chunks its chunk imports: those too.
  await (await import("@/portal/portal-app")).loadPortalScreens();
});

afterEach(() => {
  cleanup();
  window.sessionStorage.clear();
  window.localStorage.clear();
});
