import { type ComponentType, lazy, useState } from "react";

const loaders: (() => Promise<unknown>)[] = [];
const allLoaders: (() => Promise<unknown>)[] = [];

/**
 * A screen in its own chunk. Once its chunk has arrived (rendered before, or preloaded), it
 * renders at once instead of suspending; each mount keeps the component it started with.
 */
export function lazyScreen<K extends string, P extends object = object>(
  load: () => Promise<Record<K, ComponentType<NoInfer<P>>>>,
  name: K,
  { preload = true }: { preload?: boolean } = {},
): ComponentType<P> {
  let loaded: ComponentType<P> | undefined;
  const fetchScreen = () => load().then((module) => (loaded = module[name]));
  // React.lazy keeps a failed load for good: after a failure the next mount (the error
  // boundary's retry) gets a fresh one that fetches the chunk again.
  const makeLazy = () =>
    lazy(() =>
      fetchScreen().then(
        (component) => ({ default: component }),
        (error: unknown) => {
          Lazy = makeLazy();
          throw error;
        },
      ),
    ) as unknown as ComponentType<P>;
  let Lazy = makeLazy();
  if (preload) loaders.push(fetchScreen);
  allLoaders.push(fetchScreen);
  function Screen(props: P) {
    const [Component] = useState<ComponentType<P>>(() => loaded ?? Lazy);
    return <Component {...props} />;
  }
  Screen.displayName = `Lazy(${name})`;
  return Screen;
}

/** Fetches the flow's chunks after the first screen is up (the portal's only on /portal). */
export function preloadScreens(): Promise<unknown[]> {
  return Promise.all(loaders.map((load) => load()));
}

/** Every chunk, the portal's included (tests render any screen at once). */
export function preloadAllScreens(): Promise<unknown[]> {
  return Promise.all(allLoaders.map((load) => load()));
}
