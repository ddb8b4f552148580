import { zodResolver } from "@hookform/resolvers/zod";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Link from "@mui/material/Link";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useForm } from "react-hook-form";
import { useTranslation } from "react-i18next";
import { Link as RouterLink, useNavigate, useSearchParams } from "react-router";

import { ApiError } from "@/shared/lib/http";
import { clearSession } from "@/shared/lib/session-store";

import { resetVerify, useResetComplete } from "../api/auth";
import { passwordFieldErrors, PasswordFields } from "../components/password-fields";
import { passwordSchema } from "../forms/schemas";
import { portalClear } from "../lib/portal-store";
import { PORTAL_PATHS } from "../paths";

export const RESET_REDIRECT_MS = 2500;

type Fields = { password?: string; password_again?: string };

/** ResetPassword: token and id from the mail's link; is_user_creation switches the texts. */
export function ResetPassword() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const token = params.get("token") ?? "";
  const id = params.get("id") ?? "";
  const creation = params.get("is_user_creation") === "true";
  const link = useQuery({ queryKey: ["reset-link", token, id], queryFn: () => resetVerify(token, id), enabled: Boolean(token && id), retry: false });
  const complete = useResetComplete();
  const [done, setDone] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [serverErrors, setServerErrors] = useState<Fields>({});
  const { register, handleSubmit, formState } = useForm({ resolver: zodResolver(passwordSchema), mode: "onChange", defaultValues: { password: "", password_again: "" } });

  useEffect(() => {
    if (!done) return;
    const timer = window.setTimeout(() => {
      clearSession();
      portalClear();
      navigate(PORTAL_PATHS.login, { replace: true });
    }, RESET_REDIRECT_MS);
    return () => window.clearTimeout(timer);
  }, [done, navigate]);

  const submit = handleSubmit((values) => {
    setFailure(null);
    setServerErrors({});
    complete.mutate(
      { ...values, token, uidb64: id },
      {
        onSuccess: () => setDone(true),
        onError: (error) => {
          const fields = error instanceof ApiError && error.status === 400 ? passwordFieldErrors(error) : null;
          if (error instanceof ApiError && error.status === 400 && error.fieldMessage("recaptcha")) setFailure(t("login.invalidCaptcha"));
          else if (fields) setServerErrors(fields);
          else if (error instanceof ApiError && error.errorCode === "RESET001") setFailure(t("reset.invalidLink"));
          else setFailure(t("reset.somethingWrong"));
        },
      },
    );
  });

  const invalidLink = !token || !id || link.isError;
  return (
    <Box component="form" noValidate onSubmit={submit}>
      <Typography variant="h1" sx={{ mb: 1 }}>
        {creation ? t("reset.creationTitle") : t("reset.title")}
      </Typography>
      {creation && <Typography sx={{ mb: 2 }}>{t("reset.creationText")}</Typography>}
      <Stack spacing={2}>
        {invalidLink ? (
          <Alert severity="error" data-testid="reset-invalid">
            {link.error instanceof ApiError && link.error.status >= 500 ? t("reset.somethingWrong") : t("reset.invalidLink")}
          </Alert>
        ) : done ? (
          <Alert severity="success" data-testid="reset-done">
            {creation ? t("reset.creationSuccess") : t("reset.success")}
          </Alert>
        ) : (
          <>
            {link.data && <Typography variant="body2">{link.data.email}</Typography>}
            <PasswordFields register={register} errors={formState.errors} serverErrors={serverErrors} />
            {failure && <Alert severity="error">{failure}</Alert>}
            <Button type="submit" variant="contained" disabled={!formState.isValid || complete.isPending || !link.data} data-testid="reset-submit">
              {creation ? t("reset.creationSubmit") : t("reset.submit")}
            </Button>
          </>
        )}
        <Link component={RouterLink} to={PORTAL_PATHS.login}>
          {t("login.backToLogin")}
        </Link>
      </Stack>
    </Box>
  );
}
