/** Euros in German formatting with 2 to 4 decimals (spec section 9). */
export function euros(amount: string | null, language: string): string {
  if (amount === null) return "";
  return new Intl.NumberFormat(language === "en" ? "en-GB" : "de-DE", { style: "currency", currency: "EUR", minimumFractionDigits: 2, maximumFractionDigits: 4 }).format(Number(amount));
}
