/** Dates and euros as a German (or English) reader expects them. */
const locale = (language: string) => (language === "en" ? "en-GB" : "de-DE");

export function euros(amount: string | number | null | undefined, language: string): string {
  if (amount === null || amount === undefined || amount === "") return "";
  return new Intl.NumberFormat(locale(language), { style: "currency", currency: "EUR" }).format(Number(amount));
}

export function dateTime(iso: string, language: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(locale(language), { dateStyle: "medium", timeStyle: "short" }).format(date);
}

export function day(iso: string, language: string): string {
  const date = new Date(iso.length === 10 ? `${iso}T00:00:00` : iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(locale(language), { day: "2-digit", month: "2-digit", year: "numeric" }).format(date);
}

export function count(value: number, language: string): string {
  return new Intl.NumberFormat(locale(language)).format(value);
}

/** A decimal from the server ("12.50") as a reader of the language writes it ("12,50"). */
export function decimal(value: string | number, language: string, digits = 2): string {
  if (value === "" || Number.isNaN(Number(value))) return String(value);
  return new Intl.NumberFormat(locale(language), {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(Number(value));
}
