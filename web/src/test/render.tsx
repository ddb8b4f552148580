import { render, type RenderResult } from "@testing-library/react";
import { MemoryRouter, useLocation } from "react-router";

import type { PartnerConfig } from "@/api/config";
import { PartnerProviders, PartnerScreens } from "@/app/app";

// Tests of features and shared parts wrap what they render in the partner's providers from here,
// so that they, like the code they test, never import app/.
export { PartnerProviders };

import standard from "./fixtures/config-standard.json";
import utility from "./fixtures/config-utility.json";
import wallbox from "./fixtures/config-wallbox.json";

// Config answers (tests/api/test_configs.py checks them against the server's PartnerConfigOut).
export const FIXTURES = { standard, utility, wallbox } as const;

export function partnerConfig(kind: keyof typeof FIXTURES = "standard", change: (config: PartnerConfig) => void = () => {}): PartnerConfig {
  const config = structuredClone(FIXTURES[kind]) as PartnerConfig;
  change(config);
  return config;
}

/** The partner's app at a path, as the browser would show it. */
export function renderAt(path: string, config: PartnerConfig = partnerConfig()): RenderResult {
  return render(
    <PartnerProviders config={config}>
      <MemoryRouter initialEntries={[path]}>
        <PartnerScreens />
        <LocationProbe />
      </MemoryRouter>
    </PartnerProviders>,
  );
}

export function setDesktop(desktop: boolean): void {
  window.matchMedia = ((query: string) => ({
    matches: desktop,
    media: query,
    onchange: null,
    addListener: () => {},
    removeListener: () => {},
    addEventListener: () => {},
    removeEventListener: () => {},
    dispatchEvent: () => false,
  })) as typeof window.matchMedia;
}

/** Where the router is: data-testid="location" holds pathname and query. */
function LocationProbe() {
  const { pathname, search } = useLocation();
  return <output data-testid="location" hidden>{`${pathname}${search}`}</output>;
}

export function currentLocation(): string {
  return document.querySelector('[data-testid="location"]')?.textContent ?? "";
}
