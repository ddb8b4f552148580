import { type ComponentType, lazy, useState } from "react";

const loaders: (() => Promise<unknown>)[] = [];

/**
 * A screen in its own chunk. Once its chunk has arrived (rendered before, or preloaded), it
 * renders at once instead of suspending; each mount keeps the component it started with.
 */
export function lazyScreen<K extends string, P extends object = object>(
  load: () => Promise<Record<K, ComponentType<NoInfer<P>>>>,
  name: K,
): ComponentType<P> {
  let loaded: ComponentType<P> | undefined;
  const fetchScreen = () => load().then((module) => (loaded = module[name]));
  const Lazy = lazy(() => fetchScreen().then((component) => ({ default: component }))) as unknown as ComponentType<P>;
  loaders.push(fetchScreen);
  function Screen(props: P) {
    const [Component] = useState<ComponentType<P>>(() => loaded ?? Lazy);
    return <Component {...props} />;
  }
  Screen.displayName = `Lazy(${name})`;
  return Screen;
}

/** Fetches every screen's chunk: after the first screen is up, and before tests. */
export function preloadScreens(): Promise<unknown[]> {
  return Promise.all(loaders.map((load) => load()));
}
