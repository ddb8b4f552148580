import { zodResolver } from "@hookform/resolvers/zod";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Checkbox from "@mui/material/Checkbox";
import CircularProgress from "@mui/material/CircularProgress";
import FormControlLabel from "@mui/material/FormControlLabel";
import Link from "@mui/material/Link";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { useEffect, useState } from "react";
import { useForm } from "react-hook-form";
import { Trans, useTranslation } from "react-i18next";
import { Link as RouterLink, Navigate, useNavigate, useSearchParams } from "react-router";

import { currentSubdomain } from "@/api/config";
import { ApiError } from "@/shared/lib/http";
import { storeGet, storeSet } from "@/shared/lib/session-store";

import { signupVerify, useAccountCreate } from "../api/auth";
import { passwordFieldErrors, PasswordFields } from "../components/password-fields";
import { passwordSchema } from "../forms/schemas";
import { portalGet, portalSet } from "../lib/portal-store";
import { PORTAL_PATHS } from "../paths";

type Verified = { email: string; unknownUser: boolean };

/** SignupView: only with a key from the mail or an e-mail the session already verified. */
export function SignupView() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const key = params.get("key");
  const known = storeGet<string>("email");
  const [verified, setVerified] = useState<Verified | "failed" | null>(
    !key && known && storeGet("tokens") ? { email: known, unknownUser: portalGet<boolean>("unknownUser") ?? true } : null,
  );

  useEffect(() => {
    if (!key) return;
    let live = true;
    signupVerify(key)
      .then((answer) => {
        if (!live) return;
        storeSet("tokens", answer.token);
        storeSet("email", answer.email_address);
        portalSet("unknownUser", answer.is_unknown_user);
        setVerified({ email: answer.email_address, unknownUser: answer.is_unknown_user });
      })
      .catch(() => live && setVerified("failed"));
    return () => {
      live = false;
    };
  }, [key]);

  if (!key && !known) return <Navigate to={PORTAL_PATHS.login} replace />;
  return (
    <Box>
      <Typography variant="h1" sx={{ mb: 2 }}>
        {t("signup.title")}
      </Typography>
      {verified === null ? (
        <CircularProgress aria-label={t("generic.loading")} />
      ) : verified === "failed" ? (
        <Alert severity="error" data-testid="signup-failed">
          {t("verify.failed")}
        </Alert>
      ) : (
        <SignupForm verified={verified} />
      )}
    </Box>
  );
}

function SignupForm({ verified }: { verified: Verified }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const create = useAccountCreate();
  const [terms, setTerms] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [serverErrors, setServerErrors] = useState<{ password?: string; password_again?: string }>({});
  const { register, handleSubmit, formState } = useForm({ resolver: zodResolver(passwordSchema), mode: "onChange", defaultValues: { password: "", password_again: "" } });
  const ready = formState.isValid && (!verified.unknownUser || terms);

  const submit = handleSubmit((values) => {
    setFailure(null);
    create.mutate(
      { ...values, subdomain: currentSubdomain() },
      {
        onSuccess: (tokens) => {
          storeSet("tokens", tokens);
          storeSet("authenticated", true);
          navigate(PORTAL_PATHS.registrations, { replace: true });
        },
        onError: (error) => {
          const fields = error instanceof ApiError ? passwordFieldErrors(error) : null;
          if (fields) setServerErrors(fields);
          else if (error instanceof ApiError && error.fieldMessage("recaptcha")) setFailure(t("login.invalidCaptcha"));
          else setFailure((error instanceof ApiError ? error.detail : undefined) ?? t("generic.error"));
        },
      },
    );
  });

  return (
    <Box component="form" noValidate onSubmit={submit}>
      <Stack spacing={2}>
        <TextField label={t("signup.username")} value={verified.email} disabled slotProps={{ htmlInput: { "data-testid": "signup-username" } }} />
        <PasswordFields register={register} errors={formState.errors} serverErrors={serverErrors} />
        {verified.unknownUser && (
          <FormControlLabel
            control={<Checkbox checked={terms} onChange={(event) => setTerms(event.target.checked)} slotProps={{ input: { "data-testid": "signup-terms" } as object }} />}
            label={<Trans i18nKey="signup.terms" components={[<Link key="terms" component={RouterLink} to={PORTAL_PATHS.terms} />]} />}
          />
        )}
        {failure && <Alert severity="error">{failure}</Alert>}
        <Button type="submit" variant="contained" disabled={!ready || create.isPending} data-testid="signup-submit">
          {t("signup.submit")}
        </Button>
      </Stack>
    </Box>
  );
}
