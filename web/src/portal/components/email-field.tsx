import TextField from "@mui/material/TextField";
import type { UseFormRegisterReturn } from "react-hook-form";
import { useTranslation } from "react-i18next";

/** An e-mail address field of the portal's forms (emailSchema): the browser's own e-mail
 * keyboard and autofill, the one message for an address that is not one. */
export function EmailField({ label, testId, invalid, registration }: { label: string; testId: string; invalid: boolean; registration: UseFormRegisterReturn<"email"> }) {
  const { t } = useTranslation();
  return (
    <TextField
      label={label}
      type="email"
      autoComplete="email"
      error={invalid}
      helperText={invalid ? t("verify.invalidEmail") : undefined}
      slotProps={{ htmlInput: { "data-testid": testId } }}
      {...registration}
    />
  );
}
