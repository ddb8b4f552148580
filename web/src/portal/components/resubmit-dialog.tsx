import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Checkbox from "@mui/material/Checkbox";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogTitle from "@mui/material/DialogTitle";
import FormControl from "@mui/material/FormControl";
import FormControlLabel from "@mui/material/FormControlLabel";
import FormHelperText from "@mui/material/FormHelperText";
import InputLabel from "@mui/material/InputLabel";
import Link from "@mui/material/Link";
import MenuItem from "@mui/material/MenuItem";
import Select from "@mui/material/Select";
import { type ReactElement, useState } from "react";
import { Trans, useTranslation } from "react-i18next";
import { useNavigate } from "react-router";

import { usePartner } from "@/shared/lib/partner-context";

import type { RegistrationItem } from "../api/quota-applications";
import { portalSet, type ResubmitState } from "../lib/portal-store";
import { PORTAL_PATHS } from "../paths";

export type ResubmitForm = ResubmitState["formData"];
export const EMPTY_FORM: ResubmitForm = { terms: false, privacy: true, emailPromotion: false, additionalRequirement: false };

type Props = {
  item: RegistrationItem;
  pageNumber: number;
  initialYear?: number | "";
  initialForm?: ResubmitForm;
  pending: boolean;
  onCancel: () => void;
  onResubmit: (values: { period: number; form: ResubmitForm }) => void;
};

/** The resubmit dialog: modal, no X, the year first, then the terms list (section 2). */
export function ResubmitDialog({ item, pageNumber, initialYear = "", initialForm = EMPTY_FORM, pending, onCancel, onResubmit }: Props) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const partner = usePartner();
  const terms = partner.pages.terms;
  const choices = partner.qa_create_choices;
  const [year, setYear] = useState<number | "">(initialYear);
  const [form, setForm] = useState<ResubmitForm>(initialForm);
  const [errors, setErrors] = useState<Partial<Record<keyof ResubmitForm | "year", string>>>({});
  const currentYear = new Date().getFullYear();

  const label = (value: number) => {
    const title = value === currentYear ? choices.current_year_title : value === currentYear + 1 ? choices.next_year_title : "";
    return title ? `${title} ${value}` : String(value);
  };
  const leaveFor = (path: string) => {
    const state: ResubmitState = { id: item.id, sequence: item.sequence, pageNumber, selectedYear: year, formData: form };
    portalSet("resubmit", state);
    navigate(path);
  };
  const link = (path: string, key: string): ReactElement => (
    <Link
      key={key}
      component="button"
      type="button"
      onClick={(event: React.MouseEvent) => {
        event.preventDefault();
        leaveFor(path);
      }}
    />
  );
  const check = (field: keyof ResubmitForm, text: ReactElement | string, testId: string) => (
    <FormControl error={Boolean(errors[field])}>
      <FormControlLabel
        control={<Checkbox checked={form[field]} onChange={(event) => setForm({ ...form, [field]: event.target.checked })} slotProps={{ input: { "data-testid": testId } as object }} />}
        label={text}
      />
      {errors[field] && <FormHelperText>{errors[field]}</FormHelperText>}
    </FormControl>
  );

  const submit = () => {
    const found: typeof errors = {};
    if (year === "") found.year = t("resubmit.selectYear");
    else {
      if (!form.terms) found.terms = t("resubmit.required");
      if (!form.privacy) found.privacy = t("resubmit.required");
      if (terms.display_checkbox_free_text_permission && terms.make_free_text_mandatory && !form.additionalRequirement) found.additionalRequirement = t("resubmit.required");
    }
    setErrors(found);
    if (Object.keys(found).length === 0 && year !== "") onResubmit({ period: year, form });
  };

  return (
    <Dialog
      open
      onClose={(_, reason) => reason !== "backdropClick" && reason !== "escapeKeyDown" && onCancel()}
      disableEscapeKeyDown
      transitionDuration={150}
      slotProps={{ paper: { sx: { width: { xs: "calc(100vw - 32px)", md: "50vw" }, maxWidth: "none" }, "data-testid": "resubmit-dialog" } as object }}
      aria-labelledby="resubmit-title"
    >
      <DialogTitle id="resubmit-title">{t("resubmit.title")}</DialogTitle>
      <DialogContent>
        <FormControl fullWidth error={Boolean(errors.year)} sx={{ mt: 1 }}>
          <InputLabel id="resubmit-year-label">{t("resubmit.year")}</InputLabel>
          <Select
            labelId="resubmit-year-label"
            label={t("resubmit.year")}
            value={year}
            displayEmpty={false}
            onChange={(event) => {
              const value: unknown = event.target.value;
              setYear(value === "" ? "" : Number(value));
              setErrors({});
            }}
            data-testid="resubmit-year"
            inputProps={{ "data-testid": "resubmit-year-input" }}
          >
            {item.allowed_resubmit_years.map((value) => (
              <MenuItem key={value} value={value}>
                {label(value)}
              </MenuItem>
            ))}
          </Select>
          <FormHelperText>{errors.year ?? (year === "" ? t("resubmit.yearPlaceholder") : " ")}</FormHelperText>
        </FormControl>
        {year !== "" && (
          <Box sx={{ display: "grid", mt: 1 }} data-testid="resubmit-terms">
            {check("terms", <Trans i18nKey="resubmit.terms" components={[link(PORTAL_PATHS.terms, "terms")]} />, "resubmit-check-terms")}
            {check("privacy", <Trans i18nKey="resubmit.privacy" components={[link(PORTAL_PATHS.privacy, "privacy")]} />, "resubmit-check-privacy")}
            {terms.show_email_promotions_flag && check("emailPromotion", terms.email_promotions_text || t("resubmit.emailPromotion"), "resubmit-check-promotion")}
            {terms.display_checkbox_free_text_permission && check("additionalRequirement", terms.free_text_permission_text, "resubmit-check-free-text")}
          </Box>
        )}
      </DialogContent>
      <DialogActions>
        <Button
          onClick={() => {
            setYear("");
            setForm(EMPTY_FORM);
            setErrors({});
            onCancel();
          }}
          data-testid="resubmit-cancel"
        >
          {t("resubmit.cancel")}
        </Button>
        <Button variant="contained" onClick={submit} disabled={pending} data-testid="resubmit-submit">
          {t("resubmit.submit")}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
