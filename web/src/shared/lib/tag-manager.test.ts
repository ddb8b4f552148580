import { describe, expect, it } from "vitest";

import { injectTagManager, shouldInjectTagManager } from "./tag-manager";

describe("tag manager", () => {
  it.each([
    ["GTM-ABCDEFG", true],
    ["GTM1234567", true],
    ["GTM-123", false],
    ["UA-1234567890", false],
    ["gtm-abcdefgh", false],
    ["", false],
    [null, false],
  ])("%s -> %s", (id, expected) => {
    expect(shouldInjectTagManager(id)).toBe(expected);
  });

  it("injects the script once, only for a valid id", () => {
    const doc = document.implementation.createHTMLDocument("t");

    injectTagManager("GTM-12", doc);
    expect(doc.querySelectorAll("script")).toHaveLength(0);
    injectTagManager("GTM-ABCDEFG", doc);
    injectTagManager("GTM-ABCDEFG", doc);

    const scripts = doc.querySelectorAll("script");
    expect(scripts).toHaveLength(1);
    expect(scripts[0].src).toBe("https://www.googletagmanager.com/gtm.js?id=GTM-ABCDEFG");
  });
});
