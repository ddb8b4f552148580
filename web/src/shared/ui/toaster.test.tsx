import { act, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { TOAST_TIMEOUT_MS, ToasterProvider, useToaster } from "./toaster";

let show: ReturnType<typeof useToaster> = () => {};
function Probe() {
  show = useToaster();
  return null;
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("the toaster", () => {
  it("gives a toast shown while the clock reads the same millisecond its own full timeout", () => {
    // given a clock that does not move (two toasts in one millisecond, as far as Date.now tells)
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
    vi.spyOn(Date, "now").mockReturnValue(1_764_000_000_000);
    render(
      <ToasterProvider>
        <Probe />
      </ToasterProvider>,
    );
    act(() => show("Erste Meldung"));
    act(() => vi.advanceTimersByTime(TOAST_TIMEOUT_MS - 1000));

    // when a second toast comes a second before the first one's time is up
    act(() => show("Zweite Meldung", { success: true }));
    act(() => vi.advanceTimersByTime(2000));

    // then it is still there after the first one's time (its own 4000 ms started with it) ...
    expect(screen.getByTestId("toast")).toHaveTextContent("Zweite Meldung");
    // ... and leaves when its own time is up
    act(() => vi.advanceTimersByTime(TOAST_TIMEOUT_MS));
    expect(screen.queryByTestId("toast")).toBeNull();
  });
});
