/**
 * Portal calls: the shared client (headers, bearer token) plus the portal's session rules of
 * spec/customer-portal.md section 4. A 401 on any call but login starts one restore at a
 * time: 'expired' toast, a new token pair, 'restored' about 2 s later, a reload about 2.5 s
 * after the refresh; a failed refresh goes to the login. Every call runs the progress bar.
 */
import { useSyncExternalStore } from "react";

import { typedClient } from "@/shared/api/typed";
import { api, ApiError, refreshOnce } from "@/shared/lib/http";
import { storeGet } from "@/shared/lib/session-store";

export type SessionHandlers = { expired: () => void; restored: () => void; failed: () => void };

let handlers: SessionHandlers = { expired: () => {}, restored: () => {}, failed: () => {} };
let restoring: Promise<boolean> | null = null;
let inFlight = 0;
const listeners = new Set<() => void>();

export function onPortalSession(next: SessionHandlers): void {
  handlers = next;
}

function track(delta: number): void {
  inFlight += delta;
  listeners.forEach((listener) => listener());
}

/** True while any portal call is under way (the progress bar). */
export function useBusy(): boolean {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => inFlight > 0,
  );
}

function restoreSession(): Promise<boolean> {
  restoring ??= (async () => {
    handlers.expired();
    const ok = await refreshOnce();
    if (ok) handlers.restored();
    else handlers.failed();
    return ok;
  })().finally(() => {
    restoring = null;
  });
  return restoring;
}

type Options = Parameters<typeof api>[1] & { noRestore?: boolean };

export async function portalApi<T>(path: string, options: Options = {}): Promise<T> {
  const { noRestore, ...rest } = options;
  track(1);
  try {
    // The shared client's own silent refresh is off (retried = true): the portal restores visibly.
    return await api<T>(path, rest, true);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401 && !noRestore && storeGet("tokens")) {
      if (await restoreSession()) return await api<T>(path, rest, true);
    }
    throw error;
  } finally {
    track(-1);
  }
}

/** The typed calls below /api/ (shared/api/typed.ts) with these session rules:
 * `portal.get("/api/end_user_portal/quota_applications/")`; `{ noRestore: true }` for the
 * calls before a session (login, reset, signup), `{ plain: true }` without partner headers. */
export const portal = typedClient<"/api/", { plain: boolean; noRestore: boolean }>("/api/", (path, options) =>
  portalApi(path, options),
);
