import { zodResolver } from "@hookform/resolvers/zod";
import Alert from "@mui/material/Alert";
import Backdrop from "@mui/material/Backdrop";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import CircularProgress from "@mui/material/CircularProgress";
import FormControl from "@mui/material/FormControl";
import FormControlLabel from "@mui/material/FormControlLabel";
import FormHelperText from "@mui/material/FormHelperText";
import FormLabel from "@mui/material/FormLabel";
import InputAdornment from "@mui/material/InputAdornment";
import MenuItem from "@mui/material/MenuItem";
import Paper from "@mui/material/Paper";
import Radio from "@mui/material/Radio";
import RadioGroup from "@mui/material/RadioGroup";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { useEffect, useMemo, useRef, useState } from "react";
import { type Control, Controller, type FieldPath, useForm } from "react-hook-form";
import { Navigate, useLocation } from "react-router";

import type { PartnerConfig } from "@/api/config";
import { usePartner, useTexts } from "@/shared/lib/partner-context";
import { PATHS } from "@/shared/lib/routes";
import { clientCreate } from "@/flow/api/client-create";
import { clientLock } from "@/flow/api/client-lock";
import { useClientPrevious } from "@/flow/api/client-previous";
import { vatValidate } from "@/flow/api/vat-validate";
import {
  type BillingOptions,
  type BillingValues,
  billingPrefill,
  billingSchema,
  clientPayload,
  EMPTY_BILLING,
  paymentFields,
} from "@/flow/forms/billing-schema";
import type { Checklist } from "@/flow/state/flow-state";
import { browser } from "@/shared/lib/browser";
import { offeredGenders } from "@/shared/lib/genders";
import { ApiError } from "@/shared/lib/http";
import { useFlowNavigate, withQuery } from "@/shared/lib/navigation";
import { storeGet, storeSet } from "@/shared/lib/session-store";
import { stripSpaces } from "@/shared/lib/validation";
import { Layout } from "@/shared/ui/layout";
import { PageTitle } from "@/shared/ui/page-title";
import { useToaster } from "@/shared/ui/toaster";

export const PORTAL_WAIT_MS = 3000;

export function billingOptions(partner: PartnerConfig): BillingOptions {
  return {
    showGender: partner.show_gender_option,
    genderOption: partner.gender_option,
    privateBusiness: partner.enable_private_business_registration,
    paymentOption: partner.pages.payment.payment_option,
    partnerVariable: partner.pages.login.display_partner_variable,
  };
}

export function paymentText(partner: PartnerConfig): string {
  const payment = partner.pages.payment;
  return (
    {
      BANK: payment.text_for_bank,
      CHARGECARD: payment.text_for_chargecard,
      BANKORCHARGECARD: payment.text_for_bank_or_chargecard,
      BANKANDOPTIONALCHARGECARD: payment.text_for_bank_and_optional_chargecard,
      NONE: "",
    }[payment.payment_option] ?? ""
  );
}

/** The message of section 8 for a failed billing submit or lock. */
export function billingErrorMessage(t: (key: string) => string, error: unknown): string {
  const code = error instanceof ApiError ? error.fieldCode("account_iban") : null;
  if (code === "IBAN001" || code === "IBAN002") return t(`error.${code}`);
  return t("error.ibanOther");
}

type VatState = { status: "idle" | "checking" | "valid" } | { status: "error"; message: string };

