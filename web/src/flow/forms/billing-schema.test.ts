import { describe, expect, it } from "vitest";

import { type BillingOptions, type BillingValues, billingSchema, clientPayload, EMPTY_BILLING } from "./billing-schema";

const OPTIONS: BillingOptions = { showGender: true, genderOption: 1, privateBusiness: true, paymentOption: "BANK", partnerVariable: false };
const VALID: BillingValues = {
  ...EMPTY_BILLING,
  gender: "woman",
  first_name: "Anna",
  last_name: "Muster",
  street_name: "Hauptstraße",
  street_number: "1a",
  postal_code: "10115",
  city: "Berlin",
  account_name: "Anna Muster",
  account_iban: "DE89370400440532013000",
};

function errors(values: Partial<BillingValues>, options: Partial<BillingOptions> = {}): Record<string, string> {
  const result = billingSchema({ ...OPTIONS, ...options }).safeParse({ ...VALID, ...values });
  if (result.success) return {};
  return Object.fromEntries(result.error.issues.map((issue) => [issue.path.join("."), issue.message]));
}

describe("the billing form", () => {
  it("passes a complete private owner with a bank account", () => {
    expect(errors({})).toEqual({});
  });

  it.each(["first_name", "last_name", "street_name", "street_number", "postal_code", "city", "gender"] as const)("requires %s", (field) => {
    expect(errors({ [field]: "" })).toEqual({ [field]: "Eingabe erforderlich." });
  });

  it("needs no gender when the option is off", () => {
    expect(errors({ gender: "" }, { showGender: false })).toEqual({});
  });

  it("wants a street of at least 3 characters", () => {
    expect(errors({ street_name: "Ab" })).toEqual({ street_name: "Straße name ungultig" });
  });

  it("checks the account holder", () => {
    expect(errors({ account_name: "" })).toEqual({ account_name: "Eingabe erforderlich." });
    expect(errors({ account_name: "A" })).toEqual({ account_name: "Name von kontoinhaber ungultig" });
    expect(errors({ account_name: "Jörg Müller" })).toEqual({
      account_name: "Bitte geben Sie Ihren Namen ohne Sonderzeichen und ohne Umlaute ein.",
    });
  });

  it("checks the IBAN", () => {
    expect(errors({ account_iban: "" })).toEqual({ account_iban: "Eingabe erforderlich." });
    expect(errors({ account_iban: "DE89370400440532013001" })).toEqual({ account_iban: "IBAN ist nicht gültig" });
    expect(errors({ account_iban: "DE89 3704 0044 0532 0130 00" })).toEqual({});
  });

  it("refuses emojis anywhere", () => {
    expect(errors({ city: "Berlin 🐻" })).toEqual({ city: "Bitte keine Emojis verwenden" });
    expect(errors({ account_iban: "DE89🙂" })).toEqual({ account_iban: "Bitte keine Emojis verwenden" });
  });

  it("follows the payment options", () => {
    const none = { paymentOption: "NONE" as const };
    expect(errors({ account_name: "", account_iban: "" }, none)).toEqual({});
    const card = { paymentOption: "CHARGECARD" as const };
    expect(errors({ account_name: "", account_iban: "" }, card)).toEqual({ charge_card: "Eingabe erforderlich." });
    expect(errors({ account_name: "", account_iban: "", charge_card: "LK-1" }, card)).toEqual({});
    const either = { paymentOption: "BANKORCHARGECARD" as const };
    expect(errors({}, either)).toEqual({ payment_method: "Eingabe erforderlich." });
    expect(errors({ payment_method: "CHARGECARD", account_name: "", account_iban: "" }, either)).toEqual({ charge_card: "Eingabe erforderlich." });
    expect(errors({ payment_method: "BANK" }, either)).toEqual({});
    const bankAndCard = { paymentOption: "BANKANDOPTIONALCHARGECARD" as const };
    expect(errors({}, bankAndCard)).toEqual({});
    expect(errors({ account_iban: "" }, bankAndCard)).toEqual({ account_iban: "Eingabe erforderlich." });
  });

  it("asks a business owner about VAT and checks the tax number format", () => {
    expect(errors({ vehicle_owner_type: "business" })).toEqual({ is_vat_mandatory: "Auswahl treffen." });
    expect(errors({ vehicle_owner_type: "business", is_vat_mandatory: "no" })).toEqual({});
    expect(errors({ vehicle_owner_type: "business", is_vat_mandatory: "yes" })).toEqual({
      name_of_business: "Eingabe erforderlich.",
      vat_number: "Eingabe erforderlich.",
    });
    expect(errors({ vehicle_owner_type: "business", is_vat_mandatory: "yes", name_of_business: "Muster GmbH", vat_number: "DE12345" })).toEqual({
      vat_number: "Bitte überprüfen Sie das Format: Ust.-ID (DE…) mit 9 Ziffern, oder ihre Steuernummer.",
    });
    expect(errors({ vehicle_owner_type: "business", is_vat_mandatory: "yes", name_of_business: "Muster GmbH", vat_number: "DE 136695976" })).toEqual({});
  });

  it("ignores the business fields when business owners are not offered", () => {
    expect(errors({ vehicle_owner_type: "business" }, { privateBusiness: false })).toEqual({});
  });
});

describe("the client payload", () => {
  const context = { campaign: "herbst", freeText: "", fullUrlVariableString: "campaign=herbst", emailPromotion: true, portal: null };

  it("has the fields of section 3, the IBAN compacted", () => {
    const payload = clientPayload({ ...VALID, account_iban: "de89 3704 0044 0532 0130 00" }, OPTIONS, context);
    expect(payload).toEqual({
      gender: "woman",
      first_name: "Anna",
      last_name: "Muster",
      account_iban: "DE89370400440532013000",
      account_name: "Anna Muster",
      charge_card: "",
      account_bic: "",
      partner_variable: "",
      street_name: "Hauptstraße",
      street_number: "1a",
      postal_code: "10115",
      campaign: "herbst",
      city: "Berlin",
      free_text: "",
      full_url_variable_string: "campaign=herbst",
      vehicle_owner_type: "private",
      is_vat_mandatory: null,
      name_of_business: "",
      vat_number: "",
      email_promotion_opt_in: true,
    });
  });

  it("sends gender null when the option is off, and the portal URLs only with the portal", () => {
    const payload = clientPayload(VALID, { ...OPTIONS, showGender: false }, { ...context, portal: { signupUrl: "s", loginUrl: "l" } });
    expect(payload.gender).toBeNull();
    expect(payload).toMatchObject({ signup_url: "s", login_url: "l" });
  });
});
