/** The fee table's answers (issue 49) for the "Preise" stories and tests, in the API's shapes. */
import type { FeeMissing, FeeRow, FeeTable, FeeVersionWithRows } from "../api/fees";

const VEHICLE_CLASSES = ["M1", "N1", "N2", "N3", "M3", "L3e", "L4e", "L5e", "L7e"];
const MAX: Record<string, string> = {
  M1: "1000.00",
  N1: "1500.00",
  N2: "10000.00",
  N3: "20000.00",
  M3: "40000.00",
};

export const feeRow = (vehicleClass: string, privatePayout: string, businessNet: string, year = 2026): FeeRow => ({
  legislation_year: year,
  vehicle_class: vehicleClass,
  private_payout: privatePayout,
  business_net: businessNet,
  business_vat: "plus_vat",
  vat_percentage: "19.00",
});

export const NO_MISSING: FeeMissing = { count: 0, groups: [] };
export const MISSING: FeeMissing = {
  count: 14,
  groups: [
    { legislation_year: 2026, vehicle_class: "M1", count: 13 },
    { legislation_year: 2026, vehicle_class: "N1", count: 1 },
  ],
};

const bounds = (years: number[]) =>
  years.flatMap((year) =>
    VEHICLE_CLASSES.map((name) => ({
      legislation_year: year,
      vehicle_class: name,
      min_exclusive: "0.00",
      max: MAX[name] ?? "500.00",
    })),
  );

/** The demo dealer before its admin set prices: nothing from the platform's set-up, 14 waiting. */
export const TABLE_EMPTY: FeeTable = {
  version: 0,
  saved: null,
  rows: [],
  open_years: [2026, 2027],
  vehicle_classes: VEHICLE_CLASSES,
  bounds: bounds([2026, 2027]),
  reverse_charge: false,
  missing: MISSING,
};

export const TABLE_SAVED: FeeTable = {
  ...TABLE_EMPTY,
  version: 2,
  saved: {
    number: 2,
    valid_from: "2026-03-02T09:15:00+01:00",
    created_at: "2026-03-02T09:15:00+01:00",
    created_by: "Petra Sommer <p.sommer@autohaus.example>",
    note: "Preise 2026 laut Vertrag",
  },
  rows: [
    feeRow("M1", "85.00", "80.00"),
    { ...feeRow("N1", "120.00", "110.00"), business_vat: "net_only" },
    feeRow("M1", "90.00", "85.00", 2027),
  ],
  missing: NO_MISSING,
};

export const VERSIONS: FeeVersionWithRows[] = [
  { ...TABLE_SAVED.saved!, rows: TABLE_SAVED.rows },
  {
    number: 1,
    valid_from: "2026-02-10T14:02:00+01:00",
    created_at: "2026-02-10T14:02:00+01:00",
    created_by: "Petra Sommer <p.sommer@autohaus.example>",
    note: "",
    rows: [feeRow("M1", "80.00", "80.00")],
  },
  {
    number: 0,
    valid_from: null,
    created_at: "2026-02-10T14:02:00+01:00",
    created_by: "Einrichtung durch die Plattform",
    note: "Preise aus der Einrichtung",
    rows: [],
  },
];
