import { fireEvent } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";

import { inputModality, inputModalityInstall } from "./input-modality";

function field(html: string): HTMLElement {
  document.body.innerHTML = html;
  return document.body.firstElementChild as HTMLElement;
}

describe("the input modality", () => {
  beforeEach(() => {
    inputModalityInstall();
    // each case starts from a tap on the page
    fireEvent.pointerDown(document.body);
  });

  it("stays a pointer while the visitor types into a field, Enter (the phone's Los key) included", () => {
    const code = field('<input type="text" inputmode="numeric" />');

    for (const key of ["1", "2", "3", "Backspace", "ArrowLeft", "Enter"]) fireEvent.keyDown(code, { key });

    expect(inputModality()).toBe("pointer");
  });

  it("is the keyboard once Tab moves the focus, from a field too", () => {
    const email = field('<input type="email" />');

    fireEvent.keyDown(email, { key: "Tab" });

    expect(inputModality()).toBe("keyboard");
  });

  it("is the keyboard for a key on a link, a button or a checkbox", () => {
    for (const html of ['<a href="/x">Weiter</a>', "<button>Weiter</button>", '<input type="checkbox" />']) {
      fireEvent.pointerDown(document.body);
      const element = field(html);

      fireEvent.keyDown(element, { key: html.includes("checkbox") ? " " : "Enter" });

      expect(inputModality(), html).toBe("keyboard");
    }
  });

  it("ignores a modifier alone", () => {
    fireEvent.keyDown(field("<textarea></textarea>"), { key: "Shift" });
    fireEvent.keyDown(document.body, { key: "Shift" });

    expect(inputModality()).toBe("pointer");
  });
});
