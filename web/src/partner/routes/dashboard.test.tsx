import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { currentLocation, partnerConfig, renderAt } from "@/test/render";
import { buildTheme } from "@/theme/build-theme";

import type { Stats } from "../api/admin";
import { funnelSteps } from "../components/dashboard-charts";
import { everyDay } from "../components/dashboard-charts";
import { tileChange } from "../components/kpi-tiles";
import { presetOf, presetRange } from "../components/period-presets";
import { EMPTY_STATS, FILTER_OPTIONS, member, STATS } from "../mocks/fixtures";
import { STATUS_GROUPS, statusColours } from "../lib/status-colours";
import { partnerTestSetup, stubPartnerApi } from "../mocks/test-api";

const API = "/api/partner/";
/** Intl puts a no-break space before the euro sign. */
const spaced = (text: string | null | undefined) => text?.replace(/\u00a0/g, " ");

partnerTestSetup();

function dashboard(stats: Stats, path = "/partner/dashboard?created_from=2026-03-01") {
  stubPartnerApi({
    [`GET ${API}me/`]: () => ({ body: member("viewer") }),
    [`GET ${API}quota_applications/filters/`]: () => ({ body: FILTER_OPTIONS }),
    [`GET ${API}stats/`]: () => ({ body: stats }),
    [`GET ${API}fees/missing/`]: () => ({ body: { count: 0, groups: [] } }),
  });
  renderAt(path);
}

describe("the dashboard's tiles", { timeout: 60_000 }, () => {
  it("show each figure with its signed change against the previous period", async () => {
    dashboard(STATS);
    const tiles = await screen.findByTestId("stats-tiles");
    const value = (key: string) => spaced(within(tiles).getByTestId(`tile-${key}-value`).textContent);
    const change = (key: string) => within(tiles).queryByTestId(`tile-${key}-change`);
    expect(value("new")).toBe("118");
    expect(value("payout_sum")).toBe("3.825,00 €");
    expect(within(tiles).getByTestId("tile-new")).toHaveTextContent("Neu eingegangen");
    // 97 -> 118: +21 (+22 %); 101 -> 96: −5 (−5 %); unchanged: ±0 (±0 %)
    expect(change("new")).toHaveTextContent("+21 (+22 %) ggü. Vorperiode");
    expect(change("new")).toHaveAttribute("data-sign", "up");
    expect(change("in_review")).toHaveTextContent("−5 (−5 %)");
    expect(change("in_review")).toHaveAttribute("data-sign", "down");
    expect(change("submitted")).toHaveTextContent("±0 (±0 %)");
    expect(change("payout_sum")).toHaveTextContent("+854,50 € (+29 %)");
    // the previous period had no payouts: the difference without a percentage (issue 49: the
    // tile said nothing at all)
    expect(value("paid")).toBe("45");
    expect(change("paid")).toHaveTextContent("+45 ggü. Vorperiode");
    expect(screen.getByTestId("stats-period")).toHaveTextContent("15.02.2026 – 28.02.2026");
  });

  it("show no change without a previous period", async () => {
    const stats: Stats = {
      ...STATS,
      period: null,
      previous_period: null,
      tiles: STATS.tiles.map((tile) => ({ ...tile, previous: null })),
    };
    dashboard(stats, "/partner/dashboard");
    const tiles = await screen.findByTestId("stats-tiles");
    expect(within(tiles).getByTestId("tile-new-value")).toHaveTextContent("118");
    expect(within(tiles).queryAllByText(/ggü\. Vorperiode/)).toHaveLength(0);
    expect(screen.getByTestId("stats-period")).toHaveTextContent("Wählen Sie ein Von-Datum");
  });

  it("an empty period says so", async () => {
    dashboard(EMPTY_STATS);
    expect(await screen.findByTestId("stats-empty")).toHaveTextContent("Für diesen Zeitraum gibt es noch keine Daten.");
  });

  it("tileChange: signs, euros, no percentage against an empty previous period", () => {
    expect(tileChange({ key: "new", status: null, value: 3, previous: 4 }, "de")?.text).toBe("−1 (−25 %)");
    expect(tileChange({ key: "new", status: null, value: 3, previous: 0 }, "de")?.text).toBe("+3");
    expect(tileChange({ key: "new", status: null, value: 0, previous: 0 }, "de")?.text).toBe("±0");
    expect(tileChange({ key: "new", status: null, value: 3, previous: null }, "de")).toBeNull();
    expect(spaced(tileChange({ key: "payout_sum", status: null, value: "0.00", previous: "85.00" }, "de")?.text)).toBe(
      "−85,00 € (−100 %)",
    );
  });
});

