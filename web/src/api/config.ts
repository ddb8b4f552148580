/**
 * GET /api/configs/{subdomain}/: the partner configuration (spec/registration-flow.md
 * section 3) plus the bundle compiled by the server's theme compiler. The zod schema is the
 * contract: the fixtures in src/test/fixtures are the compiler's own output.
 */
// zod's mini build (tree-shaken functions, not methods): this file is on the first screen, where
// the classic build cost about 12 KB gzipped (tests/web/test_delivery.py's 170 KB budget).
import * as z from "zod/v4-mini";

// No code generation: zod 4 otherwise tries `new Function` to see whether it may compile its
// parsers, and the site's CSP (no unsafe-eval) answers with a violation that Chromium logs as an
// issue (Lighthouse's best practices: tests/e2e/test_lighthouse.py).
z.config({ jitless: true });

const documentPage = z.object({ text: z.string(), file: z.nullable(z.string()) });
const logoSize = z.object({ width: z.number(), height: z.number(), textPx: z.number() });
const adSize = z.object({
  maxHeight: z.number(),
  largestTextPx: z.number(),
  smallestTextPx: z.nullable(z.number()),
  // the smallest text at least 12 px where drawn; null: not measured (a raster image)
  legible: z.nullable(z.boolean()),
});

export const themeBundleSchema = z.object({
  version: z.string(),
  kind: z.enum(["standard", "utility", "wallbox"]),
  mui: z.record(z.string(), z.unknown()),
  tokens: z.object({
    gradient: z.string(),
    button: z.string(),
    buttonText: z.string(),
    circle: z.string(),
    text: z.string(),
    inputBorder: z.string(),
    desktopBox: z.string(),
    desktopButton: z.string(),
    itemAlignment: z.enum(["left", "center", "right"]),
    titleDot: z.boolean(),
    titleStyle: z.enum(["default", "utility"]),
    headerImage: z.nullable(z.string()),
    headerInfoText: z.string(),
  }),
  font: z.object({ family: z.string(), package: z.string() }),
  assets: z.object({
    logo: z.nullable(z.string()),
    favicon: z.nullable(z.string()),
    // The logo's size per viewport, chosen by the compiler so its text is legible (themes.logo).
    logoBox: z.nullable(
      z.object({
        aspect: z.number(),
        textShare: z.number(),
        wide: z.boolean(),
        showName: z.boolean(),
        phone: logoSize,
        desktop: logoSize,
      }),
    ),
    // The advertisement image's height bound by the page title's size (themes.logo).
    adBanner: z.nullable(
      z.object({
        aspect: z.number(),
        textShare: z.number(),
        smallestShare: z.nullable(z.number()),
        phone: adSize,
        desktop: adSize,
      }),
    ),
  }),
  texts: z.object({ de: z.record(z.string(), z.string()), en: z.record(z.string(), z.string()) }),
  flags: z.object({
    isUtility: z.boolean(),
    isWallbox: z.boolean(),
    providerBranded: z.boolean(),
    authenticationFlow: z.enum(["link", "otp"]),
    privateBusinessRegistration: z.boolean(),
    showGenderOption: z.boolean(),
    genderOption: z.number(),
    showImpressum: z.boolean(),
    showDataPrivacy: z.boolean(),
    endUserPortal: z.boolean(),
    showClientFee: z.boolean(),
    paymentOption: z.string(),
    multipleUploads: z.boolean(),
    finishCountdown: z.boolean(),
    tagManager: z.nullable(z.string()),
  }),
});

const paymentOption = z.enum(["NONE", "BANK", "CHARGECARD", "BANKORCHARGECARD", "BANKANDOPTIONALCHARGECARD"]);

