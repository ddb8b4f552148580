/**
 * The audit log as a person reads it (issue 49): what was done, to what, and which fields changed
 * how, in the partner area's language, instead of the codes the server records
 * (`sub_partner.update`, `operations.subpartner`, `fee_share_percent: 10.00 → 12.50`). A code
 * without a text here is shown as it is (a new action shows up in the German-words e2e walk).
 */
import { useTranslation } from "react-i18next";

import { useFilterOptions } from "../api/applications";
import { dateTime, day, decimal } from "../lib/format";

type Texts = {
  actions: Record<string, string>;
  objects: Record<string, string>;
  fields: Record<string, string>;
  values: Record<string, string>;
  yes: string;
  no: string;
  entries: (n: number) => string;
};

const de: Texts = {
  actions: {
    "admin.add": "In der Verwaltung angelegt",
    "admin.change": "In der Verwaltung geändert",
    "admin.delete": "In der Verwaltung gelöscht",
    "api_key.create": "API-Schlüssel angelegt",
    "api_key.revoke": "API-Schlüssel widerrufen",
    "api_key.rotate": "API-Schlüssel erneuert",
    "audit.export": "Protokoll exportiert",
    "bulk_upload.create": "Massen-Upload hochgeladen",
    "bulk_upload.export": "Ergebnis eines Massen-Uploads exportiert",
    "bulk_upload.owner": "Halterdaten zu einem Scan erfasst",
    "bulk_upload.rollback": "Massen-Upload zurückgenommen",
    "client.self_billing_objection": "Widerspruch gegen die Gutschrift erfasst",
    "fee_table.update": "Preise geändert",
    "privacy.erasure": "Kundendaten gelöscht (Art. 17 DSGVO)",
    "quota_application.export": "Anträge exportiert",
    "quota_application.move": "Status geändert",
    "quota_application.reference": "Eigene Referenz gesetzt",
    "quota_application.single_deal": "Einzelvertrag zugeordnet",
    "registration.correct": "Gelesenes Feld korrigiert",
    "settlement.return_file": "Rückläuferdatei der Bank eingespielt",
    "settlement_batch.approve": "Abrechnungslauf freigegeben",
    "settlement_batch.create": "Abrechnungslauf angelegt",
    "settlement_batch.documents_download": "Belege eines Abrechnungslaufs heruntergeladen",
    "settlement_batch.mark_paid": "Abrechnungslauf als bezahlt markiert",
    "settlement_batch.sepa_download": "SEPA-Datei heruntergeladen",
    "settlement_item.fail": "Auszahlung als fehlgeschlagen markiert",
    "settlement_item.iban_correct": "IBAN einer Auszahlung korrigiert",
    "settlement_item.paid_confirm": "Auszahlung als doch ausgezahlt bestätigt",
    "settlement_item.remove": "Antrag aus dem Abrechnungslauf genommen",
    "settlement_item.requeue": "Auszahlung erneut freigegeben",
    "settlement_settings.update": "Freigabegrenze geändert",
    "single_deal.create": "Einzelvertrag angelegt",
    "single_deal.deactivate": "Einzelvertrag deaktiviert",
    "single_deal.delete": "Einzelvertrag gelöscht",
    "single_deal.update": "Einzelvertrag geändert",
    "staff.activate": "Mitarbeiter aktiviert",
    "staff.deactivate": "Mitarbeiter deaktiviert",
    "staff.digest_change": "Tagesübersicht per E-Mail umgestellt",
    "staff.invite": "Mitarbeiter eingeladen",
    "staff.invite_accept": "Einladung angenommen",
    "staff.invite_revoke": "Einladung zurückgezogen",
    "staff.role_change": "Rolle geändert",
    "staff.update": "Mitarbeiter geändert",
    "sub_partner.create": "Unterpartner angelegt",
    "sub_partner.deactivate": "Unterpartner deaktiviert",
    "sub_partner.delete": "Unterpartner gelöscht",
    "sub_partner.update": "Unterpartner geändert",
    "webhook.create": "Webhook angelegt",
    "webhook.delete": "Webhook gelöscht",
    "webhook.resend": "Webhook-Zustellung erneut gesendet",
    "webhook.test": "Webhook-Test gesendet",
  },
  objects: {
    "accounts.user": "Benutzer",
    "billing.client": "Halter",
    "integrations.apikey": "API-Schlüssel",
    "integrations.webhookdelivery": "Webhook-Zustellung",
    "integrations.webhookendpoint": "Webhook",
    "operations.bulkupload": "Massen-Upload",
    "operations.settlementbatch": "Abrechnungslauf",
    "operations.settlementitem": "Auszahlung",
    "operations.settlementsettings": "Abrechnungseinstellungen",
    "operations.singledeal": "Einzelvertrag",
    "operations.subpartner": "Unterpartner",
    "privacy.erasurerequest": "Löschantrag",
    "quota.feetableversion": "Preistabelle",
    "quota.quotaapplication": "Antrag",
    "registrations.bevregistration": "Registrierung",
    "staff.auditentry": "Protokoll",
    "staff.staffinvite": "Einladung",
    "staff.staffmember": "Mitarbeiter",
    single_deal: "Einzelvertrag",
    sub_partner: "Unterpartner",
  },
  fields: {
    action: "Aktion",
    active: "Aktiv",
    actor: "Wer",
    application: "Antrag",
    approval_threshold: "Freigabegrenze",
    code: "Feld",
    contact_email: "E-Mail",
    contact_name: "Ansprechpartner",
    contact_phone: "Telefon",
    count: "Anzahl",
    created_from: "Von",
    created_to: "Bis",
    customer: "Kunde",
    deal_key: "Vertragsschlüssel",
    digest_enabled: "Tagesübersicht",
    email: "E-Mail",
    events: "Ereignisse",
    execution_date: "Ausführungstag",
    expires_at: "Gültig bis",
    failure_reason: "Grund",
    fee_share_percent: "Provision in %",
    format: "Format",
    iban: "IBAN",
    is_active: "Aktiv",
    key: "Schlüssel",
    legislation_year: "Quotenjahr",
    legislation_years: "Jahre",
    name: "Name",
    note: "Notiz",
    object_type: "Objekt",
    price_net: "Preis netto",
    q: "Suche",
    reason: "Begründung",
    reference: "Referenz",
    referral_key: "Empfehlungsschlüssel",
    revoked_at: "Widerrufen am",
    role: "Rolle",
    rows: "Preise",
    scope: "Berechtigung",
    status: "Status",
    sub_partner: "Unterpartner",
    url: "Adresse",
    value: "Wert",
    vat_percent: "MwSt. in %",
    vehicle_cap: "Höchstzahl Fahrzeuge",
    vehicle_class: "Fahrzeugklasse",
    version: "Version",
  },
  values: { read: "Lesen", write: "Lesen und schreiben", csv: "CSV", xlsx: "Excel (XLSX)" },
  yes: "Ja",
  no: "Nein",
  entries: (n) => (n === 1 ? "1 Eintrag" : `${n} Einträge`),
};

