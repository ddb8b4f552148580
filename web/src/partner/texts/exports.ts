/**
 * The texts of the exports and notices (issue 49): XLSX beside CSV, the upload dialog's template
 * and quota year, the sub-partner link's QR code, the daily mail digest switch. Kept beside the
 * area's bundle (i18n.ts) and picked by the area's language (useExportTexts).
 */
import { useTranslation } from "react-i18next";

const de = {
  xlsx: "Excel (XLSX)",
  csv: "CSV",
  applicationsXlsx: "Excel (XLSX)",
  auditExport: "Protokoll exportieren",
  auditCsv: "Protokoll (CSV)",
  auditXlsx: "Protokoll (Excel)",
  resultsCsv: "Ergebnis (CSV)",
  resultsXlsx: "Ergebnis (Excel)",
  statementXlsx: "Abrechnung (Excel)",
  template: "CSV-Vorlage herunterladen",
  templateHelp: "Die Vorlage enthält alle Spalten der Halterdaten und eine Beispielzeile.",
  year: "Quotenjahr",
  yearHelp: "Nur Jahre, für die heute noch Anträge angenommen werden.",
  noYear: "Für kein Quotenjahr werden derzeit Anträge angenommen.",
  qr: "QR-Code",
  qrOf: "QR-Code und Link von {{name}}",
  qrTitle: "Empfehlungslink von {{name}}",
  qrText: "Zum Ausdrucken: Wer den Code scannt, landet mit diesem Empfehlungslink auf Ihrer Seite.",
  qrPng: "PNG herunterladen",
  qrSvg: "SVG herunterladen",
  copy: "Link kopieren",
  copied: "Link kopiert",
  close: "Schließen",
  account: "Mein Konto",
  accountOf: "Mein Konto: {{name}}",
  digest: "Tagesübersicht per E-Mail",
  digestHelp:
    "Einmal am Tag: neue Anträge, abgeschlossene Sammel-Uploads, Antworten des Umweltbundesamts und fehlgeschlagene Auszahlungen des Vortags. Nur wenn etwas geschehen ist.",
  digestOn: "Die Tagesübersicht ist eingeschaltet.",
  digestOff: "Die Tagesübersicht ist ausgeschaltet.",
  saveFailed: "Das hat nicht geklappt. Bitte versuchen Sie es erneut.",
};

const en: typeof de = {
  xlsx: "Excel (XLSX)",
  csv: "CSV",
  applicationsXlsx: "Excel (XLSX)",
  auditExport: "Export log",
  auditCsv: "Log (CSV)",
  auditXlsx: "Log (Excel)",
  resultsCsv: "Results (CSV)",
  resultsXlsx: "Results (Excel)",
  statementXlsx: "Statement (Excel)",
  template: "Download CSV template",
  templateHelp: "The template has every owner data column and one example row.",
  year: "Quota year",
  yearHelp: "Only years still open for applications today.",
  noYear: "No quota year is open for applications at the moment.",
  qr: "QR code",
  qrOf: "QR code and link of {{name}}",
  qrTitle: "Referral link of {{name}}",
  qrText: "To print: whoever scans the code reaches your site with this referral link.",
  qrPng: "Download PNG",
  qrSvg: "Download SVG",
  copy: "Copy link",
  copied: "Link copied",
  close: "Close",
  account: "My account",
  accountOf: "My account: {{name}}",
  digest: "Daily e-mail summary",
  digestHelp:
    "Once a day: the previous day's new applications, finished bulk uploads, the authority's answers and failed payouts. Only when something happened.",
  digestOn: "The daily summary is on.",
  digestOff: "The daily summary is off.",
  saveFailed: "That did not work. Please try again.",
};

export const EXPORT_TEXTS = { de, en };
export type ExportText = keyof typeof de;

/** `x("key", {name})`: the text in the area's current language, {{placeholders}} filled in. */
export function useExportTexts(): (key: ExportText, values?: Record<string, string | number>) => string {
  const { i18n } = useTranslation();
  const texts = i18n.language?.startsWith("en") ? en : de;
  return (key, values = {}) => texts[key].replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(values[name] ?? ""));
}