/** Billing: edit mode, summary mode, submit, then lock, then billingSuccess. */
export function Billing() {
  const t = useTexts();
  const partner = usePartner();
  const toast = useToaster();
  const navigate = useFlowNavigate();
  const { search } = useLocation();
  // A returning owner starts from their last billing data, unless this registration has a draft.
  const [hadDraft] = useState(() => storeGet("billingDraft") !== null);
  const previous = useClientPrevious(true);
  const storedIban = previous.data?.has_stored_iban ? previous.data.account_iban_masked : null;
  const options = useMemo(() => ({ ...billingOptions(partner), storedIban }), [partner, storedIban]);
  const optionsRef = useRef(options);
  optionsRef.current = options;
  const [mode, setMode] = useState<"edit" | "summary">("edit");
  const [vat, setVat] = useState<VatState>({ status: "idle" });
  const [submitting, setSubmitting] = useState(false);
  const [portalWait, setPortalWait] = useState(false);

  const form = useForm<BillingValues>({
    // Through a ref: the stored IBAN (which makes an empty IBAN field valid) arrives later.
    resolver: (values, context, resolverOptions) => zodResolver(billingSchema(optionsRef.current))(values, context, resolverOptions),
    defaultValues: { ...EMPTY_BILLING, charge_card: storeGet<string>("chargeCardId") ?? "", ...storeGet<Partial<BillingValues>>("billingDraft") },
    mode: "onTouched",
  });
  const { control, handleSubmit, watch, setError, getValues } = form;
  const values = watch();

  useEffect(() => {
    const { unsubscribe } = watch((draft) => storeSet("billingDraft", draft));
    return unsubscribe;
  }, [watch]);

  const { reset } = form;
  useEffect(() => {
    if (!hadDraft && previous.data) reset({ ...getValues(), ...billingPrefill(previous.data) });
  }, [hadDraft, previous.data, reset, getValues]);

  const completed = storeGet<boolean>("bevRegistrationCompleted") === true;
  const billed = storeGet<boolean>("billingSuccess") === true;
  if (!completed) return <Navigate to={withQuery(PATHS.ImageUploadWrapper, search)} replace />;
  if (billed && !portalWait) return <Navigate to={withQuery(PATHS.Finish, search)} replace />;

  const payment = paymentFields(options.paymentOption, values.payment_method);
  const business = options.privateBusiness && values.vehicle_owner_type === "business";
  const vatChecked = business && values.is_vat_mandatory === "yes";

  const checkVat = async () => {
    const number = getValues("vat_number").trim();
    if (!/^de/i.test(number)) {
      setVat({ status: "idle" });
      return;
    }
    setVat({ status: "checking" });
    try {
      const result = await vatValidate(number);
      setVat("status" in result ? { status: "valid" } : { status: "error", message: t(`error.${result.errorCode}`) });
    } catch {
      setVat({ status: "error", message: t("error.VAT001") });
    }
  };

  const review = handleSubmit(() => {
    if (vatChecked && vat.status === "error") return; // no summary while a VAT error stands
    setMode("summary");
    window.scrollTo?.({ top: 0 });
  });

  const submit = async () => {
    setSubmitting(true);
    const checklist = storeGet<Checklist>("checklist");
    const origin = window.location.origin;
    const payload = clientPayload(getValues(), options, {
      campaign: storeGet<string>("campaign") ?? "",
      freeText: checklist?.additionalRequirement ? partner.pages.terms.free_text_permission_text : "",
      fullUrlVariableString: search.replace(/^\?/, ""),
      emailPromotion: checklist?.emailPromotion ?? false,
      portal: partner.end_user_portal_enable ? { signupUrl: `${origin}/portal/auth/signup`, loginUrl: `${origin}/portal/auth/login` } : null,
    });
    try {
      const clientId = storeGet<number>("clientId") ?? (await clientCreate(payload)).id;
      storeSet("clientId", clientId);
      await clientLock(clientId);
      storeSet("billingDraft", null);
      if (partner.end_user_portal_enable) {
        setPortalWait(true);
        storeSet("billingSuccess", true);
        window.setTimeout(() => browser.assign("/portal/registrations"), PORTAL_WAIT_MS);
      } else {
        storeSet("billingSuccess", true);
        navigate(PATHS.Finish);
      }
    } catch (error) {
      toast(billingErrorMessage(t, error));
      // Field messages of the server go back onto the form: nothing typed is lost.
      if (error instanceof ApiError && error.body && typeof error.body === "object") {
        for (const [field, messages] of Object.entries(error.body as Record<string, unknown>)) {
          if (field in EMPTY_BILLING) {
            const message = Array.isArray(messages) ? String(messages[0]) : billingErrorMessage(t, error);
            setError(field as FieldPath<BillingValues>, { message });
          }
        }
        if (Object.keys(error.body).some((field) => field in EMPTY_BILLING)) setMode("edit");
      }
      storeSet("clientId", null);
      setSubmitting(false);
    }
  };

  return (
    <Layout>
      <PageTitle>{partner.pages.payment.title || t("billing.title")}</PageTitle>
      {partner.pages.payment.text_details && <Typography sx={{ mb: 2 }}>{partner.pages.payment.text_details}</Typography>}
      {mode === "edit" ? (
        <Box component="form" noValidate onSubmit={(event) => void review(event)} data-testid="billing-form">
          <Section title={partner.pages.payment.client_detail_label || t("billing.personal")}>
            {options.showGender && (
              <Text control={control} name="gender" label={t("billing.gender")} select>
                {offeredGenders(options.genderOption).map((gender) => (
                  <MenuItem key={gender.value} value={gender.value}>
                    {gender.label}
                  </MenuItem>
                ))}
              </Text>
            )}
            <Text control={control} name="first_name" label={t("billing.firstName")} placeholder={partner.pages.payment.placeholder_first_name} autoComplete="given-name" />
            <Text control={control} name="last_name" label={t("billing.lastName")} placeholder={partner.pages.payment.placeholder_last_name} autoComplete="family-name" />
          </Section>
          <Section title={t("billing.address")}>
            {/* The number's column keeps room for its label 'Hausnummer' on a 390 px phone. */}
            <Box sx={{ display: "grid", gridTemplateColumns: { xs: "minmax(0, 1fr) 9rem", sm: "2fr minmax(9rem, 1fr)" }, gap: 2 }}>
              <Text control={control} name="street_name" label={t("billing.street")} autoComplete="address-line1" />
              <Text control={control} name="street_number" label={t("billing.streetNumber")} />
            </Box>
            <Box sx={{ display: "grid", gridTemplateColumns: "1fr 2fr", gap: 2 }}>
              <Text control={control} name="postal_code" label={t("billing.postalCode")} autoComplete="postal-code" inputMode="numeric" />
              <Text control={control} name="city" label={t("billing.city")} autoComplete="address-level2" />
            </Box>
          </Section>
          {options.privateBusiness && (
            <Section title={t("billing.ownerType")}>
              <Choice control={control} name="vehicle_owner_type" label={t("billing.ownerType")} choices={[["private", t("billing.private")], ["business", t("billing.business")]]} />
              {business && (
                <>
                  <Choice control={control} name="is_vat_mandatory" label={t("billing.vatMandatory")} choices={[["yes", t("billing.yes")], ["no", t("billing.no")]]} />
                  {vatChecked && (
                    <>
                      <Text control={control} name="name_of_business" label={t("billing.businessName")} autoComplete="organization" />
                      <Text
                        control={control}
                        name="vat_number"
                        label={t("billing.vatNumber")}
                        onBlur={() => void checkVat()}
                        onInput={() => setVat({ status: "idle" })}
                        extraError={vat.status === "error" ? vat.message : undefined}
                        adornment={
                          vat.status === "valid" ? (
                            <span aria-label={t("billing.vatValid")} data-testid="vat-valid" style={{ color: "green", fontSize: "1.4em" }}>
                              ✓
                            </span>
                          ) : vat.status === "checking" ? (
                            <CircularProgress size={18} />
                          ) : null
                        }
                      />
                    </>
                  )}
                </>
              )}
            </Section>
          )}
          {options.paymentOption !== "NONE" && (
            <Section title={t("billing.paymentMethod")}>
              {paymentText(partner) && <Typography sx={{ mb: 2 }} data-testid="payment-text">{paymentText(partner)}</Typography>}
              {payment.chooser && (
                <Text control={control} name="payment_method" label={partner.pages.payment.placeholder_payment_option || t("billing.paymentMethod")} select>
                  <MenuItem value="BANK">{t("billing.bank")}</MenuItem>
                  <MenuItem value="CHARGECARD">{t("billing.chargeCard")}</MenuItem>
                </Text>
              )}
              {payment.bank && (
                <>
                  <Text control={control} name="account_name" label={t("billing.accountName")} autoComplete="name" />
                  <Text
                    control={control}
                    name="account_iban"
                    label={t("billing.iban")}
                    transform={(value) => stripSpaces(value).toUpperCase()}
                    placeholder={storedIban ?? partner.pages.payment.input_field_text}
                    note={storedIban && !values.account_iban ? t("billing.storedIban").replace("{iban}", storedIban) : undefined}
                  />
                </>
              )}
              {payment.card && (
                <Text control={control} name="charge_card" label={partner.pages.payment.chargecard_placeholder_text || t("billing.chargeCard")} />
              )}
            </Section>
          )}
          {options.partnerVariable && (
            <Section title={partner.pages.login.contract_number || t("billing.partnerVariable")}>
              <Text control={control} name="partner_variable" label={partner.pages.login.contract_number || t("billing.partnerVariable")} />
            </Section>
          )}
          <Button type="submit" variant="contained" size="large" fullWidth sx={{ mt: 2 }} disabled={vat.status === "checking"} data-testid="billing-review">
            {t("billing.review")}
          </Button>
        </Box>
      ) : (
        <Summary values={getValues()} options={options} partner={partner}>
          <Box sx={{ display: "flex", flexDirection: "column", gap: 2, mt: 3 }}>
            <Button variant="contained" size="large" fullWidth disabled={submitting} onClick={() => void submit()} data-testid="billing-submit">
              {t("billing.submit")}
            </Button>
            <Button variant="outlined" size="large" fullWidth disabled={submitting} onClick={() => setMode("edit")} data-testid="billing-edit">
              {t("billing.edit")}
            </Button>
          </Box>
        </Summary>
      )}
      {/* The wait is read on a solid panel in the partner's paper and text colours (the
          theme's checked contrast), centred over a dimmed page, never as light text straight
          over the form. */}
      {/* MUI hides a backdrop from assistive technology: this one carries the message. */}
      <Backdrop
        open={portalWait}
        sx={{ zIndex: (theme) => theme.zIndex.modal + 1, p: 2 }}
        slotProps={{ root: { "aria-hidden": false } }}
        data-testid="portal-wait"
      >
        <Paper
          role="status"
          aria-live="polite"
          elevation={8}
          sx={{ display: "flex", flexDirection: "column", alignItems: "center", gap: 2, p: 4, maxWidth: 420, textAlign: "center", bgcolor: "background.paper", color: "text.primary" }}
        >
          <CircularProgress color="primary" aria-hidden />
          <Typography>{t("billing.portalWait")}</Typography>
        </Paper>
      </Backdrop>
    </Layout>
  );
}

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Box component="fieldset" sx={{ border: 0, p: 0, m: 0, mb: 3 }}>
      <Typography component="legend" variant="h3" sx={{ mb: 1.5 }}>
        {title}
      </Typography>
      <Box sx={{ display: "flex", flexDirection: "column", gap: 2 }}>{children}</Box>
    </Box>
  );
}

