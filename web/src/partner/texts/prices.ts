/**
 * The texts of the partner's fee table ("Preise", issue 49) and of the warning while a payable
 * application has no price, merged into the partner area's bundle (i18n.ts).
 */
const de = {
  prices: {
    nav: "Preise",
    title: "Preise",
    intro:
      "Was ein Fahrzeughalter je Quotenjahr und Fahrzeugklasse ausgezahlt bekommt. Eine Änderung gilt für Anträge ab dem Speichern; jeder Antrag behält den Preis, mit dem er angelegt wurde.",
    readOnly: "Nur Partner-Admins können die Preise ändern.",
    version: "Version {{number}}",
    setup: "Preise aus der Einrichtung durch die Plattform",
    savedBy: "Gespeichert von {{who}} am {{when}}",
    year: "Quotenjahr",
    vehicleClass: "Fahrzeugklasse",
    privatePayout: "Auszahlung privat",
    businessNet: "Netto gewerblich",
    businessVat: "Umsatzsteuer gewerblich",
    vatPercentage: "USt.-Satz (%)",
    vatModes: { plus_vat: "zzgl. USt. bei USt.-Pflicht", net_only: "ohne USt." },
    bound: "Höchstens {{amount}}",
    addRow: "Zeile hinzufügen",
    removeRow: "Zeile {{row}} entfernen",
    note: "Anlass der Änderung (optional)",
    save: "Als neue Version speichern",
    saved: "Version {{number}} gespeichert.",
    unchanged: "Keine Änderung: Es wurde keine neue Version gespeichert.",
    empty: "Noch keine Preise hinterlegt.",
    reverseCharge:
      "Reverse-Charge: Gewerbliche Halter erhalten den Nettobetrag, die Umsatzsteuer schuldet der Partner.",
    versions: "Versionen",
    versionsEmpty: "Noch keine eigene Version gespeichert.",
    validFrom: "Gültig ab",
    fromStart: "von Anfang an",
    by: "Von",
    reason: "Anlass",
    count: "Preise",
    amountInvalid: "Bitte einen Betrag wie 85,00 angeben.",
    amountZero: "Der Betrag muss über 0,00 € liegen.",
    amountAbove: "Höchstens {{amount}} je Fahrzeug (Grenze der Plattform).",
    duplicate: "Für dieses Quotenjahr und diese Klasse gibt es schon eine Zeile.",
    yearInvalid: "Bitte ein Quotenjahr von 2020 bis 2100 angeben.",
    percentInvalid: "Bitte einen Prozentsatz von 0 bis 100 angeben.",
    missing: {
      title: "Anträge ohne Preis",
      text_one:
        "{{count}} zur Auszahlung freigegebener Antrag hat keinen Preis ({{groups}}). Er wird bei einem Abrechnungslauf ausgelassen, bis ein Preis hinterlegt ist.",
      text_other:
        "{{count}} zur Auszahlung freigegebene Anträge haben keinen Preis ({{groups}}). Sie werden bei einem Abrechnungslauf ausgelassen, bis ein Preis hinterlegt ist.",
      group: "{{year}} {{vehicleClass}}: {{count}}",
      link: "Zu den Preisen",
    },
  },
};

const en: typeof de = {
  prices: {
    nav: "Prices",
    title: "Prices",
    intro:
      "What a vehicle owner is paid per legislation year and vehicle class. A change applies to applications from when it is saved; each application keeps the price it was created with.",
    readOnly: "Only partner admins can change the prices.",
    version: "Version {{number}}",
    setup: "Prices set up by the platform",
    savedBy: "Saved by {{who}} on {{when}}",
    year: "Legislation year",
    vehicleClass: "Vehicle class",
    privatePayout: "Private payout",
    businessNet: "Business net",
    businessVat: "Business VAT",
    vatPercentage: "VAT rate (%)",
    vatModes: { plus_vat: "plus VAT if VAT-liable", net_only: "no VAT" },
    bound: "At most {{amount}}",
    addRow: "Add row",
    removeRow: "Remove row {{row}}",
    note: "Reason for the change (optional)",
    save: "Save as a new version",
    saved: "Version {{number}} saved.",
    unchanged: "No change: no new version was saved.",
    empty: "No prices yet.",
    reverseCharge: "Reverse charge: business owners are paid the net amount, the partner owes the VAT.",
    versions: "Versions",
    versionsEmpty: "No version of your own saved yet.",
    validFrom: "Valid from",
    fromStart: "from the start",
    by: "By",
    reason: "Reason",
    count: "Prices",
    amountInvalid: "Please enter an amount like 85.00.",
    amountZero: "The amount must be above € 0.00.",
    amountAbove: "At most {{amount}} per vehicle (the platform's bound).",
    duplicate: "There is already a row for this year and class.",
    yearInvalid: "Please enter a legislation year from 2020 to 2100.",
    percentInvalid: "Please enter a percentage from 0 to 100.",
    missing: {
      title: "Applications without a price",
      text_one:
        "{{count}} application released for payout has no price ({{groups}}). A settlement batch leaves it out until a price is set.",
      text_other:
        "{{count}} applications released for payout have no price ({{groups}}). A settlement batch leaves them out until a price is set.",
      group: "{{year}} {{vehicleClass}}: {{count}}",
      link: "Go to prices",
    },
  },
};

export const PRICES_TEXTS = { de, en };
