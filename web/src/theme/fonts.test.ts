import { afterEach, describe, expect, it, vi } from "vitest";

import { loadFont } from "./fonts";

function idleWindow() {
  const callbacks: (() => void)[] = [];
  const timers: (() => void)[] = [];
  const win = {
    setTimeout: vi.fn((callback: () => void) => timers.push(callback)),
    requestIdleCallback: vi.fn((callback: () => void) => callbacks.push(callback)),
  };
  return { win, callbacks, timers };
}

describe("loading the partner's font", () => {
  afterEach(() => document.head.querySelectorAll("style[data-thg-fonts]").forEach((style) => style.remove()));

  it("loads its stylesheets at once when the page declared no faces (the dev server's page)", async () => {
    const { win } = idleWindow();
    await loadFont("roboto", document, win);
    expect(win.requestIdleCallback).not.toHaveBeenCalled();
  });

  it("waits two seconds, then for an idle moment, when the server's page declared the Latin faces", async () => {
    const style = document.createElement("style");
    style.dataset.thgFonts = "";
    document.head.appendChild(style);
    const { win, callbacks, timers } = idleWindow();
    let loaded = false;
    const loading = loadFont("roboto", document, win).then(() => (loaded = true));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(win.setTimeout).toHaveBeenCalledWith(expect.any(Function), 2000);
    expect(win.requestIdleCallback).not.toHaveBeenCalled();
    timers[0]?.();
    expect(win.requestIdleCallback).toHaveBeenCalledTimes(1);
    expect(loaded).toBe(false);

    callbacks[0]?.();
    await loading;
    expect(loaded).toBe(true);
  });
});
