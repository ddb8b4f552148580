/**
 * Dates as German users type and read them (TT.MM.JJJJ), carried as the calendar day the API
 * takes (YYYY-MM-DD). Chromium's own date field follows the browser's UI language, not the page's:
 * an English Chromium showed German users "mm/dd/yyyy".
 */

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const GERMAN_DAY = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/;
const DIGITS_ONLY = /^(\d{2})(\d{2})(\d{4})$/;

export const isIsoDay = (value: string): boolean => ISO_DAY.test(value) && isoDay(value) === value;

function day(year: number, month: number, date: number): string | null {
  const candidate = new Date(Date.UTC(year, month - 1, date));
  if (candidate.getUTCFullYear() !== year || candidate.getUTCMonth() !== month - 1 || candidate.getUTCDate() !== date)
    return null;
  return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(date).padStart(2, "0")}`;
}

/** "1.3.2026", "01.03.2026", "01032026" (or a pasted "2026-03-01") → "2026-03-01"; anything else → null. */
export function isoDay(text: string): string | null {
  const value = text.trim();
  const german = GERMAN_DAY.exec(value) ?? DIGITS_ONLY.exec(value);
  if (german) return day(Number(german[3]), Number(german[2]), Number(german[1]));
  const iso = ISO_DAY.exec(value);
  if (iso) return day(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  return null;
}

/** "2026-03-01" → "01.03.2026"; what is not a day stays as it is. */
export function germanDay(value: string): string {
  const iso = ISO_DAY.exec(value);
  return iso ? `${iso[3]}.${iso[2]}.${iso[1]}` : value;
}
