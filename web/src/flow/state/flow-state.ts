/**
 * The registration flow's state (spec/registration-flow.md section 3) on top of the session
 * store: the checklist, the years it chose, and the flags the guards read.
 */
import { storeGet } from "@/shared/lib/session-store";

export type Checklist = {
  additionalRequirement: boolean;
  terms: boolean;
  privacy: boolean;
  currentYear: boolean;
  nextYear: boolean;
  emailPromotion: boolean;
  nextYearTerms: boolean;
};

export const EMPTY_CHECKLIST: Checklist = {
  additionalRequirement: false,
  terms: false,
  privacy: true,
  currentYear: false,
  nextYear: false,
  emailPromotion: false,
  nextYearTerms: false,
};

/** The quota years a checklist chose: the current calendar year and/or the next one. */
export function registrationYears(checklist: Checklist | null, now: Date = new Date()): number[] {
  if (!checklist) return [];
  const year = now.getFullYear();
  return [...(checklist.currentYear ? [year] : []), ...(checklist.nextYear ? [year + 1] : [])];
}

/**
 * LoginCA's (and Confirm's) condition: privacy ticked, terms ticked when the current year is
 * on, next-year terms ticked when the next year is on and has terms of its own.
 */
export function checklistAllowsLogin(checklist: Checklist | null, nextYearTermsExist: boolean): boolean {
  if (!checklist?.privacy) return false;
  if (checklist.currentYear && !checklist.terms) return false;
  if (checklist.nextYear && nextYearTermsExist && !checklist.nextYearTerms) return false;
  if (checklist.nextYear && !nextYearTermsExist && !checklist.terms) return false;
  return checklist.terms || checklist.nextYearTerms;
}

export function isAuthenticated(): boolean {
  return storeGet<boolean>("authenticated") === true && storeGet("tokens") !== null;
}
