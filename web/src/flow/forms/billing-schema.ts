/**
 * The billing form with every rule of spec/registration-flow.md section 5, and the client
 * payload of section 3 built from it. The server applies the same rules again.
 */
import { z } from "zod";

import { containsEmoji, hasMinLength, isEmpty, isHolderName, isIban, isTaxNumber, MESSAGES, stripSpaces } from "@/shared/lib/validation";

export type PaymentOption = "NONE" | "BANK" | "CHARGECARD" | "BANKORCHARGECARD" | "BANKANDOPTIONALCHARGECARD";

export type BillingOptions = {
  showGender: boolean;
  genderOption: number;
  privateBusiness: boolean;
  paymentOption: PaymentOption;
  partnerVariable: boolean;
  /** A returning owner's stored IBAN, masked: an empty IBAN field keeps it (the server has it). */
  storedIban?: string | null;
};

export const TEXT_FIELDS = [
  "first_name",
  "last_name",
  "street_name",
  "street_number",
  "postal_code",
  "city",
  "name_of_business",
  "vat_number",
  "account_name",
  "account_iban",
  "charge_card",
  "partner_variable",
] as const;

export const billingFormSchema = z.object({
  gender: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  street_name: z.string(),
  street_number: z.string(),
  postal_code: z.string(),
  city: z.string(),
  vehicle_owner_type: z.enum(["private", "business"]),
  is_vat_mandatory: z.enum(["", "yes", "no"]),
  name_of_business: z.string(),
  vat_number: z.string(),
  payment_method: z.enum(["", "BANK", "CHARGECARD"]),
  account_name: z.string(),
  account_iban: z.string(),
  charge_card: z.string(),
  partner_variable: z.string(),
});

export type BillingValues = z.infer<typeof billingFormSchema>;

export const EMPTY_BILLING: BillingValues = {
  gender: "",
  first_name: "",
  last_name: "",
  street_name: "",
  street_number: "",
  postal_code: "",
  city: "",
  vehicle_owner_type: "private",
  is_vat_mandatory: "",
  name_of_business: "",
  vat_number: "",
  payment_method: "",
  account_name: "",
  account_iban: "",
  charge_card: "",
  partner_variable: "",
};

/** Which payment fields apply: bank, charge card, and whether each is required. */
export function paymentFields(option: PaymentOption, method: BillingValues["payment_method"]) {
  switch (option) {
    case "BANK":
      return { chooser: false, bank: true, bankRequired: true, card: false, cardRequired: false };
    case "CHARGECARD":
      return { chooser: false, bank: false, bankRequired: false, card: true, cardRequired: true };
    case "BANKORCHARGECARD":
      return { chooser: true, bank: method === "BANK", bankRequired: method === "BANK", card: method === "CHARGECARD", cardRequired: method === "CHARGECARD" };
    case "BANKANDOPTIONALCHARGECARD":
      return { chooser: false, bank: true, bankRequired: true, card: true, cardRequired: false };
    default:
      return { chooser: false, bank: false, bankRequired: false, card: false, cardRequired: false };
  }
}

export function billingSchema(options: BillingOptions) {
  return billingFormSchema.superRefine((values, context) => {
    const errors = new Map<string, string>();
    const fail = (path: string, message: string) => {
      if (!errors.has(path)) errors.set(path, message);
    };
    for (const field of TEXT_FIELDS) if (containsEmoji(values[field])) fail(field, MESSAGES.noEmojis);
    for (const field of ["first_name", "last_name", "street_name", "street_number", "postal_code", "city"] as const) {
      if (isEmpty(values[field])) fail(field, MESSAGES.required);
    }
    if (!isEmpty(values.street_name) && !hasMinLength(values.street_name, 3)) fail("street_name", MESSAGES.streetInvalid);
    if (options.showGender && isEmpty(values.gender)) fail("gender", MESSAGES.required);

    if (options.privateBusiness && values.vehicle_owner_type === "business") {
      if (values.is_vat_mandatory === "") fail("is_vat_mandatory", MESSAGES.choose);
      if (values.is_vat_mandatory === "yes") {
        if (isEmpty(values.name_of_business)) fail("name_of_business", MESSAGES.required);
        if (isEmpty(values.vat_number)) fail("vat_number", MESSAGES.required);
        else if (!isTaxNumber(values.vat_number)) fail("vat_number", MESSAGES.taxNumberFormat);
      }
    }

    const payment = paymentFields(options.paymentOption, values.payment_method);
    if (payment.chooser && values.payment_method === "") fail("payment_method", MESSAGES.required);
    if (payment.bankRequired || (payment.bank && (values.account_iban || values.account_name))) {
      if (isEmpty(values.account_name)) fail("account_name", MESSAGES.required);
      else if (!hasMinLength(values.account_name, 2)) fail("account_name", MESSAGES.holderInvalid);
      else if (!isHolderName(values.account_name)) fail("account_name", MESSAGES.holderCharacters);
      if (isEmpty(values.account_iban)) {
        if (!options.storedIban) fail("account_iban", MESSAGES.required);
      }
      else if (!isIban(values.account_iban)) fail("account_iban", MESSAGES.ibanInvalid);
    }
    if (payment.cardRequired && isEmpty(values.charge_card)) fail("charge_card", MESSAGES.required);

    errors.forEach((message, path) => context.addIssue({ code: z.ZodIssueCode.custom, path: [path], message }));
  });
}

