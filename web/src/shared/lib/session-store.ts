/**
 * The client state of spec/registration-flow.md section 3, kept in sessionStorage under
 * stable keys. Writes notify subscribers (useStored), so screens follow the store.
 */
import { useSyncExternalStore } from "react";

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
  uploadFailures: "thg.uploadFailures",
  billingDraft: "thg.billingDraft",
  clientId: "thg.clientId",
  checklistDraft: "thg.checklistDraft",
  // In localStorage: the e-mail address of the last login on this device, so a returning
  // owner finds it filled in on the next visit (rememberEmail / rememberedEmail).
  lastEmail: "thg.lastEmail",
} as const;

export type StoreKey = keyof typeof STORE_KEYS;

/** What belongs to one registration (its scan, numbers, billing, guards' flags); the login
 * (tokens, e-mail, profile) and the partner's campaign stay. */
export const REGISTRATION_KEYS: readonly StoreKey[] = [
  "checklist",
  "checklistDraft",
  "imageSuccess",
  "bevRegistrationCompleted",
  "routerPath",
  "bevRegistrationId",
  "quoteId",
  "quoteUuid",
  "billingSuccess",
  "uploadFailures",
  "billingDraft",
  "clientId",
];

const listeners = new Set<() => void>();

function notify(): void {
  listeners.forEach((listener) => listener());
}

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
  if (value === null || value === undefined) storage.removeItem(STORE_KEYS[key]);
  else storage.setItem(STORE_KEYS[key], JSON.stringify(value));
  notify();
}

/** A new registration starts clean: nothing of the previous vehicle leaks into it. */
export function registrationStateClear(storage: Storage = window.sessionStorage): void {
  REGISTRATION_KEYS.forEach((key) => storage.removeItem(STORE_KEYS[key]));
  notify();
}

/** After a login (code or link): the address is filled in on this device's next visit. */
export function rememberEmail(address: string, storage: Storage = window.localStorage): void {
  storeSet("lastEmail", address, storage);
}

export function rememberedEmail(storage: Storage = window.localStorage): string | null {
  return storeGet<string>("lastEmail", storage);
}

/** Clearing the session resets tokens, checklist, e-mail, flags and all browser storage. */
export function clearSession(storage: Storage = window.sessionStorage): void {
  storage.clear();
  window.localStorage.removeItem(STORE_KEYS.tokens);
  notify();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener("storage", listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", listener);
  };
}

/** A stored value as React state (the raw string is the snapshot, so renders stay stable). */
export function useStored<T>(key: StoreKey): T | null {
  const raw = useSyncExternalStore(subscribe, () => window.sessionStorage.getItem(STORE_KEYS[key]));
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return null;
  }
}
