import Button from "@mui/material/Button";
import { useTranslation } from "react-i18next";

import { PARTNER_KEYS } from "../lib/storage";

/** German by default; English on request, remembered in this browser. */
export function LanguageSwitch() {
  const { t, i18n } = useTranslation();
  const next = i18n.language === "en" ? "de" : "en";
  return (
    <Button
      size="small"
      color="inherit"
      lang={next}
      onClick={() => {
        window.localStorage.setItem(PARTNER_KEYS.language, next);
        void i18n.changeLanguage(next);
      }}
      data-testid="partner-language"
    >
      {t("area.language")}
    </Button>
  );
}