describe("registrations per day", () => {
  it("every day of the range is a point, a day without registrations 0 (the server leaves it out)", () => {
    expect(
      everyDay([
        { date: "2026-10-30", count: 2 },
        { date: "2026-11-02", count: 4 },
      ]),
    ).toEqual([
      { date: "2026-10-30", count: 2 },
      { date: "2026-10-31", count: 0 },
      { date: "2026-11-01", count: 0 },
      { date: "2026-11-02", count: 4 },
    ]);
    expect(everyDay([])).toEqual([]);
  });
});

describe("the dashboard's funnel", { timeout: 60_000 }, () => {
  it("shows each step with its share of the first and says what it counts", async () => {
    dashboard(STATS);
    const funnel = await screen.findByTestId("stats-funnel");
    expect(funnel).toHaveTextContent(
      "Jeder Schritt zählt alle Personen, die ihn im Zeitraum mindestens erreicht haben.",
    );
    const table = within(funnel).getByRole("table", { name: "Tabelle: Trichter" });
    expect(table).toHaveTextContent("Ablauf begonnen420 (100 %)");
    expect(table).toHaveTextContent("Zahlungsdaten abgeschlossen218 (52 %)");
  });

  it("funnelSteps: known steps only (a sub-partner knows the last), shares of the first", () => {
    expect(funnelSteps(STATS.funnel).map((step) => step.value)).toEqual([420, 310, 260, 218]);
    const one = funnelSteps({ flow_started: null, code_verified: null, scan_accepted: null, billing_locked: 3 });
    expect(one).toEqual([{ step: "billing_locked", value: 3, share: 1 }]);
    expect(funnelSteps({ flow_started: 0, code_verified: 0, scan_accepted: 0, billing_locked: 0 })[3].share).toBeNull();
  });
});

describe("one colour per status", () => {
  const all = Object.values(STATUS_GROUPS).flat();

  it("every status of the catalogue has its own colour, for each partner kind's theme", () => {
    for (const kind of ["standard", "utility", "wallbox"] as const) {
      const colours = statusColours(buildTheme(partnerConfig(kind).theme));
      const used = all.map((status) => colours[status]);
      expect(used.every(Boolean)).toBe(true);
      expect(new Set(used).size).toBe(all.length);
    }
  });

  it("the donut's legend and the tiles use the same colour for a status", async () => {
    dashboard(STATS);
    const legend = await screen.findByTestId("status-legend");
    const theme = buildTheme(partnerConfig().theme);
    const colours = statusColours(theme);
    const swatches = [...legend.querySelectorAll("[data-colour]")].map((item) => item.getAttribute("data-colour"));
    expect(swatches).toEqual(STATS.status_distribution.map((item) => colours[item.status]));
    expect(new Set(swatches).size).toBe(swatches.length);
  });
});

describe("the dashboard's quick periods", { timeout: 60_000 }, () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("presetRange: the last days up to today, this year, everything (local days)", () => {
    const today = new Date(2026, 2, 14, 23, 30); // 14 March 2026, late in the evening
    expect(presetRange("last7", today)).toEqual({ from: "2026-03-08", to: "2026-03-14" });
    expect(presetRange("last30", today)).toEqual({ from: "2026-02-13", to: "2026-03-14" });
    expect(presetRange("last90", today)).toEqual({ from: "2025-12-15", to: "2026-03-14" });
    expect(presetRange("year", today)).toEqual({ from: "2026-01-01", to: "2026-03-14" });
    expect(presetRange("all", today)).toBeNull();
    expect(presetOf("2026-02-13", "2026-03-14", today)).toBe("last30");
    expect(presetOf("", "", today)).toBe("all");
    expect(presetOf("2026-02-12", "2026-03-14", today)).toBeNull();
  });

  it("a quick period sets both days in the address and is shown as chosen", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(2026, 2, 14, 10, 0));
    dashboard(STATS, "/partner/dashboard?sub_partner=1");
    fireEvent.click(await screen.findByTestId("preset-last30"));
    await waitFor(() => expect(currentLocation()).toContain("created_from=2026-02-13"));
    expect(currentLocation()).toContain("created_to=2026-03-14");
    expect(currentLocation()).toContain("sub_partner=1");
    await waitFor(() => expect(screen.getByTestId("preset-last30")).toHaveAttribute("aria-pressed", "true"));
    fireEvent.click(screen.getByTestId("preset-all"));
    await waitFor(() => expect(currentLocation()).not.toContain("created_from"));
    expect(currentLocation()).not.toContain("created_to");
  });
});