type TextProps = {
  control: Control<BillingValues>;
  name: FieldPath<BillingValues>;
  label: string;
  placeholder?: string;
  autoComplete?: string;
  inputMode?: "numeric" | "text";
  select?: boolean;
  children?: React.ReactNode;
  transform?: (value: string) => string;
  onBlur?: () => void;
  onInput?: () => void;
  extraError?: string;
  adornment?: React.ReactNode;
  /** A helper text that is not an error (e.g. the stored IBAN is kept). */
  note?: string;
};

function Text({ control, name, label, placeholder, autoComplete, inputMode, select, children, transform, onBlur, onInput, extraError, adornment, note }: TextProps) {
  return (
    <Controller
      control={control}
      name={name}
      render={({ field, fieldState }) => (
        <TextField
          {...field}
          value={field.value ?? ""}
          onChange={(event) => {
            field.onChange(transform ? transform(event.target.value) : event.target.value);
            onInput?.();
          }}
          onBlur={() => {
            field.onBlur();
            onBlur?.();
          }}
          label={label}
          placeholder={placeholder || undefined}
          select={select}
          fullWidth
          autoComplete={autoComplete}
          error={Boolean(fieldState.error || extraError)}
          helperText={fieldState.error?.message ?? extraError ?? note}
          slotProps={{
            htmlInput: { "data-testid": `billing-${name}`, inputMode },
            formHelperText: { "data-testid": `error-${name}` } as object,
            input: adornment ? { endAdornment: <InputAdornment position="end">{adornment}</InputAdornment> } : undefined,
            select: select ? ({ SelectDisplayProps: { "data-testid": `select-${name}` } } as object) : undefined,
          }}
        >
          {children}
        </TextField>
      )}
    />
  );
}

