/**
 * The forms of address a partner offers by its gender_option (1: Frau, Herr; 2: and Divers;
 * 3: and Keine Angabe), as the server checks them (billing.validation.GENDERS): the flow's
 * billing form and the partner area's fleet owner dialog both offer these and nothing else.
 */
export const GENDERS: Record<number, { value: string; label: string }[]> = {
  1: [
    { value: "woman", label: "Frau" },
    { value: "man", label: "Herr" },
  ],
};
GENDERS[2] = [...GENDERS[1]!, { value: "diverse", label: "Divers" }];
GENDERS[3] = [...GENDERS[2]!, { value: "not_specified", label: "Keine Angabe" }];

/** The forms of address of a gender_option (an unknown option: the first's). */
export function offeredGenders(option: number): { value: string; label: string }[] {
  return GENDERS[option] ?? GENDERS[1]!;
}
