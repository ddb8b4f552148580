/**
 * Rules of the bulk upload and settlement forms (docs/partner-api.md, issue 17), checked in
 * the browser before the server checks them again; messages are text keys of texts/money.ts.
 */
import { z } from "zod";

export const MAX_ARCHIVE_BYTES = 200 * 1024 * 1024;
export const MAX_CSV_BYTES = 5 * 1024 * 1024;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/;
const IBAN = /^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/;
const POSTAL_CODE = /^\d{5}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

const isZip = (file: File) =>
  /\.zip$/i.test(file.name) ||
  ["application/zip", "application/x-zip-compressed", "application/x-zip"].includes(file.type);
const isCsv = (file: File) => /\.(csv|txt)$/i.test(file.name) || ["text/csv", "text/plain"].includes(file.type);

export const bulkUploadFormSchema = z.object({
  archive: z
    .custom<File | null>()
    .refine((file): file is File => file instanceof File, "bulk.archiveRequired")
    .refine((file) => !(file instanceof File) || isZip(file), "bulk.archiveType")
    .refine((file) => !(file instanceof File) || file.size <= MAX_ARCHIVE_BYTES, "bulk.archiveSize")
    .refine((file) => !(file instanceof File) || file.size > 0, "bulk.empty"),
  owners_csv: z
    .custom<File | null>()
    .refine((file) => !(file instanceof File) || isCsv(file), "bulk.csvType")
    .refine((file) => !(file instanceof File) || file.size <= MAX_CSV_BYTES, "bulk.csvSize")
    .refine((file) => !(file instanceof File) || file.size > 0, "bulk.empty"),
});
export type BulkUploadForm = { archive: File | null; owners_csv: File | null };

/** "de89 3704 …" → "DE893704…". */
export const ibanClean = (value: string) => value.replace(/\s+/g, "").toUpperCase();

export const ownerFormSchema = z
  .object({
    email: z
      .string()
      .trim()
      .refine((value) => EMAIL.test(value), "form.email"),
    gender: z.string(),
    first_name: z.string().trim().min(1, "form.required").max(100),
    last_name: z.string().trim().min(1, "form.required").max(100),
    street_name: z.string().trim().min(3, "bulk.street").max(100),
    street_number: z.string().trim().min(1, "form.required").max(10),
    postal_code: z
      .string()
      .trim()
      .refine((value) => POSTAL_CODE.test(value), "bulk.postalCodeInvalid"),
    city: z.string().trim().min(1, "form.required").max(100),
    account_iban: z
      .string()
      .transform(ibanClean)
      .refine((value) => !value || IBAN.test(value), "bulk.ibanInvalid"),
    account_name: z.string().trim().max(100),
    vehicle_owner_type: z.enum(["private", "business"]),
    name_of_business: z.string().trim().max(100),
    is_vat_mandatory: z.enum(["", "yes", "no"]),
    vat_number: z.string().trim().max(20),
  })
  .superRefine((value, context) => {
    if (value.vehicle_owner_type !== "business") return;
    if (!value.is_vat_mandatory)
      context.addIssue({ code: "custom", path: ["is_vat_mandatory"], message: "bulk.chooseOne" });
    if (value.is_vat_mandatory === "yes") {
      if (!value.name_of_business)
        context.addIssue({ code: "custom", path: ["name_of_business"], message: "form.required" });
      if (!value.vat_number) context.addIssue({ code: "custom", path: ["vat_number"], message: "form.required" });
    }
  });
export type OwnerForm = z.input<typeof ownerFormSchema>;

export const EMPTY_OWNER: OwnerForm = {
  email: "",
  gender: "",
  first_name: "",
  last_name: "",
  street_name: "",
  street_number: "",
  postal_code: "",
  city: "",
  account_iban: "",
  account_name: "",
  vehicle_owner_type: "private",
  name_of_business: "",
  is_vat_mandatory: "",
  vat_number: "",
};

/** The form as the API takes it (the CSV row's fields, operations/owner_csv.py). */
export function ownerPayload(values: z.output<typeof ownerFormSchema>) {
  const business = values.vehicle_owner_type === "business";
  return {
    ...values,
    email: values.email.trim(),
    is_vat_mandatory: business ? values.is_vat_mandatory === "yes" : null,
    name_of_business: business ? values.name_of_business : "",
    vat_number: business ? values.vat_number : "",
  };
}

export const batchFormSchema = z
  .object({
    legislation_year: z.string(),
    vehicle_class: z.string(),
    created_from: z.string().refine((value) => !value || DAY.test(value), "settlement.date"),
    created_to: z.string().refine((value) => !value || DAY.test(value), "settlement.date"),
    execution_date: z.string().refine((value) => !value || DAY.test(value), "settlement.date"),
  })
  .superRefine((value, context) => {
    if (value.created_from && value.created_to && value.created_from > value.created_to)
      context.addIssue({ code: "custom", path: ["created_to"], message: "settlement.range" });
    const today = new Date().toISOString().slice(0, 10);
    if (value.execution_date && value.execution_date < today)
      context.addIssue({ code: "custom", path: ["execution_date"], message: "settlement.past" });
  });
export type BatchForm = z.infer<typeof batchFormSchema>;
export const EMPTY_BATCH: BatchForm = {
  legislation_year: "",
  vehicle_class: "",
  created_from: "",
  created_to: "",
  execution_date: "",
};

export function batchPayload(values: BatchForm) {
  const filters: Record<string, string | number> = {};
  if (values.legislation_year) filters.legislation_year = Number(values.legislation_year);
  if (values.vehicle_class) filters.vehicle_class = values.vehicle_class;
  if (values.created_from) filters.created_from = values.created_from;
  if (values.created_to) filters.created_to = values.created_to;
  return { filters, ...(values.execution_date ? { execution_date: values.execution_date } : {}) };
}

export const failFormSchema = z.object({ reason: z.string().trim().min(1, "settlement.reasonRequired").max(500) });
export type FailForm = z.infer<typeof failFormSchema>;

export const ibanFormSchema = z.object({
  account_iban: z
    .string()
    .transform(ibanClean)
    .refine((value) => IBAN.test(value), "bulk.ibanInvalid"),
  account_name: z.string().trim().max(100),
});
export type IbanForm = z.input<typeof ibanFormSchema>;
