import { ApiError, apiClient } from "@/shared/lib/http";

export type VatResult = { status: "valid" } | { errorCode: string };

/** Validate VAT number (form data): 'valid', or the error code (VAT001). */
export async function vatValidate(vatNumber: string): Promise<VatResult> {
  const form = new URLSearchParams({ vat_number: vatNumber });
  try {
    await apiClient.post("/api/clients/validate_vat_number/", { form });
    return { status: "valid" };
  } catch (error) {
    if (error instanceof ApiError && error.errorCode) return { errorCode: error.errorCode };
    throw error;
  }
}
