import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { type FormEvent, useState } from "react";
import { useLocation, useNavigate } from "react-router";

import { usePartner, useTexts } from "@/shared/lib/partner-context";
import { PATHS } from "@/shared/lib/routes";
import { useCodeVerify } from "@/flow/api/code-verify";
import { useBlockBack } from "@/shared/lib/block-back";
import { isB2BPath, withQuery } from "@/shared/lib/navigation";
import { rememberEmail, storeGet, storeSet } from "@/shared/lib/session-store";
import { Layout } from "@/shared/ui/layout";
import { PageTitle } from "@/shared/ui/page-title";

export const CODE_LENGTH = 6;

/** CodeValidation / CodeValidationB2B: the six digits from the mail. */
export function CodeValidation() {
  const t = useTexts();
  const partner = usePartner();
  const navigate = useNavigate();
  const { pathname, search } = useLocation();
  const b2b = isB2BPath(pathname);
  const email = new URLSearchParams(search).get("email") ?? storeGet<string>("email") ?? "";
  const [code, setCode] = useState("");
  const [invalid, setInvalid] = useState(false);
  const verify = useCodeVerify();
  useBlockBack();

  const submit = (value: string) => {
    if (value.length !== CODE_LENGTH || verify.isPending) return;
    setInvalid(false);
    verify.mutate(
      { otp_code: value, email },
      {
        onSuccess: (tokens) => {
          storeSet("tokens", tokens);
          storeSet("authenticated", true);
          storeSet("email", email);
          rememberEmail(email);
          navigate(withQuery(b2b ? PATHS.ImageUploadWrapperB2B : PATHS.ImageUploadWrapper, search));
        },
        onError: () => setInvalid(true),
      },
    );
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (code.length !== CODE_LENGTH) setInvalid(true);
    else submit(code);
  };

  return (
    <Layout>
      <PageTitle>{t("codeValidation.title")}</PageTitle>
      <Typography sx={{ mb: 3, textAlign: partner.theme.tokens.itemAlignment }}>{t("codeValidation.text")}</Typography>
      <Box component="form" noValidate onSubmit={onSubmit}>
        <TextField
          value={code}
          onChange={(event) => {
            const digits = event.target.value.replace(/\D/g, "").slice(0, CODE_LENGTH);
            setCode(digits);
            setInvalid(false);
            if (digits.length === CODE_LENGTH) submit(digits);
          }}
          label={t("codeValidation.label")}
          // eslint-disable-next-line jsx-a11y/no-autofocus -- the code field is the screen's one task; the mail's code is typed right away
          autoFocus
          fullWidth
          autoComplete="one-time-code"
          error={invalid}
          helperText={invalid ? t("codeValidation.invalid") : " "}
          slotProps={{
            htmlInput: {
              inputMode: "numeric",
              pattern: "[0-9]*",
              maxLength: CODE_LENGTH,
              "data-testid": "code-input",
              style: { letterSpacing: "0.5em", textAlign: "center", fontSize: "1.5rem" },
            },
            formHelperText: { "data-testid": invalid ? "code-error" : undefined } as object,
          }}
        />
        <Button type="submit" variant="contained" size="large" fullWidth sx={{ mt: 2 }} disabled={verify.isPending} data-testid="code-submit">
          {t("codeValidation.submit")}
        </Button>
      </Box>
      <Alert severity="info" role="note" sx={{ mt: 3 }}>
        {t("codeValidation.help")}
      </Alert>
    </Layout>
  );
}
