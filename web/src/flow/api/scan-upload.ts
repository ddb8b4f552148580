import { uploadClient } from "@/shared/lib/http";

export type ScanUploadInput = {
  partner: string;
  file: File;
  b2b: boolean;
  registrationYears: number[];
  skipClassifier: boolean;
};

/** Scan upload (multipart): the answer is a list; its first item is the registration. */
export async function scanUpload(input: ScanUploadInput, onProgress: (fraction: number) => void, signal?: AbortSignal) {
  const form = new FormData();
  form.append("partner", input.partner);
  form.append("zlb_scan", input.file);
  if (input.b2b) form.append("source", "b2b_fe");
  else form.append("registration_years", input.registrationYears.join(","));
  if (input.skipClassifier) form.append("skip_classifier", "True");
  const [registration] = await uploadClient.post("/api/bev_registrations/", { form, onProgress, signal });
  // the server answers 201 with at least the registration itself
  if (!registration) throw new Error("scan upload: the answer names no registration");
  return registration;
}