export type ClientContext = {
  campaign: string;
  freeText: string;
  fullUrlVariableString: string;
  emailPromotion: boolean;
  portal: { signupUrl: string; loginUrl: string } | null;
};

/** The form's start for a returning owner: their last billing data (never the IBAN itself). */
export function billingPrefill(previous: {
  gender: string;
  first_name: string;
  last_name: string;
  street_name: string;
  street_number: string;
  postal_code: string;
  city: string;
  account_name: string;
  charge_card: string;
  vehicle_owner_type: "private" | "business";
  is_vat_mandatory: boolean | null;
  name_of_business: string;
  vat_number: string;
  has_stored_iban: boolean;
}): Partial<BillingValues> {
  return {
    gender: previous.gender,
    first_name: previous.first_name,
    last_name: previous.last_name,
    street_name: previous.street_name,
    street_number: previous.street_number,
    postal_code: previous.postal_code,
    city: previous.city,
    account_name: previous.account_name,
    charge_card: previous.charge_card,
    vehicle_owner_type: previous.vehicle_owner_type,
    is_vat_mandatory: previous.is_vat_mandatory === null ? "" : previous.is_vat_mandatory ? "yes" : "no",
    name_of_business: previous.name_of_business,
    vat_number: previous.vat_number,
    // The payment method chooser starts on the bank when an IBAN is stored.
    ...(previous.has_stored_iban ? { payment_method: "BANK" as const } : previous.charge_card ? { payment_method: "CHARGECARD" as const } : {}),
  };
}

/** The client payload of section 3 from the form's values. */
export function clientPayload(values: BillingValues, options: BillingOptions, context: ClientContext): Record<string, unknown> {
  const payment = paymentFields(options.paymentOption, values.payment_method);
  const business = options.privateBusiness && values.vehicle_owner_type === "business";
  const vatMandatory = business ? values.is_vat_mandatory === "yes" : null;
  return {
    gender: options.showGender ? values.gender : null,
    first_name: values.first_name.trim(),
    last_name: values.last_name.trim(),
    account_iban: payment.bank ? stripSpaces(values.account_iban).toUpperCase() : "",
    ...(payment.bank && options.storedIban && isEmpty(values.account_iban) ? { keep_stored_iban: true } : {}),
    account_name: payment.bank ? values.account_name.trim() : "",
    charge_card: payment.card ? values.charge_card.trim() : "",
    account_bic: "",
    partner_variable: options.partnerVariable ? values.partner_variable.trim() : "",
    street_name: values.street_name.trim(),
    street_number: values.street_number.trim(),
    postal_code: values.postal_code.trim(),
    campaign: context.campaign,
    city: values.city.trim(),
    free_text: context.freeText,
    full_url_variable_string: context.fullUrlVariableString,
    vehicle_owner_type: business ? "business" : "private",
    is_vat_mandatory: vatMandatory,
    name_of_business: vatMandatory ? values.name_of_business.trim() : "",
    vat_number: vatMandatory ? values.vat_number.trim() : "",
    email_promotion_opt_in: context.emailPromotion,
    ...(context.portal ? { signup_url: context.portal.signupUrl, login_url: context.portal.loginUrl } : {}),
  };
}
