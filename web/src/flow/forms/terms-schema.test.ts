import { describe, expect, it } from "vitest";

import { EMPTY_CHECKLIST } from "@/flow/state/flow-state";

import { TERMS_MESSAGES, type TermsOptions, termsSchema } from "./terms-schema";

const BOTH: TermsOptions = { freeTextMandatory: false, currentYearOffered: true, nextYearOffered: true, nextYearTermsExist: true, eupMode: false };

function errors(options: TermsOptions, values: Partial<typeof EMPTY_CHECKLIST>): Record<string, string> {
  const result = termsSchema(options).safeParse({ ...EMPTY_CHECKLIST, ...values });
  if (result.success) return {};
  return Object.fromEntries(result.error.issues.map((issue) => [issue.path.join("."), issue.message]));
}

describe("the terms checklist", () => {
  it("passes with a year and its terms", () => {
    expect(errors(BOTH, { currentYear: true, terms: true })).toEqual({});
    expect(errors(BOTH, { nextYear: true, nextYearTerms: true, terms: false })).toEqual({});
    expect(errors(BOTH, { currentYear: true, nextYear: true, terms: true, nextYearTerms: true })).toEqual({});
  });

  it("asks for at least one year when two are offered", () => {
    expect(errors(BOTH, { terms: true })).toEqual({ years: TERMS_MESSAGES.yearRequired });
  });

  it("shows only the year message while no year is chosen (the terms rule is for a chosen current year)", () => {
    expect(errors(BOTH, {})).toEqual({ years: TERMS_MESSAGES.yearRequired });
    expect(errors({ ...BOTH, nextYearOffered: false }, {})).toEqual({ currentYear: TERMS_MESSAGES.periodRequired });
  });

  it("asks to accept the period when only one is offered", () => {
    expect(errors({ ...BOTH, nextYearOffered: false }, { terms: true })).toEqual({ currentYear: TERMS_MESSAGES.periodRequired });
    expect(errors({ ...BOTH, currentYearOffered: false }, { nextYearTerms: true })).toMatchObject({ nextYear: TERMS_MESSAGES.periodRequired });
  });

  it("needs no year in the end-user-portal mode", () => {
    expect(errors({ ...BOTH, eupMode: true }, { terms: true })).toEqual({});
  });

  it("requires the current year's terms when the current year is chosen", () => {
    expect(errors(BOTH, { currentYear: true })).toEqual({ terms: TERMS_MESSAGES.currentYearTermsRequired });
  });

  it("requires next year's terms when the next year is chosen and has terms", () => {
    expect(errors(BOTH, { nextYear: true })).toEqual({ nextYearTerms: TERMS_MESSAGES.nextYearTermsRequired });
  });

  it("falls back to the general terms when next year has none of its own", () => {
    expect(errors({ ...BOTH, nextYearTermsExist: false }, { nextYear: true })).toEqual({ terms: TERMS_MESSAGES.currentYearTermsRequired });
    expect(errors({ ...BOTH, nextYearTermsExist: false }, { nextYear: true, terms: true })).toEqual({});
  });

  it("requires the free-text permission when it is displayed and mandatory", () => {
    const options = { ...BOTH, freeTextMandatory: true };
    expect(errors(options, { currentYear: true, terms: true })).toEqual({ additionalRequirement: TERMS_MESSAGES.acceptRequired });
    expect(errors(options, { currentYear: true, terms: true, additionalRequirement: true })).toEqual({});
  });

  it("keeps privacy ticked: an unticked privacy never passes", () => {
    expect(errors(BOTH, { currentYear: true, terms: true, privacy: false })).toHaveProperty("privacy");
  });
});
