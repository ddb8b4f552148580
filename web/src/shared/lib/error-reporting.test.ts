import { createTransport, flush } from "@sentry/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { reportError, reportingConfig, resetErrorReporting, startErrorReporting } from "./error-reporting";
import { startSentry } from "./sentry-client";

/** The page as the server sends it: these tags in its head. */
function page(meta: string): Window {
  document.head.innerHTML = meta;
  return window;
}

const DSN = "https://public@o0.ingest.sentry.invalid/1";
const SENTRY_META = `<meta name="thg-partner" content="autohaus" /><meta name="thg-error-reporting" content="${DSN}" data-release="web@0123456789ab" data-environment="production" />`;

afterEach(() => {
  resetErrorReporting();
  document.head.innerHTML = "";
});

describe("error reporting, off", () => {
  it("loads nothing and sends nothing without a DSN in the page", async () => {
    const loader = vi.fn();
    const fetchSpy = vi.spyOn(globalThis, "fetch");
    for (const meta of [
      '<meta name="thg-partner" content="autohaus" />',
      '<meta name="thg-error-reporting" content="" />',
    ]) {
      expect(reportingConfig(page(meta).document)).toBeNull();
      expect(startErrorReporting(page(meta), loader)).toBeNull();
    }
    reportError(new Error("a screen failed"), "at Screen");
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(loader).not.toHaveBeenCalled();
    expect(fetchSpy).not.toHaveBeenCalled();
    fetchSpy.mockRestore();
  });
});

describe("error reporting, on", () => {
  it("reads the server's settings from the page", () => {
    expect(reportingConfig(page(SENTRY_META).document)).toEqual({
      dsn: DSN,
      release: "web@0123456789ab",
      environment: "production",
      partner: "autohaus",
    });
  });

  it("loads the SDK once, and hands it the errors thrown before it arrived and the boundary's", async () => {
    const captured: [unknown, string | undefined][] = [];
    const startSentryFake = vi.fn(() => ({
      capture: (error: unknown, stack?: string) => captured.push([error, stack]),
    }));
    const loader = vi.fn(() => Promise.resolve({ startSentry: startSentryFake }));
    const win = page(SENTRY_META);

    const started = startErrorReporting(win, loader);
    expect(startErrorReporting(win, loader)).toBe(started);
    const early = new Error("first render failed");
    window.dispatchEvent(new ErrorEvent("error", { error: early }));
    await started;
    reportError(new Error("a screen failed"), "at Screen");
    await started;
    await Promise.resolve();

    expect(loader).toHaveBeenCalledTimes(1);
    expect(startSentryFake).toHaveBeenCalledWith(reportingConfig(win.document));
    expect(captured.map(([error, stack]) => [(error as Error).message, stack])).toEqual([
      ["first render failed", undefined],
      ["a screen failed", "at Screen"],
    ]);
  });

  it("keeps the app running when the SDK's chunk does not load (an ad blocker)", async () => {
    const started = startErrorReporting(page(SENTRY_META), () => Promise.reject(new Error("blocked")));
    expect(await started).toBeNull();
    expect(() => reportError(new Error("x"))).not.toThrow();
  });
});

describe("the Sentry client", () => {
  it("sends an envelope with release, partner and the component stack, without personal data", async () => {
    const bodies: string[] = [];
    const transport = (options: Parameters<typeof createTransport>[0]) =>
      createTransport(options, async (request) => {
        bodies.push(typeof request.body === "string" ? request.body : new TextDecoder().decode(request.body));
        return { statusCode: 200 };
      });
    const config = reportingConfig(page(SENTRY_META).document)!;
    window.history.replaceState(null, "", "/codevalidation?code=481516&email=erika.mustermann@example.org");

    const reporter = startSentry(config, { transport });
    reporter.capture(
      new Error("billing failed for erika.mustermann@example.org, DE89 3704 0044 0532 0130 00"),
      "\n    at Billing (https://autohaus.example/assets/billing-Ab12Cd34.js:1:2)",
    );
    await flush(2000);
    window.history.replaceState(null, "", "/");

    const sent = bodies.join("\n");
    expect(sent).toContain("billing failed for [email], [iban]");
    expect(sent).toContain('"release":"web@0123456789ab"');
    expect(sent).toContain('"environment":"production"');
    expect(sent).toContain('"partner":"autohaus"');
    expect(sent).toContain('"type":"React ErrorBoundary Error"');
    expect(sent).toContain('"function":"Billing"');
    expect(sent).toMatch(/"url":"http:\/\/[^"]+\/codevalidation\?code=\[redacted\]&email=\[redacted\]"/);
    for (const personal of ["erika", "mustermann", "DE89", "481516"]) expect(sent).not.toContain(personal);
  });
});
