/**
 * GET /api/configs/{subdomain}/: the partner configuration (spec/registration-flow.md
 * section 3) plus the bundle compiled by the server's theme compiler. The zod schema is the
 * contract: the fixtures in src/test/fixtures are the compiler's own output.
 */
import { z } from "zod";

const documentPage = z.object({ text: z.string(), file: z.string().nullable() });

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
    headerImage: z.string().nullable(),
    headerInfoText: z.string(),
  }),
  font: z.object({ family: z.string(), package: z.string() }),
  assets: z.object({ logo: z.string().nullable(), favicon: z.string().nullable() }),
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
    tagManager: z.string().nullable(),
  }),
});

export const partnerConfigSchema = z
  .object({
    subdomain: z.string(),
    name: z.string(),
    kind: z.enum(["standard", "utility", "wallbox"]),
    frontend_active: z.boolean(),
    page_title: z.string(),
    logo: z.string().nullable(),
    favicon: z.string().nullable(),
    font_family: z.string(),
    gtm_id: z.string(),
    display_title_dot: z.boolean(),
    show_impressum: z.boolean(),
    impressum_details: z.string(),
    pages: z
      .object({
        welcome: z.object({ title: z.string(), register: z.string(), four_steps: z.string() }).passthrough(),
        termsdetails: documentPage,
        privacydetails: documentPage,
        next_year_termsdetails: documentPage,
        next_year_privacydetails: documentPage,
      })
      .passthrough(),
    colors: z.record(z.string(), z.string()),
    theme: themeBundleSchema,
  })
  .passthrough();

export type ThemeBundle = z.infer<typeof themeBundleSchema>;
export type PartnerConfig = z.infer<typeof partnerConfigSchema>;

export class ConfigNotFound extends Error {}

/** The subdomain is the first label of the host name (spec section 1). */
export function subdomainOf(hostname: string): string {
  return hostname.split(".")[0]?.toLowerCase() ?? "";
}

export async function fetchPartnerConfig(subdomain: string, signal?: AbortSignal): Promise<PartnerConfig> {
  // A plain call: no partner headers, JSON content type (spec section 7).
  const response = await fetch(`/api/configs/${encodeURIComponent(subdomain)}/`, {
    headers: { "Content-Type": "application/json", "Accept-Language": "de" },
    signal,
  });
  if (response.status === 404) throw new ConfigNotFound(subdomain);
  if (!response.ok) throw new Error(`config call failed with ${response.status}`);
  return partnerConfigSchema.parse(await response.json());
}
