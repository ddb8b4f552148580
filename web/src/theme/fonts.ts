/** Self-hosted fonts: only the partner's font is loaded, from the app's own assets. */
const LOADERS: Record<string, () => Promise<unknown>> = {
  "open-sans": () => Promise.all([import("@fontsource/open-sans/400.css"), import("@fontsource/open-sans/700.css")]),
  roboto: () => Promise.all([import("@fontsource/roboto/400.css"), import("@fontsource/roboto/700.css")]),
  lato: () => Promise.all([import("@fontsource/lato/400.css"), import("@fontsource/lato/700.css")]),
  montserrat: () => Promise.all([import("@fontsource/montserrat/400.css"), import("@fontsource/montserrat/700.css")]),
  inter: () => Promise.all([import("@fontsource/inter/400.css"), import("@fontsource/inter/700.css")]),
};

export function loadFont(fontPackage: string): Promise<unknown> {
  const load = LOADERS[fontPackage] ?? LOADERS["open-sans"];
  return load().catch(() => undefined);
}
