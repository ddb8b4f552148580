/** The terms checklist of TermsView with every rule of spec/registration-flow.md section 5. */
import { z } from "zod";

export const TERMS_MESSAGES = {
  acceptRequired: "Akzeptieren ist erforderlich.",
  yearRequired: "Bitte wählen Sie mindestens ein Quotenjahr aus, um fortzufahren",
  periodRequired: "Bitte akzeptieren Sie den Zeitraum um fortzufahren.",
  currentYearTermsRequired: "Akzeptieren der AGB für das aktuelle Jahr ist erforderlich.",
  nextYearTermsRequired: "Akzeptieren der AGB für das nächste Jahr ist erforderlich.",
} as const;

export type TermsOptions = {
  /** The free-text permission checkbox is displayed and marked mandatory. */
  freeTextMandatory: boolean;
  currentYearOffered: boolean;
  nextYearOffered: boolean;
  nextYearTermsExist: boolean;
  /** The special end-user-portal mode: no year needs choosing. */
  eupMode: boolean;
};

export function termsSchema(options: TermsOptions) {
  return z
    .object({
      additionalRequirement: z.boolean(),
      terms: z.boolean(),
      privacy: z.literal(true),
      currentYear: z.boolean(),
      nextYear: z.boolean(),
      emailPromotion: z.boolean(),
      nextYearTerms: z.boolean(),
    })
    .superRefine((values, context) => {
      const fail = (path: string, message: string) => context.addIssue({ code: z.ZodIssueCode.custom, path: [path], message });
      if (options.freeTextMandatory && !values.additionalRequirement) fail("additionalRequirement", TERMS_MESSAGES.acceptRequired);
      const offered = [options.currentYearOffered, options.nextYearOffered].filter(Boolean).length;
      if (!options.eupMode && offered > 0 && !values.currentYear && !values.nextYear) {
        // One offered year is a period to accept; two are a choice to make.
        if (offered === 1) fail(options.currentYearOffered ? "currentYear" : "nextYear", TERMS_MESSAGES.periodRequired);
        else fail("years", TERMS_MESSAGES.yearRequired);
      }
      // The general terms apply to the current year, and to any year without terms of its own;
      // with no year chosen yet only the year message shows (spec section 5).
      const termsNeeded = values.currentYear || offered === 0 || (values.nextYear && !options.nextYearTermsExist);
      if (termsNeeded && !values.terms) fail("terms", TERMS_MESSAGES.currentYearTermsRequired);
      if (values.nextYear && options.nextYearTermsExist && !values.nextYearTerms) fail("nextYearTerms", TERMS_MESSAGES.nextYearTermsRequired);
    });
}

export type TermsValues = z.infer<ReturnType<typeof termsSchema>>;
