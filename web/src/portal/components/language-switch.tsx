import Button from "@mui/material/Button";
import { useTranslation } from "react-i18next";

import { LANGUAGE_KEY } from "../i18n";

/** German by default; English on request, remembered in this browser. */
export function LanguageSwitch() {
  const { t, i18n } = useTranslation();
  const next = i18n.language === "en" ? "de" : "en";
  return (
    <Button
      size="small"
      lang={next}
      onClick={() => {
        window.localStorage.setItem(LANGUAGE_KEY, next);
        void i18n.changeLanguage(next);
      }}
      data-testid="language-switch"
    >
      {t("shell.language")}
    </Button>
  );
}