const en: Texts = {
  actions: Object.fromEntries(
    Object.keys(de.actions).map((code) => {
      const [object, verb] = code.split(".");
      return [code, `${object.replace(/_/g, " ")}: ${verb.replace(/_/g, " ")}`];
    }),
  ),
  objects: Object.fromEntries(
    Object.keys(de.objects).map((code) => [code, (code.split(".").pop() ?? code).replace(/_/g, " ")]),
  ),
  fields: Object.fromEntries(Object.keys(de.fields).map((key) => [key, key.replace(/_/g, " ")])),
  values: { read: "Read", write: "Read and write", csv: "CSV", xlsx: "Excel (XLSX)" },
  yes: "Yes",
  no: "No",
  entries: (n) => (n === 1 ? "1 entry" : `${n} entries`),
};

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;
const DECIMAL = /^-?\d+\.(\d+)$/;

/** The audit log's texts and its change description in the partner area's language. */
export function useAuditTexts() {
  const { t, i18n } = useTranslation();
  const language = i18n.language;
  const texts = language === "en" ? en : de;
  const statuses = new Map((useFilterOptions().data?.statuses ?? []).map((item) => [item.value, item.label]));

  const value = (item: unknown): string => {
    if (item === undefined || item === null || item === "") return "–";
    if (typeof item === "boolean") return item ? texts.yes : texts.no;
    if (typeof item === "number") return decimal(item, language, Number.isInteger(item) ? 0 : 2);
    if (Array.isArray(item)) {
      return item.every((each) => each === null || typeof each !== "object")
        ? item.map(value).join(", ")
        : texts.entries(item.length);
    }
    if (typeof item === "object") return texts.entries(Object.keys(item).length);
    const text = String(item);
    if (text.startsWith("qa_") && statuses.has(text)) return statuses.get(text) ?? text;
    if (["partner_admin", "back_office", "viewer"].includes(text)) return t(`roles.${text}`);
    if (texts.values[text]) return texts.values[text];
    if (texts.actions[text]) return texts.actions[text];
    if (ISO_TIME.test(text)) return dateTime(text, language);
    if (ISO_DAY.test(text)) return day(text, language);
    const number = DECIMAL.exec(text);
    if (number) return decimal(text, language, number[1].length);
    return text;
  };

  const options = (names: Record<string, string>) =>
    Object.entries(names)
      .map(([code, label]) => ({ value: code, label }))
      .sort((a, b) => a.label.localeCompare(b.label, language));

  return {
    /** The filters' choices: every action and object type by its name, the code as the value. */
    actionOptions: options(texts.actions),
    // "sub_partner" and "single_deal" are older entries' object types, named like the model's
    objectOptions: options(Object.fromEntries(Object.entries(texts.objects).filter(([code]) => code.includes(".")))),
    action: (code: string) => texts.actions[code] ?? code,
    object: (type: string, id: string) => `${texts.objects[type] ?? type}${id ? ` #${id}` : ""}`,
    /** "field: before → after" for the fields that differ, each field by its name. */
    change: (before: unknown, after: unknown): string => {
      const old = (before && typeof before === "object" ? before : {}) as Record<string, unknown>;
      const now = (after && typeof after === "object" ? after : {}) as Record<string, unknown>;
      return [...new Set([...Object.keys(old), ...Object.keys(now)])]
        .filter((key) => JSON.stringify(old[key]) !== JSON.stringify(now[key]))
        .map((key) => `${texts.fields[key] ?? key}: ${value(old[key])} → ${value(now[key])}`)
        .join("; ");
    },
  };
}
