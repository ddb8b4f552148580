/**
 * The helpers of spec/registration-flow.md section 5, shared by the form schemas: the same
 * rules the server applies (platform/accounts/validation.py, platform/billing/validation.py).
 */
export const MESSAGES = {
  required: "Eingabe erforderlich.",
  invalidEmail: "Bitte geben Sie eine gültige E-Mail-Adresse ein.",
  noEmojis: "Bitte keine Emojis verwenden",
  choose: "Auswahl treffen.",
  streetInvalid: "Straße name ungultig",
  holderInvalid: "Name von kontoinhaber ungultig",
  holderCharacters: "Bitte geben Sie Ihren Namen ohne Sonderzeichen und ohne Umlaute ein.",
  ibanInvalid: "IBAN ist nicht gültig",
  taxNumberFormat: "Bitte überprüfen Sie das Format: Ust.-ID (DE…) mit 9 Ziffern, oder ihre Steuernummer.",
} as const;

const EMAIL =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;
// The variation selector and the joiner as alternatives: inside the class they would read as
// combining with their neighbour (no-misleading-character-class); the set matched is the same.
const EMOJI = /[\u{1F000}-\u{1FAFF}\u{2600}-\u{27BF}\u{1F1E6}-\u{1F1FF}\u{2300}-\u{23FF}]|\u{FE0F}|\u{200D}/u;
const HOLDER = /^[A-Za-z0-9/?:().,+‘' ]+$/;
const VAT_ID = /^DE[ -]?\d{9}$/i;
const TAX_NUMBER = /^(\d{10,12}|\d{4}0\d{8})$/;

/** Empty means an empty string, an empty array or the number 0. */
export function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === "string") return value.trim() === "";
  if (Array.isArray(value)) return value.length === 0;
  return value === 0;
}

export function hasMinLength(value: string, min: number): boolean {
  return value.trim().length >= min;
}

export function stripSpaces(value: string): string {
  return value.replace(/\s+/g, "");
}

export function containsEmoji(value: string): boolean {
  return EMOJI.test(value);
}

export function isEmail(value: string): boolean {
  return value.length <= 254 && EMAIL.test(value.trim());
}

export function isHolderName(value: string): boolean {
  return HOLDER.test(value);
}

export function isTaxNumber(value: string): boolean {
  const compact = value.trim();
  return VAT_ID.test(compact) || TAX_NUMBER.test(compact.replace(/[ /]/g, ""));
}

// IBAN lengths per country (ISO 13616 registry), for the country-specific check.
const IBAN_LENGTHS: Record<string, number> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BR: 29, BY: 28, CH: 21, CR: 22,
  CY: 28, CZ: 24, DE: 22, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18, FO: 18, FR: 27, GB: 22, GE: 22,
  GI: 23, GL: 18, GR: 27, GT: 28, HR: 21, HU: 28, IE: 22, IL: 23, IQ: 23, IS: 26, IT: 27, JO: 30, KW: 30,
  KZ: 20, LB: 28, LC: 32, LI: 21, LT: 20, LU: 20, LV: 21, MC: 27, MD: 24, ME: 22, MK: 19, MR: 27, MT: 31,
  MU: 30, NL: 18, NO: 15, PK: 24, PL: 28, PS: 29, PT: 25, QA: 29, RO: 24, RS: 22, SA: 24, SC: 31, SE: 24,
  SI: 19, SK: 24, SM: 27, ST: 25, SV: 28, TL: 23, TN: 24, TR: 26, UA: 29, VA: 22, VG: 24, XK: 20,
}; // prettier-ignore

/** Country length, format and the mod-97 check digits. */
export function isIban(value: string): boolean {
  const iban = stripSpaces(value).toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(iban)) return false;
  if (IBAN_LENGTHS[iban.slice(0, 2)] !== iban.length) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const char of rearranged) {
    const digits = /\d/.test(char) ? char : String(char.charCodeAt(0) - 55);
    for (const digit of digits) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}
