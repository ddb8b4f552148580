import { fireEvent, screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { partnerConfig, renderAt } from "@/test/render";

describe("the screen announcer", () => {
  it("titles the document after the screen's heading and the partner", async () => {
    const config = partnerConfig();
    renderAt("/faq", config);
    await waitFor(() => expect(document.title).toBe(`Häufige Fragen – ${config.name}`));
    // The first screen keeps the browser's own focus start.
    expect(document.activeElement).toBe(document.body);
  });

  it("moves the focus to the new screen's heading on a route change", async () => {
    const config = partnerConfig();
    renderAt("/nowhere", config);
    await waitFor(() => expect(document.title).toBe(`Seite nicht gefunden – ${config.name}`));

    fireEvent.click(await screen.findByRole("link", { name: "Zur Startseite" }));

    await waitFor(() => {
      const heading = screen.getByRole("heading", { level: 1 });
      expect(heading).toHaveFocus();
      expect(heading).not.toHaveTextContent("Seite nicht gefunden");
    });
    // The start screen: the title the partner configured.
    expect(document.title).toBe(config.page_title);
    // arrived without a key pressed: the heading has the focus but shows no ring
    expect(screen.getByRole("heading", { level: 1 })).not.toHaveAttribute("data-focus-ring");
  });

  it("lets the focused heading show its ring only when the visitor came by keyboard", async () => {
    const config = partnerConfig();
    renderAt("/nowhere", config);
    const link = await screen.findByRole("link", { name: "Zur Startseite" });

    fireEvent.keyDown(link, { key: "Enter" });
    fireEvent.click(link);

    await waitFor(() => expect(screen.getByRole("heading", { level: 1 })).toHaveFocus());
    expect(screen.getByRole("heading", { level: 1 })).toHaveAttribute("data-focus-ring");
  });
});