function Choice({ control, name, label, choices }: { control: Control<BillingValues>; name: FieldPath<BillingValues>; label: string; choices: [string, string][] }) {
  return (
    <Controller
      control={control}
      name={name}
      render={({ field, fieldState }) => (
        <FormControl error={Boolean(fieldState.error)}>
          <FormLabel id={`${name}-label`}>{label}</FormLabel>
          <RadioGroup row aria-labelledby={`${name}-label`} value={field.value} onChange={(event) => field.onChange(event.target.value)} name={name}>
            {choices.map(([value, text]) => (
              <FormControlLabel key={value} value={value} control={<Radio slotProps={{ input: { "data-testid": `billing-${name}-${value}` } as object }} />} label={text} />
            ))}
          </RadioGroup>
          {fieldState.error && <FormHelperText data-testid={`error-${name}`}>{fieldState.error.message}</FormHelperText>}
        </FormControl>
      )}
    />
  );
}

/** The summary (review) mode: what will be submitted, the IBAN grouped for reading. */
function Summary({ values, options, partner, children }: { values: BillingValues; options: BillingOptions; partner: PartnerConfig; children: React.ReactNode }) {
  const t = useTexts();
  const payment = paymentFields(options.paymentOption, values.payment_method);
  const business = options.privateBusiness && values.vehicle_owner_type === "business";
  const gender = offeredGenders(options.genderOption).find((item) => item.value === values.gender)?.label;
  const rows: [string, string][] = [
    ...(options.showGender ? [[t("billing.gender"), gender ?? ""] as [string, string]] : []),
    [t("billing.firstName"), values.first_name],
    [t("billing.lastName"), values.last_name],
    [t("billing.address"), `${values.street_name} ${values.street_number}, ${values.postal_code} ${values.city}`],
    ...(options.privateBusiness ? [[t("billing.ownerType"), business ? t("billing.business") : t("billing.private")] as [string, string]] : []),
    ...(business ? [[t("billing.vatMandatory"), values.is_vat_mandatory === "yes" ? t("billing.yes") : t("billing.no")] as [string, string]] : []),
    ...(business && values.is_vat_mandatory === "yes"
      ? ([
          [t("billing.businessName"), values.name_of_business],
          [t("billing.vatNumber"), values.vat_number],
        ] as [string, string][])
      : []),
    ...(payment.bank
      ? ([
          [t("billing.accountName"), values.account_name],
          [t("billing.iban"), values.account_iban ? stripSpaces(values.account_iban).replace(/(.{4})/g, "$1 ").trim() : (options.storedIban ?? "")],
        ] as [string, string][])
      : []),
    ...(payment.card && values.charge_card ? [[partner.pages.payment.chargecard_placeholder_text || t("billing.chargeCard"), values.charge_card] as [string, string]] : []),
    ...(options.partnerVariable && values.partner_variable ? [[partner.pages.login.contract_number || t("billing.partnerVariable"), values.partner_variable] as [string, string]] : []),
  ];
  return (
    <Box data-testid="billing-summary">
      <Typography variant="h3" sx={{ mb: 2 }}>
        {t("billing.summaryTitle")}
      </Typography>
      {/* A phone stacks each label over its value; wider screens use two columns whose value
          column can never shrink below the label's (minmax(0, ...) keeps long words from
          squeezing it to one character per line). */}
      <Box
        component="dl"
        sx={{ m: 0, display: "grid", gridTemplateColumns: { xs: "minmax(0, 1fr)", sm: "minmax(0, 2fr) minmax(0, 3fr)" }, columnGap: 2, rowGap: { xs: 0.25, sm: 1 } }}
      >
        {rows.map(([label, value]) => (
          <Box key={label} sx={{ display: "contents" }}>
            <Typography component="dt" sx={{ fontWeight: 700, mt: { xs: 1, sm: 0 }, overflowWrap: "anywhere" }}>
              {label}
            </Typography>
            <Typography component="dd" sx={{ m: 0, overflowWrap: "anywhere" }}>
              {value}
            </Typography>
          </Box>
        ))}
      </Box>
      {paymentText(partner) && (
        <Alert severity="info" role="note" sx={{ mt: 2 }}>
          {paymentText(partner)}
        </Alert>
      )}
      {children}
    </Box>
  );
}
