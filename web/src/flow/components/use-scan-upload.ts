import { useRef, useState } from "react";
import { useLocation, useNavigate } from "react-router";

import { usePartner, useTexts } from "@/shared/lib/partner-context";
import { PATHS } from "@/shared/lib/routes";
import { deviceInfoSend } from "@/flow/api/device-info";
import { scanUpload } from "@/flow/api/scan-upload";
import type { ScanConstraints } from "@/flow/api/system-constraints";
import { type Checklist, registrationYears } from "@/flow/state/flow-state";
import { ApiError } from "@/shared/lib/http";
import { isB2BPath, withQuery } from "@/shared/lib/navigation";
import { storeGet, storeSet } from "@/shared/lib/session-store";
import { useToaster } from "@/shared/ui/toaster";

export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
/** From the third attempt (after two failures) the document check is skipped. */
export const FAILURES_BEFORE_SKIP = 2;
/** A busy document check (503 UPLOAD002: nothing was kept) is asked again this often by itself. */
export const BUSY_RETRIES = 2;
const BUSY_WAIT_MAX_SECONDS = 10;

/** Codes of a vehicle the reader surely read as not eligible (registrations.eligibility): not
 * battery-electric, a registration-exempt or another class without a quota. Trying again does
 * not help, and skipping the classifier would not change it: no failed attempt. */
const INELIGIBLE = new Set(["IMGC008", "IMGC009", "IMGC010"]);

export function isIneligible(error: unknown): boolean {
  const scan = error instanceof ApiError ? (error.body as { zlb_scan?: { error_code?: string } } | null)?.zlb_scan : null;
  return INELIGIBLE.has(scan?.error_code ?? "");
}

/** The server's document check had no room for this upload (registrations.ocr_pool). */
export function isCheckBusy(error: unknown): error is ApiError {
  return error instanceof ApiError && error.status === 503 && error.errorCode === "UPLOAD002";
}

function pause(seconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, seconds * 1000);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
}

type Translate = (key: string) => string;

/** The message of section 8 for a failed scan upload. */
export function scanErrorMessage(t: Translate, error: unknown, constraints: ScanConstraints | undefined): string {
  const scan = error instanceof ApiError ? (error.body as { zlb_scan?: { error_code?: string; details?: Record<string, number> } } | null)?.zlb_scan : null;
  const code = scan?.error_code;
  if (error instanceof ApiError && error.status === 429) {
    // Too many uploads in a short time: say when to try again (Retry-After, in minutes).
    const minutes = Math.max(1, Math.ceil((error.retryAfter ?? 60) / 60));
    return t("error.uploadThrottled").replace("{minutes}", String(minutes));
  }
  if (error instanceof ApiError && error.status === 413 && !code) return t("error.IMGC005");
  // Busy, not refused: the server's own message says to try again in a few seconds.
  if (isCheckBusy(error)) return error.detail ?? t("error.upload");
  if (!code) return t("error.scanUnknown");
  if (code === "IMGC001") {
    const details = scan?.details ?? {};
    const min = details.min_size ?? constraints?.min_size ?? 0;
    const max = details.max_pixels ?? constraints?.max_pixels ?? 0;
    return t("error.IMGC001")
      .replaceAll("{min}", String(min))
      .replace("{max}", max.toLocaleString("de-DE"))
      .replace("{w}", String(details.given_width ?? "?"))
      .replace("{h}", String(details.given_height ?? "?"));
  }
  const message = t(`error.${code}`);
  return message === `error.${code}` ? t("error.scanUnknown") : message;
}

/** Upload with progress; success stores the registration, sends the device data, goes on. */
export function useScanUpload(constraints: ScanConstraints | undefined) {
  const t = useTexts();
  const partner = usePartner();
  const toast = useToaster();
  const navigate = useNavigate();
  const { pathname, search } = useLocation();
  const b2b = isB2BPath(pathname);
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const running = useRef<AbortController | null>(null);
  const failures = storeGet<number>("uploadFailures") ?? 0;

  const upload = async (file: File) => {
    setError(null);
    if (file.size > MAX_UPLOAD_BYTES) {
      setError(t("error.IMGC005"));
      return;
    }
    setProgress(0);
    const controller = new AbortController();
    running.current = controller;
    try {
      const send = () =>
        scanUpload(
          {
            partner: partner.subdomain,
            file,
            b2b,
            registrationYears: registrationYears(storeGet<Checklist>("checklist")),
            skipClassifier: (storeGet<number>("uploadFailures") ?? 0) >= FAILURES_BEFORE_SKIP,
          },
          setProgress,
          controller.signal,
        );
      let registration;
      for (let attempt = 0; ; attempt += 1) {
        try {
          registration = await send();
          break;
        } catch (failure) {
          if (!isCheckBusy(failure) || attempt >= BUSY_RETRIES || controller.signal.aborted) throw failure;
          await pause(Math.min(failure.retryAfter ?? 5, BUSY_WAIT_MAX_SECONDS), controller.signal);
          if (controller.signal.aborted) throw new ApiError(0, { cancelled: true });
        }
      }
      storeSet("bevRegistrationId", registration.id);
      storeSet("quoteId", registration.sequence);
      storeSet("quoteUuid", registration.uuid);
      storeSet("imageSuccess", true);
      storeSet("uploadFailures", 0);
      deviceInfoSend(registration.id).catch(() => toast(t("error.uploadingData")));
      navigate(withQuery(b2b ? PATHS.ValidationB2B : `/validation/${registration.id}`, search));
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 401) return;
      if (failure instanceof ApiError && failure.cancelled) {
        // Not a failed attempt: it does not count towards skipping the document check.
        setError(t("upload.cancelled"));
        return;
      }
      // A busy check refused nothing, and a vehicle without a quota stays one: neither counts
      // towards skipping the document check.
      if (!isCheckBusy(failure) && !isIneligible(failure)) {
        storeSet("uploadFailures", (storeGet<number>("uploadFailures") ?? 0) + 1);
      }
      setError(scanErrorMessage(t, failure, constraints));
    } finally {
      running.current = null;
      setProgress(null);
    }
  };
  const cancel = () => running.current?.abort();

  // progress 1: every byte is sent and the server is reading the document
  return { upload, cancel, progress, checking: progress !== null && progress >= 1, error, willSkipClassifier: failures >= FAILURES_BEFORE_SKIP };
}
