import { fireEvent, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";

import { storeGet, storeSet } from "@/shared/lib/session-store";
import { renderAt, setDesktop } from "@/test/render";

describe("WelcomeDesktop", () => {
  beforeEach(() => setDesktop(true));

  it("shows a 300 px QR code of the current URL on / for a desktop", async () => {
    renderAt("/?campaign=herbst");

    const qr = await screen.findByTestId("welcome-qr"); // its library loads after the first screen
    expect(qr.tagName.toLowerCase()).toBe("svg");
    expect(qr).toHaveAttribute("width", "300");
    expect(qr).toHaveAttribute("height", "300");
    expect(screen.getByText("Weiter auf Desktop-Computer")).toBeInTheDocument();
  });

  it("clears the session store on entry", () => {
    storeSet("checklist", { terms: true });

    renderAt("/welcome");

    expect(storeGet("checklist")).toBeNull();
  });

  it("continues on the desktop with the welcome steps", () => {
    renderAt("/welcome?campaign=x");

    fireEvent.click(screen.getByText("Weiter auf Desktop-Computer"));

    expect(screen.getByTestId("welcome-start")).toBeInTheDocument();
  });
});
