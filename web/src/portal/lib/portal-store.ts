/** What the portal keeps in the browser besides the shared session (tokens, e-mail). */
export const PORTAL_KEYS = {
  resubmit: "thg.portal.resubmit",
  profile: "thg.portal.profile",
  unknownUser: "thg.portal.unknownUser",
} as const;

export type ResubmitState = {
  id: number;
  sequence: number;
  pageNumber: number;
  selectedYear: number | "";
  formData: { terms: boolean; privacy: boolean; emailPromotion: boolean; additionalRequirement: boolean };
};

export function portalGet<T>(key: keyof typeof PORTAL_KEYS): T | null {
  const raw = window.localStorage.getItem(PORTAL_KEYS[key]);
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return null;
  }
}

export function portalSet(key: keyof typeof PORTAL_KEYS, value: unknown): void {
  if (value === null || value === undefined) window.localStorage.removeItem(PORTAL_KEYS[key]);
  else window.localStorage.setItem(PORTAL_KEYS[key], JSON.stringify(value));
}

export function portalClear(): void {
  Object.values(PORTAL_KEYS).forEach((key) => window.localStorage.removeItem(key));
}
