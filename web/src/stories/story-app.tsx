/**
 * What a screen's story renders: the partner's real app at a route, with the browser state
 * the screen expects (tokens, checklist, flags) and the API answered by MSW.
 */
import { MemoryRouter } from "react-router";

import { PartnerProviders, PartnerScreens } from "@/app/app";
import { type StoreKey, storeSet } from "@/shared/lib/session-store";

// Stories of features wrap a screen in another configuration with the providers from here, so that
// they, like the screens, never import app/.
export { PartnerProviders };

export type Screen = { route: string; store?: Partial<Record<StoreKey, unknown>>; local?: Record<string, string> };

export function prepareStorage({ store = {}, local = {} }: Screen): void {
  window.sessionStorage.clear();
  window.localStorage.clear();
  for (const [key, value] of Object.entries(store)) storeSet(key as StoreKey, value);
  for (const [key, value] of Object.entries(local)) window.localStorage.setItem(key, value);
}

/** The screen at its route; `store` and `local` are what prepareStorage puts in the browser. */
export function StoryApp({ route }: Screen) {
  return (
    <MemoryRouter initialEntries={[route]}>
      <PartnerScreens />
    </MemoryRouter>
  );
}
