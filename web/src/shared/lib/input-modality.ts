/**
 * How the visitor last acted: with the keyboard, a pointer (mouse, finger, pen), or not yet.
 *
 * Chromium decides `:focus-visible` for a focus set by script from the focus before it: on a
 * page opened without a click (a mail link, an address typed, a redirect) it draws the ring
 * around the heading the screen announcer focuses. The ring is for keyboard users; this is
 * what the announcer asks before it lets the heading show one.
 */
export type InputModality = "keyboard" | "pointer" | "none";

let last: InputModality = "none";
let installed = false;

const MODIFIERS = new Set(["Shift", "Control", "Alt", "Meta", "CapsLock"]);
// Inputs whose keys move or press rather than write text.
const NOT_TEXT = new Set(["button", "checkbox", "color", "file", "image", "radio", "range", "reset", "submit"]);

/** A field the visitor writes into: keys there are typing (on a phone: the on-screen keyboard),
 * Enter included (the phone keyboard's "Los" key sends it), not moving around the page. */
function writesText(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && !NOT_TEXT.has(target.type);
}

/**
 * Listens for the visitor's input. A key counts as keyboard use when it moves around the page:
 * Tab anywhere, any key outside a text field (Enter on a link, Space on a checkbox, arrows in a
 * radio group). Typing into a field does not: an owner who tapped the code field and typed the
 * code on the phone's keyboard arrives at the next screen (tutorial step 1) as a pointer user,
 * without a ring around its title; one who tabbed into the field is still a keyboard user.
 */
export function inputModalityInstall(target: Document = document): void {
  if (installed) return;
  installed = true;
  target.addEventListener(
    "keydown",
    (event) => {
      if (MODIFIERS.has(event.key)) return;
      if (event.key === "Tab" || !writesText(event.target)) last = "keyboard";
    },
    true,
  );
  for (const type of ["pointerdown", "mousedown", "touchstart"]) target.addEventListener(type, () => (last = "pointer"), true);
}

export function inputModality(): InputModality {
  return last;
}
