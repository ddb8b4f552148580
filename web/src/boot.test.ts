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
