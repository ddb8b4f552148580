import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { fetchPartnerConfig } from "@/api/config";
import { FIXTURES } from "@/test/render";

/** Runs boot.ts as the page does (a fresh copy: it acts when it is evaluated). */
async function runBoot(): Promise<void> {
  vi.resetModules();
  await import("@/boot");
}

function namePartner(subdomain: string): void {
  const meta = document.createElement("meta");
  meta.name = "thg-partner";
  meta.content = subdomain;
  document.head.appendChild(meta);
}

describe("the early configuration call (boot.ts)", () => {
  let fetchMock: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    delete window.thgConfigCall;
    fetchMock = vi.fn(() => Promise.resolve(new Response(JSON.stringify(FIXTURES.standard), { status: 200 })));
    vi.stubGlobal("fetch", fetchMock);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    document.head.querySelectorAll('meta[name="thg-partner"]').forEach((meta) => meta.remove());
    delete window.thgConfigCall;
  });

  it("asks for the partner the server named, as the app would, and the app takes that answer", async () => {
    namePartner("Autohaus");
    await runBoot();
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [earlyUrl, earlyInit] = fetchMock.mock.calls[0] as [string, RequestInit];

    const config = await fetchPartnerConfig("autohaus");
    expect(config.page_title).toBe(FIXTURES.standard.page_title);
    expect(fetchMock).toHaveBeenCalledTimes(1); // no second call

    // The same request the app makes when there is no early call.
    await fetchPartnerConfig("autohaus");
    expect(fetchMock).toHaveBeenCalledTimes(2);
    const [url, init] = fetchMock.mock.calls[1] as [string, RequestInit];
    expect(earlyUrl).toBe(url);
    expect(earlyUrl).toBe("/api/configs/autohaus/");
    expect(earlyInit.headers).toEqual(init.headers);
  });

  it("asks nothing on a page without a partner, or when the app has asked already", async () => {
    await runBoot();
    expect(fetchMock).not.toHaveBeenCalled();

    namePartner("autohaus");
    await fetchPartnerConfig("autohaus");
    await runBoot();
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it("is not taken for another partner's configuration", async () => {
    namePartner("autohaus");
    await runBoot();
    await fetchPartnerConfig("wallbox");
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect((fetchMock.mock.calls[1] as [string])[0]).toBe("/api/configs/wallbox/");
  });
});

describe("the portal login's scripts after the first paint (boot.ts)", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    document.head.innerHTML = "";
  });

  /** Fake timers; the frames the page paints are run by the test (paint()). */
  let frames: FrameRequestCallback[] = [];
  function paint(): void {
    const due = frames;
    frames = [];
    due.forEach((callback) => callback(0));
  }
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    frames = [];
    vi.spyOn(window, "requestAnimationFrame").mockImplementation((callback) => frames.push(callback));
  });

  function nameEntry(): HTMLMetaElement {
    const meta = document.createElement("meta");
    meta.name = "thg-entry";
    meta.content = "/assets/index-AbC.js";
    meta.dataset.preload = "/assets/vendor-X.js /assets/portal-app-Y.js";
    document.head.append(meta);
    const boot = document.createElement("script");
    boot.type = "module";
    boot.src = "/assets/boot-Z.js";
    document.head.append(boot);
    return meta;
  }

  it("loads the entry in the meta's place and preloads its chunks, after the next frame", async () => {
    nameEntry();
    await runBoot();
    expect(document.querySelector('script[src="/assets/index-AbC.js"]')).toBeNull();

    paint(); // the next frame, then the task after it
    expect(document.querySelector('script[src="/assets/index-AbC.js"]')).toBeNull();
    vi.advanceTimersByTime(0);
    const entry = document.querySelector<HTMLScriptElement>('script[type="module"][src]');
    expect(entry?.getAttribute("src")).toBe("/assets/index-AbC.js"); // the page's first module script
    expect(entry?.getAttribute("crossorigin")).toBe(""); // as the built page has it
    expect(document.querySelector('meta[name="thg-entry"]')).toBeNull();
    const preloads = [...document.querySelectorAll<HTMLLinkElement>('link[rel="modulepreload"]')];
    expect(preloads.map((link) => link.getAttribute("href"))).toEqual([
      "/assets/vendor-X.js",
      "/assets/portal-app-Y.js",
    ]);

    vi.advanceTimersByTime(1000); // once only
    expect(document.querySelectorAll('script[src="/assets/index-AbC.js"]')).toHaveLength(1);
  });

  it("loads it in a tab that paints no frame (opened in the background) a second later", async () => {
    nameEntry();
    await runBoot();
    vi.advanceTimersByTime(999);
    expect(document.querySelector('script[src="/assets/index-AbC.js"]')).toBeNull();
    vi.advanceTimersByTime(1);
    expect(document.querySelector('script[src="/assets/index-AbC.js"]')).not.toBeNull();
  });

  it("does nothing on any other page", async () => {
    await runBoot();
    vi.advanceTimersByTime(2000);
    expect(document.querySelector("script, link")).toBeNull();
  });
});
