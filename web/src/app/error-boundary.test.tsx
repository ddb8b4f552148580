import { fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { Suspense } from "react";

import { RouteErrorBoundary } from "@/app/error-boundary";
import { lazyScreen } from "@/shared/lib/lazy-screen";
import { installPreloadRecovery, PRELOAD_RELOAD_FLAG } from "@/app/preload-recovery";
import { currentLocation, renderAt } from "@/test/render";

describe("an unknown path", () => {
  it.each([
    ["/nowhere", "/"],
    ["/b2b/nowhere/deeper", "/b2b"],
  ])("shows the branded 404 on %s with a link to %s", (path, start) => {
    renderAt(path);
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("Seite nicht gefunden");
    expect(screen.getByTestId("partner-logo")).toBeInTheDocument();
    expect(screen.queryByTestId("placeholder-screen")).not.toBeInTheDocument();
    const home = screen.getByRole("link", { name: "Zur Startseite" });
    expect(home).toHaveAttribute("href", start);
    fireEvent.click(home);
    // The start (which may forward to its welcome screen), no longer the 404.
    expect(currentLocation().startsWith(start)).toBe(true);
    expect(screen.queryByText("Seite nicht gefunden")).not.toBeInTheDocument();
  });
});

describe("the screen error boundary", () => {
  afterEach(() => vi.restoreAllMocks());

  it("shows a friendly German message and retries the screen", () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    let fail = true;
    function Flaky() {
      if (fail) throw new Error("chunk missing");
      return <p>Der Bildschirm</p>;
    }
    render(
      <RouteErrorBoundary>
        <Flaky />
      </RouteErrorBoundary>,
    );
    expect(screen.getByRole("alert")).toHaveTextContent("Da ist etwas schiefgelaufen");
    expect(screen.queryByText("Der Bildschirm")).not.toBeInTheDocument();

    fail = false;
    fireEvent.click(screen.getByRole("button", { name: "Erneut versuchen" }));
    expect(screen.getByText("Der Bildschirm")).toBeInTheDocument();
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
  });

  it("clears the message when the visitor goes elsewhere", () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    function Broken({ broken }: { broken: boolean }) {
      if (broken) throw new Error("boom");
      return <p>Anderer Schritt</p>;
    }
    const { rerender } = render(
      <RouteErrorBoundary resetKey="/a">
        <Broken broken />
      </RouteErrorBoundary>,
    );
    expect(screen.getByRole("alert")).toBeInTheDocument();
    rerender(
      <RouteErrorBoundary resetKey="/b">
        <Broken broken={false} />
      </RouteErrorBoundary>,
    );
    expect(screen.getByText("Anderer Schritt")).toBeInTheDocument();
  });
});

describe("a chunk that fails to preload (a stale release)", () => {
  afterEach(() => sessionStorage.clear());

  function fakeWindow() {
    const target = new EventTarget();
    const reload = vi.fn();
    const win = {
      addEventListener: target.addEventListener.bind(target),
      sessionStorage: window.sessionStorage,
      location: { reload },
    } as unknown as Window;
    installPreloadRecovery(win);
    const fire = () => {
      const event = new Event("vite:preloadError", { cancelable: true });
      target.dispatchEvent(event);
      return event.defaultPrevented;
    };
    return { reload, fire };
  }

  it("reloads the page once, never in a loop", () => {
    const { reload, fire } = fakeWindow();
    expect(fire()).toBe(true);
    expect(reload).toHaveBeenCalledTimes(1);
    expect(sessionStorage.getItem(PRELOAD_RELOAD_FLAG)).not.toBeNull();

    // After the reload the flag is still there: the error goes on to the error boundary.
    const again = fakeWindow();
    expect(again.fire()).toBe(false);
    expect(again.reload).not.toHaveBeenCalled();
  });
});

describe("a screen whose chunk does not load", () => {
  afterEach(() => vi.restoreAllMocks());

  it("asks for the chunk once, shows the boundary, and asks again only on retry", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    let calls = 0;
    let online = false;
    const Screen = lazyScreen(
      () => {
        calls += 1;
        return online
          ? Promise.resolve({ Faq: () => <h1>Häufige Fragen</h1> })
          : Promise.reject(new Error("Failed to fetch dynamically imported module"));
      },
      "Faq",
      { preload: false },
    );
    render(
      <RouteErrorBoundary>
        <Suspense fallback={<p>lädt</p>}>
          <Screen />
        </Suspense>
      </RouteErrorBoundary>,
    );
    expect(await screen.findByTestId("screen-error")).toBeInTheDocument();
    // React renders a failing screen more than once before it gives up: no second request.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(calls).toBe(1);

    online = true;
    fireEvent.click(screen.getByTestId("screen-error-retry"));
    expect(await screen.findByRole("heading", { name: "Häufige Fragen" })).toBeInTheDocument();
    expect(calls).toBe(2);
  });
});