export const partnerConfigSchema = z.looseObject({
  subdomain: z.string(),
  name: z.string(),
  kind: z.enum(["standard", "utility", "wallbox"]),
  frontend_active: z.boolean(),
  // Set only on a console preview link's answer (tenants.preview): the page shows "Vorschau".
  preview: z.optional(z.boolean()),
  page_title: z.string(),
  logo: z.nullable(z.string()),
  favicon: z.nullable(z.string()),
  font_family: z.string(),
  gtm_id: z.string(),
  display_title_dot: z.boolean(),
  show_impressum: z.boolean(),
  impressum_details: z.string(),
  authentication_flow: z.enum(["link", "otp"]),
  enable_private_business_registration: z.boolean(),
  show_gender_option: z.boolean(),
  gender_option: z.number(),
  end_user_portal_enable: z.boolean(),
  show_data_privacy: z.boolean(),
  data_privacy_text: z.string(),
  show_client_fee_euro_amount: z.boolean(),
  display_vat: z.boolean(),
  partneradvertisement: z.object({
    id: z.nullable(z.number()),
    type: z.enum(["image", "freetext", "text"]),
    freetext: z.string(),
    image: z.nullable(z.string()),
    url: z.string(),
    enabled: z.boolean(),
    // the text advertisement (type text), absent from configurations saved before it
    headline: z._default(z.string(), ""),
    text: z._default(z.string(), ""),
    button_label: z._default(z.string(), ""),
  }),
  faq_youtube_video_link: z.string(),
  pages: z.looseObject({
    welcome: z.looseObject({ title: z.string(), register: z.string(), four_steps: z.string() }),
    faq: z.array(z.looseObject({ question: z.string(), answer: z.string() })),
    login: z.object({
      intro: z.string(),
      contract_number: z.string(),
      invalid_login: z.string(),
      display_partner_variable: z.boolean(),
    }),
    terms: z.object({
      agreed: z.string(),
      display_checkbox_free_text_permission: z.boolean(),
      free_text_permission_text: z.string(),
      make_free_text_mandatory: z.boolean(),
      tnc_title: z.string(),
      show_email_promotions_flag: z.boolean(),
      email_promotions_text: z.string(),
      fly_out_text: z.string(),
    }),
    termsdetails: documentPage,
    privacydetails: documentPage,
    next_year_termsdetails: documentPage,
    next_year_privacydetails: documentPage,
    finish: z.object({
      text: z.string(),
      title: z.string(),
      countdown_seconds: z.number(),
      is_auto_redirect_enabled: z.boolean(),
      is_button_redirect_enabled: z.boolean(),
      redirect_url: z.string(),
    }),
    payment: z.looseObject({
      payment_option: paymentOption,
      title: z.string(),
      text_details: z.string(),
      input_field_text: z.string(),
      chargecard_placeholder_text: z.string(),
      client_detail_label: z.string(),
      text_for_bank: z.string(),
      text_for_chargecard: z.string(),
      text_for_bank_or_chargecard: z.string(),
      text_for_bank_and_optional_chargecard: z.string(),
      placeholder_payment_option: z.string(),
      placeholder_first_name: z.string(),
      placeholder_last_name: z.string(),
    }),
  }),
  qa_create_choices: z.object({
    current_year: z.boolean(),
    next_year: z.boolean(),
    current_year_title: z.string(),
    current_year_subtext: z.string(),
    next_year_title: z.string(),
    next_year_subtext: z.string(),
    no_allowed_registration_years_message: z.string(),
    no_price_available: z.string(),
    placeholder_message: z.string(),
  }),
  colors: z.record(z.string(), z.string()),
  // The quota years open on the day (the server's calendar); absent in Storybook's fixtures.
  quota_years: z.optional(
    z.object({
      today: z.string(),
      open_years: z.array(z.object({ year: z.number(), open_until: z.string(), days_left: z.nullable(z.number()) })),
    }),
  ),
  theme: themeBundleSchema,
});

export type ThemeBundle = z.infer<typeof themeBundleSchema>;
export type PartnerConfig = z.infer<typeof partnerConfigSchema>;

export class ConfigNotFound extends Error {}

/** The subdomain is the first label of the host name (spec section 1). */
export function subdomainOf(hostname: string): string {
  return hostname.split(".")[0]?.toLowerCase() ?? "";
}

/** This site's partner: named by the server in index.html (a custom domain such as
 * thg.stadtwerke.example has no subdomain in its name), else the host's first label. */
export function currentSubdomain(doc: Document = document, hostname: string = window.location.hostname): string {
  const named = doc.querySelector<HTMLMetaElement>('meta[name="thg-partner"]')?.content.trim().toLowerCase();
  return named || subdomainOf(hostname);
}

/** The configuration call boot.ts started while the app's scripts loaded, if it asked for
 * this URL; taken once (a later load asks again). */
export function takeEarlyConfigCall(url: string, win: Window = window): Promise<Response> | undefined {
  const early = win.thgConfigCall;
  win.thgConfigCall = null; // asked: boot.ts, if it runs after all, asks no more
  return early && early.url === url ? early.response : undefined;
}

export async function fetchPartnerConfig(subdomain: string, signal?: AbortSignal): Promise<PartnerConfig> {
  // A console preview link's token goes along (boot.ts sends the same): the console frames the
  // preview beside its form, and a framed page on another site gets no cookie.
  const preview = new URLSearchParams(window.location.search).get("thg_preview");
  const url =
    `/api/configs/${encodeURIComponent(subdomain)}/` + (preview ? `?thg_preview=${encodeURIComponent(preview)}` : "");
  // A plain call: no partner headers, JSON content type (spec section 7); boot.ts sends the same.
  const response = await (takeEarlyConfigCall(url) ??
    fetch(url, { headers: { "Content-Type": "application/json", "Accept-Language": "de" }, signal }));
  if (response.status === 404) throw new ConfigNotFound(subdomain);
  if (!response.ok) throw new Error(`config call failed with ${response.status}`);
  return partnerConfigSchema.parse(await response.json());
}
