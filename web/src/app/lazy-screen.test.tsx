import { beforeEach, describe, expect, it, vi } from "vitest";

// A fresh copy of the module per test: the app's own screens (test setup) are not in its list.
let lazyScreen: typeof import("./lazy-screen").lazyScreen;
let preloadScreensWhenIdle: typeof import("./lazy-screen").preloadScreensWhenIdle;
beforeEach(async () => {
  vi.resetModules();
  ({ lazyScreen, preloadScreensWhenIdle } = await import("./lazy-screen"));
});

/** A window whose idle callbacks run only when the test says so. */
function idleWindow() {
  const queue: (() => void)[] = [];
  const win = {
    setTimeout: window.setTimeout.bind(window),
    clearTimeout: window.clearTimeout.bind(window),
    requestIdleCallback: (callback: () => void) => queue.push(callback),
    cancelIdleCallback: (handle: number) => {
      queue[handle - 1] = () => {};
    },
  };
  const idle = async () => {
    queue.shift()?.();
    await new Promise((resolve) => setTimeout(resolve, 0));
  };
  return { win, queue, idle };
}

describe("preloading the screens while the browser is idle", () => {
  it("imports one chunk per idle moment, each after the one before has arrived", async () => {
    const first = vi.fn(() => Promise.resolve({ First: () => null }));
    const second = vi.fn(() => Promise.resolve({ Second: () => null }));
    lazyScreen(first, "First");
    lazyScreen(second, "Second");
    lazyScreen(vi.fn(() => Promise.resolve({ Portal: () => null })), "Portal", { preload: false });
    const { win, queue, idle } = idleWindow();

    preloadScreensWhenIdle(win);
    expect(first).not.toHaveBeenCalled();
    await idle();
    expect(first).toHaveBeenCalledTimes(1);
    expect(second).not.toHaveBeenCalled();
    await idle();
    expect(second).toHaveBeenCalledTimes(1);
    await idle();
    expect(queue).toHaveLength(0);
  });

  it("stops when cancelled and survives a chunk that does not load", async () => {
    const failing = vi.fn(() => Promise.reject(new Error("offline")));
    const after = vi.fn(() => Promise.resolve({ After: () => null }));
    lazyScreen(failing, "Failing");
    lazyScreen(after, "After");
    const { win, idle } = idleWindow();

    preloadScreensWhenIdle(win);
    await idle();
    await idle();
    expect(failing).toHaveBeenCalledTimes(1);
    expect(after).toHaveBeenCalledTimes(1);

    const third = vi.fn(() => Promise.resolve({ Third: () => null }));
    lazyScreen(third, "Third");
    const { win: other, idle: otherIdle } = idleWindow();
    preloadScreensWhenIdle(other)();
    for (let moment = 0; moment < 4; moment += 1) await otherIdle();
    expect(third).not.toHaveBeenCalled();
  });
});
