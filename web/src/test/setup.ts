import "@testing-library/jest-dom/vitest";

import { cleanup } from "@testing-library/react";
import { afterEach, beforeAll } from "vitest";

import { preloadAllScreens } from "@/app/lazy-screen";

// jsdom has no layout: scrolling is a no-op instead of a "not implemented" error.
window.scrollTo = () => {};

// Every screen's chunk is loaded once up front, so screens render as they do after the preload.
beforeAll(async () => {
  await import("@/app/router");
  await preloadAllScreens();
});

afterEach(() => {
  cleanup();
  window.sessionStorage.clear();
  window.localStorage.clear();
});
