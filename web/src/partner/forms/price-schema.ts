/**
 * The rules of the "Preise" form (issue 49), checked in the browser before the server checks
 * them again with the platform's bounds; messages are text keys of texts/prices.ts (a bound's
 * message carries its amount: "prices.amountAbove|1000.00").
 */
import { z } from "zod";

import type { FeeRow, FeeTable } from "../api/fees";

const AMOUNT = /^\d{1,6}(\.\d{1,2})?$/;

/** "1.234,5" / "85,00 €" / "85.00" → "1234.50" / "85.00" / "85.00"; null when it is no amount. */
export function amountValue(text: string): string | null {
  let value = text.replace(/[\s€]/g, "");
  if (value.includes(",")) value = value.replace(/\./g, "").replace(",", ".");
  if (!AMOUNT.test(value)) return null;
  return Number(value).toFixed(2);
}

/** "85.00" → "85,00" for a German reader. */
export const amountText = (value: string, language: string) => (language === "en" ? value : value.replace(".", ","));

export type PriceRowForm = {
  legislation_year: string;
  vehicle_class: string;
  private_payout: string;
  business_net: string;
  business_vat: "plus_vat" | "net_only";
  vat_percentage: string;
};
export type PriceForm = { rows: PriceRowForm[]; note: string };

type Bounds = FeeTable["bounds"];

const ceiling = (bounds: Bounds, year: string, vehicleClass: string) =>
  bounds.find((b) => String(b.legislation_year) === year && b.vehicle_class === vehicleClass)?.max ?? null;

export function priceFormSchema(bounds: Bounds) {
  const row = z.object({
    legislation_year: z.string().regex(/^20[2-9]\d$|^2100$/, "prices.yearInvalid"),
    vehicle_class: z.string().min(1, "form.required"),
    private_payout: z.string(),
    business_net: z.string(),
    business_vat: z.enum(["plus_vat", "net_only"]),
    vat_percentage: z.string().refine((text) => {
      const value = amountValue(text);
      return value !== null && Number(value) <= 100;
    }, "prices.percentInvalid"),
  });
  return z.object({ rows: z.array(row).max(200), note: z.string().max(300) }).superRefine((form, context) => {
    const seen = new Set<string>();
    form.rows.forEach((item, index) => {
      const key = `${item.legislation_year}/${item.vehicle_class}`;
      if (seen.has(key))
        context.addIssue({ code: "custom", path: ["rows", index, "vehicle_class"], message: "prices.duplicate" });
      seen.add(key);
      for (const field of ["private_payout", "business_net"] as const) {
        const value = amountValue(item[field]);
        const max = ceiling(bounds, item.legislation_year, item.vehicle_class);
        const message =
          value === null
            ? "prices.amountInvalid"
            : Number(value) <= 0
              ? "prices.amountZero"
              : max !== null && Number(value) > Number(max)
                ? `prices.amountAbove|${max}`
                : null;
        if (message) context.addIssue({ code: "custom", path: ["rows", index, field], message });
      }
    });
  });
}

export const rowForm = (row: FeeRow, language: string): PriceRowForm => ({
  legislation_year: String(row.legislation_year),
  vehicle_class: row.vehicle_class,
  private_payout: amountText(row.private_payout, language),
  business_net: amountText(row.business_net, language),
  business_vat: row.business_vat,
  vat_percentage: amountText(row.vat_percentage, language),
});

export const rowPayload = (row: PriceRowForm): FeeRow => ({
  legislation_year: Number(row.legislation_year),
  vehicle_class: row.vehicle_class,
  private_payout: amountValue(row.private_payout) ?? row.private_payout,
  business_net: amountValue(row.business_net) ?? row.business_net,
  business_vat: row.business_vat,
  vat_percentage: amountValue(row.vat_percentage) ?? row.vat_percentage,
});
