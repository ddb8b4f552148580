import InfoOutlined from "@mui/icons-material/InfoOutlined";
import IconButton from "@mui/material/IconButton";
import InputAdornment from "@mui/material/InputAdornment";
import TextField from "@mui/material/TextField";
import Tooltip from "@mui/material/Tooltip";
import type { FieldErrors, UseFormRegister } from "react-hook-form";
import { useTranslation } from "react-i18next";

import type { ApiError } from "@/shared/lib/http";

type Values = { password: string; password_again: string };

/** The server's messages for the two fields (section 8), or null when it named neither. */
export function passwordFieldErrors(error: ApiError): Partial<Record<keyof Values, string>> | null {
  const fields = { password: error.fieldMessage("password"), password_again: error.fieldMessage("password_again") };
  return fields.password || fields.password_again ? fields : null;
}

/** New password and its retype, with the pattern in a tooltip (section 5). */
export function PasswordFields({ register, errors, serverErrors }: { register: UseFormRegister<Values>; errors: FieldErrors<Values>; serverErrors: Partial<Record<keyof Values, string>> }) {
  const { t } = useTranslation();
  const message = (field: keyof Values) => (errors[field]?.message ? t(errors[field]?.message ?? "") : serverErrors[field]);
  return (
    <>
      <TextField
        label={t("reset.password")}
        type="password"
        autoComplete="new-password"
        error={Boolean(message("password"))}
        helperText={message("password")}
        slotProps={{
          htmlInput: { "data-testid": "new-password" },
          input: {
            endAdornment: (
              <InputAdornment position="end">
                <Tooltip title={t("reset.pattern")}>
                  <IconButton aria-label={t("reset.pattern")} edge="end" size="small">
                    <InfoOutlined fontSize="small" />
                  </IconButton>
                </Tooltip>
              </InputAdornment>
            ),
          },
        }}
        {...register("password")}
      />
      <TextField
        label={t("reset.again")}
        type="password"
        autoComplete="new-password"
        error={Boolean(message("password_again"))}
        helperText={message("password_again")}
        slotProps={{ htmlInput: { "data-testid": "new-password-again" } }}
        {...register("password_again")}
      />
    </>
  );
}
