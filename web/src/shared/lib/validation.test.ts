import { describe, expect, it } from "vitest";

import { containsEmoji, hasMinLength, isEmpty, isHolderName, isIban, isTaxNumber, stripSpaces } from "./validation";

describe("the section-5 helpers", () => {
  it("treats an empty string, an empty array and 0 as empty", () => {
    expect([isEmpty(""), isEmpty("  "), isEmpty([]), isEmpty(0), isEmpty(null)]).toEqual([true, true, true, true, true]);
    expect([isEmpty("a"), isEmpty([1]), isEmpty(1), isEmpty(false)]).toEqual([false, false, false, false]);
  });

  it("checks minimum lengths and strips spaces", () => {
    expect(hasMinLength("ab", 3)).toBe(false);
    expect(hasMinLength("abc", 3)).toBe(true);
    expect(stripSpaces("DE89 3704 0044 0532 0130 00")).toBe("DE89370400440532013000");
  });

  it.each(["DE89 3704 0044 0532 0130 00", "de89370400440532013000", "AT611904300234573201", "NL91ABNA0417164300", "GB29NWBK60161331926819"])(
    "accepts the IBAN %s",
    (iban) => expect(isIban(iban)).toBe(true),
  );

  it.each(["DE89370400440532013001", "DE8937040044053201300", "XX89370400440532013000", "DE89-3704", ""])("refuses the IBAN %s", (iban) =>
    expect(isIban(iban)).toBe(false),
  );

  it("allows only the listed characters in an account holder", () => {
    expect(isHolderName("Anna Muster (GmbH) / Co.")).toBe(true);
    expect(isHolderName("Jörg Müller")).toBe(false);
    expect(isHolderName("Anna_Muster")).toBe(false);
  });

  it.each(["DE123456789", "de 123456789", "De-123456789", "1234567890", "123456789012", "1234056789012", "12/345/67890"])(
    "accepts the tax number format %s",
    (value) => expect(isTaxNumber(value)).toBe(true),
  );

  it.each(["DE12345678", "DE1234567890", "123456789", "1234156789012", "AT123456789"])("refuses the tax number format %s", (value) =>
    expect(isTaxNumber(value)).toBe(false),
  );

  it("finds emojis", () => {
    expect(containsEmoji("Straße 🚗")).toBe(true);
    expect(containsEmoji("Straße")).toBe(false);
  });
});
