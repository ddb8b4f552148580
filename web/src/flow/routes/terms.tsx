import { zodResolver } from "@hookform/resolvers/zod";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import FormHelperText from "@mui/material/FormHelperText";
import Link from "@mui/material/Link";
import Typography from "@mui/material/Typography";
import { useEffect, useMemo } from "react";
import { useForm } from "react-hook-form";
import { Link as RouterLink, useLocation } from "react-router";

import { usePartner, useTexts } from "@/shared/lib/partner-context";
import { PATHS } from "@/shared/lib/routes";
import { YearDeadline } from "@/flow/components/year-deadline";
import { termsSchema, type TermsOptions, type TermsValues } from "@/flow/forms/terms-schema";
import { type Checklist, EMPTY_CHECKLIST } from "@/flow/state/flow-state";
import { queryWith, useFlowNavigate } from "@/shared/lib/navigation";
import { storeGet, storeSet } from "@/shared/lib/session-store";
import { CheckField } from "@/shared/ui/check-field";
import { Layout } from "@/shared/ui/layout";
import { PageTitle } from "@/shared/ui/page-title";

export function termsOptions(partner: ReturnType<typeof usePartner>, eupMode = false): TermsOptions {
  const terms = partner.pages.terms;
  return {
    freeTextMandatory: terms.display_checkbox_free_text_permission && terms.make_free_text_mandatory,
    currentYearOffered: partner.qa_create_choices.current_year,
    nextYearOffered: partner.qa_create_choices.next_year,
    nextYearTermsExist: Boolean(partner.pages.next_year_termsdetails.text || partner.pages.next_year_termsdetails.file),
    eupMode,
  };
}

/** TermsView (/terms): the checklist of section 3 with the rules of section 5. */
export function TermsView() {
  const t = useTexts();
  const partner = usePartner();
  const navigate = useFlowNavigate();
  const { search } = useLocation();
  const eupMode = new URLSearchParams(search).get("eup") === "1" && partner.end_user_portal_enable;
  const options = useMemo(() => termsOptions(partner, eupMode), [partner, eupMode]);
  const choices = partner.qa_create_choices;
  const terms = partner.pages.terms;
  const blocked = choices.no_allowed_registration_years_message.trim() !== "";

  const saved = storeGet<Checklist>("checklistDraft") ?? storeGet<Checklist>("checklist");
  const {
    control,
    handleSubmit,
    watch,
    formState: { errors, isSubmitted },
  } = useForm<TermsValues>({
    resolver: zodResolver(termsSchema(options)),
    defaultValues: { ...EMPTY_CHECKLIST, ...saved, privacy: true },
  });
  const values = watch();
  const nextYearChosen = values.nextYear;

  // Ticks survive a visit to the terms or privacy text.
  useEffect(() => {
    const { unsubscribe } = watch((draft) => storeSet("checklistDraft", draft));
    return unsubscribe;
  }, [watch]);

  const submit = handleSubmit((values) => {
    const checklist: Checklist = { ...values, privacy: true };
    // The portal's "Neue Registrierung" (EUP mode) needs no year ticked: the vehicle is then
    // registered for the default period, the current year where offered, else the next one
    // (an upload without any year is refused by the server).
    if (eupMode && !checklist.currentYear && !checklist.nextYear) {
      if (options.currentYearOffered) checklist.currentYear = true;
      else if (options.nextYearOffered && (!options.nextYearTermsExist || checklist.nextYearTerms)) checklist.nextYear = true;
    }
    storeSet("checklist", checklist);
    navigate(PATHS.LoginCA);
  });
  const yearsError = (errors as Record<string, { message?: string }>).years?.message;

  return (
    <Layout>
      <PageTitle>{terms.tnc_title || t("terms.title")}</PageTitle>
      {terms.fly_out_text && <Typography sx={{ mb: 2, textAlign: partner.theme.tokens.itemAlignment }}>{terms.fly_out_text}</Typography>}
      {!blocked && <YearDeadline />}
      <Box component="form" noValidate onSubmit={submit} aria-label={t("terms.title")}>
        {blocked && (
          <Alert severity="info" sx={{ mb: 2 }} data-testid="no-years-message">
            {choices.no_allowed_registration_years_message}
          </Alert>
        )}
        {(choices.current_year || choices.next_year) && !blocked && (
          <Box component="fieldset" sx={{ border: 0, p: 0, m: 0, mb: 2 }}>
            <Typography component="legend" variant="h3" sx={{ mb: 1 }}>
              {t("terms.yearsHeading")}
            </Typography>
            {choices.current_year && (
              <CheckField control={control} name="currentYear" label={<YearLabel title={choices.current_year_title} subtext={choices.current_year_subtext} />} error={errors.currentYear?.message} />
            )}
            {choices.next_year && (
              <CheckField control={control} name="nextYear" label={<YearLabel title={choices.next_year_title} subtext={choices.next_year_subtext} />} error={errors.nextYear?.message} />
            )}
            {yearsError && (
              <FormHelperText error data-testid="error-years">
                {yearsError}
              </FormHelperText>
            )}
          </Box>
        )}
        <CheckField control={control} name="terms" label={terms.agreed} error={errors.terms?.message}>
          <Link component={RouterLink} to={{ pathname: PATHS.TermsDetails, search: queryWith(search, "year", null) }}>
            {t("terms.showTerms")}
          </Link>
        </CheckField>
        {nextYearChosen && options.nextYearTermsExist && (
          <CheckField control={control} name="nextYearTerms" label={t("terms.nextYearAgreed")} error={errors.nextYearTerms?.message}>
            <Link component={RouterLink} to={{ pathname: PATHS.TermsDetails, search: queryWith(search, "year", "next") }} data-testid="next-year-terms-link">
              {t("terms.showNextYearTerms")}
            </Link>
          </CheckField>
        )}
        <CheckField control={control} name="privacy" label={t("terms.privacy")} disabled>
          <Link component={RouterLink} to={{ pathname: PATHS.PrivacyDetails, search }}>
            {t("terms.showPrivacy")}
          </Link>
        </CheckField>
        {terms.display_checkbox_free_text_permission && (
          <CheckField control={control} name="additionalRequirement" label={terms.free_text_permission_text} error={errors.additionalRequirement?.message} />
        )}
        {terms.show_email_promotions_flag && <CheckField control={control} name="emailPromotion" label={terms.email_promotions_text} />}
        <Box sx={{ mt: 3, display: "flex", flexDirection: "column", alignItems: "center", gap: 2 }}>
          <Button type="submit" variant="contained" size="large" fullWidth disabled={blocked} data-testid="terms-submit">
            {t("common.next")}
          </Button>
          <Link component={RouterLink} to={{ pathname: PATHS.FAQ, search }}>
            {t("terms.faq")}
          </Link>
        </Box>
        {isSubmitted && Object.keys(errors).length > 0 && <span hidden data-testid="terms-invalid" />}
      </Box>
    </Layout>
  );
}

function YearLabel({ title, subtext }: { title: string; subtext: string }) {
  return (
    <span>
      <Typography component="span" sx={{ fontWeight: 600, display: "block" }}>
        {title}
      </Typography>
      {subtext && (
        <Typography component="span" variant="body2" sx={{ display: "block" }}>
          {subtext}
        </Typography>
      )}
    </span>
  );
}
