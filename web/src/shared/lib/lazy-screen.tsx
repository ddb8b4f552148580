import { type ComponentType, lazy, useState } from "react";

const loaders: (() => Promise<unknown>)[] = [];
const allLoaders: (() => Promise<unknown>)[] = [];
const failed = new Set<() => void>();

/** The screens whose chunk did not load fetch it again on their next mount. */
export function retryFailedScreens(): void {
  for (const renew of failed) renew();
  failed.clear();
}

/**
 * A screen in its own chunk. Once its chunk has arrived (rendered before, or preloaded), it
 * renders at once instead of suspending; each mount keeps the component it started with.
 */
export function lazyScreen<K extends string, P extends object = object>(
  load: () => Promise<Record<K, ComponentType<NoInfer<P>>>>,
  name: K,
  { preload = true }: { preload?: boolean } = {},
): ComponentType<P> & { load: () => Promise<unknown> } {
  let loaded: ComponentType<P> | undefined;
  const fetchScreen = () => load().then((module) => (loaded = module[name]));
  // React.lazy keeps a failed load for good, which is what a render needs: React renders a
  // failing screen again before it gives up, and a fresh load there would fetch the chunk in
  // a loop. The error boundary's retry (retryFailedScreens) swaps in a fresh one.
  const makeLazy = () =>
    lazy(() =>
      fetchScreen().then(
        (component) => ({ default: component }),
        (error: unknown) => {
          failed.add(renew);
          throw error;
        },
      ),
    ) as unknown as ComponentType<P>;
  let Lazy = makeLazy();
  const renew = () => {
    Lazy = makeLazy();
  };
  if (preload) loaders.push(fetchScreen);
  allLoaders.push(fetchScreen);
  function Screen(props: P) {
    const [Component] = useState<ComponentType<P>>(() => loaded ?? Lazy);
    return <Component {...props} />;
  }
  Screen.displayName = `Lazy(${name})`;
  // Its chunk, fetched now (Storybook's portal stories: the screen is there when the picture is taken).
  Screen.load = fetchScreen;
  return Screen;
}

/** Fetches the flow's chunks after the first screen is up (the portal's only on /portal). */
export function preloadScreens(): Promise<unknown[]> {
  return Promise.all(loaders.map((load) => load()));
}

type IdleWindow = Pick<Window, "setTimeout" | "clearTimeout"> & {
  requestIdleCallback?: (callback: () => void, options?: { timeout: number }) => number;
  cancelIdleCallback?: (handle: number) => void;
};

/**
 * The same, one chunk at a time while the browser is idle: each import (Vite's preload
 * helper, then the chunk's evaluation) is a short task of its own, so a slow phone's main
 * thread is never blocked for long while the visitor reads or taps. Returns a cancel.
 */
export function preloadScreensWhenIdle(win: IdleWindow = window): () => void {
  const pending = [...loaders];
  let stopped = false;
  let handle: number | undefined;
  const schedule = () => {
    handle = win.requestIdleCallback ? win.requestIdleCallback(next, { timeout: 3000 }) : win.setTimeout(next, 50);
  };
  function next() {
    const load = pending.shift();
    if (stopped || !load) return;
    void load()
      .catch(() => {})
      .then(() => {
        if (!stopped) schedule();
      });
  }
  schedule();
  return () => {
    stopped = true;
    if (handle === undefined) return;
    if (win.cancelIdleCallback) win.cancelIdleCallback(handle);
    else win.clearTimeout(handle);
  };
}

export type ScreenArea = "flow" | "portal" | "partner";

/** The area of the app a path belongs to: its screens are the ones worth prefetching there. */
export function screenArea(pathname: string): ScreenArea {
  if (pathname === "/portal" || pathname.startsWith("/portal/")) return "portal";
  if (pathname === "/partner" || pathname.startsWith("/partner/")) return "partner";
  return "flow";
}

type PrefetchDocument = Pick<Document, "querySelector" | "createElement" | "head">;

/**
 * Once the browser is idle, the files of the area's other screens go into the browser's cache
 * as `<link rel="prefetch">` (low priority, never evaluated: no task on the main thread until
 * the visitor opens a screen, whose import then finds its files in the cache). The build names
 * the screen -> files map in the page (`<meta name="thg-screens">`, vite.config.ts
 * screenFiles); without it (the dev server, tests) the screens are imported one by one instead
 * (preloadScreensWhenIdle). Returns a cancel.
 */
export function prefetchScreensWhenIdle(
  area: ScreenArea,
  win: IdleWindow & { fetch: typeof fetch } = window,
  doc: PrefetchDocument = document,
): () => void {
  const map = doc.querySelector<HTMLMetaElement>('meta[name="thg-screens"]')?.content;
  if (!map) return preloadScreensWhenIdle(win);
  let stopped = false;
  let handle: number | undefined;
  const prefetch = async () => {
    handle = undefined;
    const files = ((await (await win.fetch(map)).json()) as Partial<Record<ScreenArea, string[]>>)[area] ?? [];
    for (const file of files) {
      if (stopped) return;
      if (doc.querySelector(`link[href="${CSS.escape(file)}"]`)) continue;
      const link = doc.createElement("link");
      link.rel = "prefetch";
      link.href = file;
      // As the module loader and Vite's preload helper ask for it (CORS mode): the same cache entry.
      link.crossOrigin = "";
      doc.head.append(link);
    }
  };
  handle = win.requestIdleCallback
    ? win.requestIdleCallback(() => void prefetch().catch(() => {}), { timeout: 3000 })
    : win.setTimeout(() => void prefetch().catch(() => {}), 50);
  return () => {
    stopped = true;
    if (handle === undefined) return;
    if (win.cancelIdleCallback) win.cancelIdleCallback(handle);
    else win.clearTimeout(handle);
  };
}

/** Every chunk, the portal's included (tests render any screen at once). */
export function preloadAllScreens(): Promise<unknown[]> {
  return Promise.all(allLoaders.map((load) => load()));
}
