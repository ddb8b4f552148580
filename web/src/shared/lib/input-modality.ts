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

export function inputModalityInstall(target: Document = document): void {
  if (installed) return;
  installed = true;
  target.addEventListener(
    "keydown",
    (event) => {
      if (!MODIFIERS.has(event.key)) last = "keyboard";
    },
    true,
  );
  for (const type of ["pointerdown", "mousedown", "touchstart"]) target.addEventListener(type, () => (last = "pointer"), true);
}

export function inputModality(): InputModality {
  return last;
}
