import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import { useTranslation } from "react-i18next";

import { ApiError, errorText } from "../api/client";

/** A failed load: the server's message (a 403 says what the role lacks) and a retry. */
export function QueryError({ error, retry }: { error: unknown; retry?: () => void }) {
  const { t } = useTranslation();
  const forbidden = error instanceof ApiError && error.status === 403;
  return (
    <Alert
      severity={forbidden ? "warning" : "error"}
      data-testid={forbidden ? "forbidden" : "load-error"}
      action={
        retry && !forbidden ? (
          <Button color="inherit" size="small" onClick={retry}>
            {t("errors.retry")}
          </Button>
        ) : undefined
      }
    >
      {errorText(error, t)}
    </Alert>
  );
}

/** A screen the role may not open: the same words the server uses for its 403. */
export function Forbidden() {
  const { t } = useTranslation();
  return (
    <Alert severity="warning" data-testid="forbidden">
      {t("errors.forbidden")}
    </Alert>
  );
}
