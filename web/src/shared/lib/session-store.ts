/**
 * The client state of spec/registration-flow.md section 3, kept in sessionStorage under
 * stable keys. Later screens fill it; clearing resets everything.
 */
export const STORE_KEYS = {
  checklist: "thg.checklist",
  tokens: "thg.tokens",
  email: "thg.email",
  authenticated: "thg.authenticated",
  utilityPartner: "thg.utilityPartner",
  returnUrl: "thg.returnUrl",
  campaign: "thg.campaign",
  chargeCardId: "thg.chargeCardId",
  urlVariableValue: "thg.urlVariableValue",
  imageSuccess: "thg.imageSuccess",
  bevRegistrationCompleted: "thg.bevRegistrationCompleted",
  routerPath: "thg.routerPath",
  bevRegistrationId: "thg.bevRegistrationId",
  quoteId: "thg.quoteId",
  quoteUuid: "thg.quoteUuid",
  billingSuccess: "thg.billingSuccess",
  emailVerification: "thg.emailVerification",
  profile: "thg.profile",
} as const;

export type StoreKey = keyof typeof STORE_KEYS;

export function storeGet<T>(key: StoreKey, storage: Storage = window.sessionStorage): T | null {
  const raw = storage.getItem(STORE_KEYS[key]);
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return null;
  }
}

export function storeSet(key: StoreKey, value: unknown, storage: Storage = window.sessionStorage): void {
  storage.setItem(STORE_KEYS[key], JSON.stringify(value));
}

/** Clearing the session resets tokens, checklist, e-mail, flags and all browser storage. */
export function clearSession(storage: Storage = window.sessionStorage): void {
  storage.clear();
  window.localStorage.removeItem(STORE_KEYS.tokens);
}
