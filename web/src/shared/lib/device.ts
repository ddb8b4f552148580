/** Desktop: a wide window with a fine pointer (a mouse), as opposed to a phone or tablet. */
export function isDesktop(win: Window = window): boolean {
  if (typeof win.matchMedia !== "function") return false;
  return win.matchMedia("(min-width: 900px) and (pointer: fine)").matches;
}
