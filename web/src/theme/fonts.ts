/** Self-hosted fonts: only the partner's font is loaded, from the app's own assets. */
const LOADERS: Record<string, () => Promise<unknown>> = {
  "open-sans": () => Promise.all([import("@fontsource/open-sans/400.css"), import("@fontsource/open-sans/700.css")]),
  roboto: () => Promise.all([import("@fontsource/roboto/400.css"), import("@fontsource/roboto/700.css")]),
  lato: () => Promise.all([import("@fontsource/lato/400.css"), import("@fontsource/lato/700.css")]),
  montserrat: () => Promise.all([import("@fontsource/montserrat/400.css"), import("@fontsource/montserrat/700.css")]),
  inter: () => Promise.all([import("@fontsource/inter/400.css"), import("@fontsource/inter/700.css")]),
};

type IdleWindow = Pick<Window, "setTimeout"> & {
  requestIdleCallback?: (callback: () => void, options?: { timeout: number }) => number;
};

export function loadFont(fontPackage: string, doc: Document = document, win: IdleWindow = window): Promise<unknown> {
  const load = LOADERS[fontPackage] ?? LOADERS["open-sans"];
  // The server's page declared the font's Latin faces already (tenants.web_views, _font_head):
  // the stylesheets (the other subsets) are not needed for the first screen, nor before its
  // largest paint (their 15 KB would share a slow line with what that paint waits for): two
  // seconds after the app started, in an idle moment.
  if (doc.querySelector("style[data-thg-fonts]")) {
    return new Promise((resolve) => {
      const later = () => resolve(load().catch(() => undefined));
      win.setTimeout(() => {
        if (win.requestIdleCallback) win.requestIdleCallback(later, { timeout: 3000 });
        else later();
      }, 2000);
    });
  }
  return load().catch(() => undefined);
}
