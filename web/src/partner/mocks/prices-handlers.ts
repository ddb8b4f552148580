/**
 * MSW answers of the fee table (issue 49) for the "Preise" stories, on top of the partner
 * area's own (partner-handlers.ts); a save answers as the server does: the next version, or a
 * 400 naming the platform's bound.
 */
import { http, HttpResponse } from "msw";

import type { Role } from "../api/auth";
import type { FeeTable, FeeTableSave } from "../api/fees";
import { partnerHandlers } from "./partner-handlers";
import { TABLE_EMPTY, TABLE_SAVED, VERSIONS } from "./prices-fixtures";

const API = "/api/partner";

export function pricesHandlers({ role = "partner_admin" as Role, table = TABLE_SAVED as FeeTable } = {}) {
  let current = table;
  return [
    http.get(`${API}/fees/`, () => HttpResponse.json(current)),
    http.get(`${API}/fees/versions/`, () => HttpResponse.json(table.version === 0 ? [] : VERSIONS)),
    http.get(`${API}/fees/missing/`, () => HttpResponse.json(current.missing)),
    http.put(`${API}/fees/`, async ({ request }) => {
      const body = (await request.json()) as FeeTableSave;
      const index = body.rows.findIndex((row) => Number(row.private_payout) > 1000);
      if (index >= 0)
        return HttpResponse.json(
          {
            fees: {
              error_code: "FEE002",
              message: `Zeile ${index + 1} (Auszahlung privat): Der Betrag muss über 0,00 € und höchstens 1.000,00 € je Fahrzeug der Klasse M1 im Quotenjahr 2026 liegen (Grenze der Plattform).`,
              details: { row: index + 1, field: "private_payout", max: "1000.00" },
            },
          },
          { status: 400 },
        );
      current = { ...current, version: current.version + 1, rows: body.rows, missing: { count: 0, groups: [] } };
      return HttpResponse.json(current);
    }),
    ...partnerHandlers({ role }),
  ];
}

export const emptyPricesHandlers = () => pricesHandlers({ table: TABLE_EMPTY });
