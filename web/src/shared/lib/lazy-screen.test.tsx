import { beforeEach, describe, expect, it, vi } from "vitest";

// A fresh copy of the module per test: the app's own screens (test setup) are not in its list.
let lazyScreen: typeof import("./lazy-screen").lazyScreen;
let preloadScreensWhenIdle: typeof import("./lazy-screen").preloadScreensWhenIdle;
let prefetchScreensWhenIdle: typeof import("./lazy-screen").prefetchScreensWhenIdle;
let screenArea: typeof import("./lazy-screen").screenArea;
beforeEach(async () => {
  vi.resetModules();
  ({ lazyScreen, preloadScreensWhenIdle, prefetchScreensWhenIdle, screenArea } = await import("./lazy-screen"));
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

describe("prefetching the other screens of an area without running them", () => {
  const MAP = { flow: ["/assets/terms-a.js", "/assets/billing-b.js", "/assets/vendor-c.js"], portal: ["/assets/shell-d.js"], partner: [] };

  function page() {
    const doc = document.implementation.createHTMLDocument("page");
    const meta = doc.createElement("meta");
    meta.name = "thg-screens";
    meta.content = "/assets/screens-abcdefgh.json";
    doc.head.append(meta);
    // Already on the page (the server's modulepreload of the entry's chunks): not asked again.
    const preloaded = doc.createElement("link");
    preloaded.rel = "modulepreload";
    preloaded.href = "/assets/vendor-c.js";
    doc.head.append(preloaded);
    return doc;
  }

  it("adds a prefetch link per file of the area in an idle moment, and imports nothing", async () => {
    const screen = vi.fn(() => Promise.resolve({ Terms: () => null }));
    lazyScreen(screen, "Terms");
    const doc = page();
    const fetch = vi.fn(() => Promise.resolve(new Response(JSON.stringify(MAP))));
    const { win, idle } = idleWindow();

    prefetchScreensWhenIdle("flow", { ...win, fetch }, doc);
    expect(fetch).not.toHaveBeenCalled();
    await idle();
    await new Promise((resolve) => setTimeout(resolve, 0));

    expect(fetch).toHaveBeenCalledWith("/assets/screens-abcdefgh.json");
    const links = [...doc.head.querySelectorAll<HTMLLinkElement>('link[rel="prefetch"]')];
    expect(links.map((link) => link.getAttribute("href"))).toEqual(["/assets/terms-a.js", "/assets/billing-b.js"]);
    expect(links.every((link) => link.getAttribute("crossorigin") === "")).toBe(true);
    expect(screen).not.toHaveBeenCalled();
  });

  it("does nothing once cancelled", async () => {
    const doc = page();
    const fetch = vi.fn(() => Promise.resolve(new Response(JSON.stringify(MAP))));
    const { win, idle } = idleWindow();
    prefetchScreensWhenIdle("portal", { ...win, fetch }, doc)();
    await idle();
    expect(fetch).not.toHaveBeenCalled();
    expect(doc.head.querySelector('link[rel="prefetch"]')).toBeNull();
  });

  it("imports the screens instead where the build named no map (the dev server)", async () => {
    const screen = vi.fn(() => Promise.resolve({ Terms: () => null }));
    lazyScreen(screen, "Terms");
    const fetch = vi.fn();
    const { win, idle } = idleWindow();
    prefetchScreensWhenIdle("flow", { ...win, fetch }, document.implementation.createHTMLDocument("dev"));
    await idle();
    expect(screen).toHaveBeenCalledTimes(1);
    expect(fetch).not.toHaveBeenCalled();
  });

  it("knows the area of a path", () => {
    expect(screenArea("/")).toBe("flow");
    expect(screenArea("/b2b/upload")).toBe("flow");
    expect(screenArea("/portal/auth/login")).toBe("portal");
    expect(screenArea("/partner")).toBe("partner");
    expect(screenArea("/partners-info")).toBe("flow");
  });
});
