"""The text bundle: the spec's fixed German texts (English beside them) plus the partner's own.

Keys are flat and dotted (`welcome.start`). Partner texts from the configuration override
the defaults under the same key, so a screen reads one bundle whatever the partner.
"""

from __future__ import annotations

from typing import Any

from common.partner_config import PartnerConfig

FIXED_DE: dict[str, str] = {
    "welcome.start": "Start",
    "welcome.faqLink": "Was steckt dahinter?",
    "welcomeDesktop.title": "Haben Sie ein Foto oder einen Scan Ihres Fahrzeugscheins auf diesem Computer?",
    "welcomeDesktop.continue": "Weiter auf Desktop-Computer",
    "welcomeDesktop.qrHint": "Oder scannen Sie den QR-Code, um mit Ihrem Smartphone fortzufahren.",
    "welcomeB2B.title": "In drei Schritten registrieren",
    "welcomeB2B.step1": "E-Mail-Adresse bestätigen",
    "welcomeB2B.step2": "Fahrzeugschein scannen oder hochladen",
    "welcomeB2B.step3": "Abschließen",
    "deactivated.title": "Service",
    "deactivated.text": "Diese Website ist nicht aktiv.",
    "common.next": "Weiter",
    "common.back": "Zurück",
    "common.required": "Eingabe erforderlich.",
    "common.noEmojis": "Bitte keine Emojis verwenden",
    "common.placeholderScreen": "Dieser Schritt wird gerade gebaut.",
    "terms.acceptRequired": "Akzeptieren ist erforderlich.",
    "terms.yearRequired": "Bitte wählen Sie mindestens ein Quotenjahr aus, um fortzufahren",
    "terms.periodRequired": "Bitte akzeptieren Sie den Zeitraum um fortzufahren.",
    "terms.currentYearTermsRequired": "Akzeptieren der AGB für das aktuelle Jahr ist erforderlich.",
    "terms.nextYearTermsRequired": "Akzeptieren der AGB für das nächste Jahr ist erforderlich.",
    "termsDetails.download": "Allgemeine Geschäftsbedingungen herunterladen",
    "privacyDetails.download": "Online-Datenschutzinformation herunterladen",
    "login.submit": "Login und weiter",
    "codeValidation.title": "Bestätigungscode",
    "codeValidation.text": "Geben Sie hier den per E-Mail versendeten Code ein.",
    "codeValidation.help": "Keine E-Mail erhalten? Überprüfen Sie bitte Ihren Spam-Ordner",
    "codeValidation.invalid": "Ungültiger Code",
    "tutorial.next": "Nächster Schritt",
    "tutorial.start": "Scan starten",
    "validation.title": "Fahrzeugschein erfolgreich registriert",
    "validation.more": "Weitere Fahrzeugscheine hochladen",
    "billing.edit": "Bearbeiten/Korrigieren",
    "impressum.title": "Impressum",
    "error.receivingData": "Error while receiving data",
    "error.uploadingData": "Error while uploading data",
    "error.upload": "Fehler beim Hochladen",
    "error.IMGC001": (
        "Die Bildauflösung muss größer als {min}x{min} Pixel sein. Insgesamt darf das Bild nicht "
        "mehr als {max} Pixel haben. Das hochgeladene Bild hat folgende Auflösung: {w}x{h} Pixel"
    ),
    "error.IMGC002": (
        "Dieses Bild konnte nicht als Zulassungsbescheinigung Teil 1. (Fahrzeugschein) identifiziert werden."
    ),
    "error.IMGC003": "Bild nicht als ZLB klassifiziert.",
    "error.scanUnknown": "Leider konnte unser Algorithmus keinen zulässigen Fahrzeugschein erkennen.",
    "error.uploadThrottled": "Zu viele Uploads in kurzer Zeit. Bitte versuchen Sie es in {minutes} Min. erneut.",
    "error.IMGC004": "Dieses Dateiformat wird nicht unterstützt. Bitte laden Sie ein Foto (JPG, PNG, WEBP, HEIC) oder ein PDF hoch.",
    "error.IMGC005": "Die Datei ist größer als 10 MB. Bitte laden Sie eine kleinere Datei hoch.",
    "error.IMGC006": "Die Datei ist beschädigt und konnte nicht gelesen werden.",
    "error.IMGC007": (
        "Der Fahrzeugschein ist auf diesem Foto zu unscharf, um die Angaben zu lesen. Bitte fotografieren Sie"
        " ihn noch einmal: flach hingelegt, bei gutem Licht, scharf und ganz im Bild."
    ),
    # The vehicle may not claim a quota (registrations.eligibility), read surely from the document.
    "error.IMGC008": (
        "Laut Fahrzeugschein (Feld 10 bzw. P.3) ist dieses Fahrzeug kein reines Elektrofahrzeug. Die THG-Quote"
        " gibt es nur für rein batterieelektrische Fahrzeuge, nicht für Hybride, Wasserstoff- oder Verbrennerfahrzeuge."
    ),
    "error.IMGC009": (
        "Zulassungsfreie Leichtfahrzeuge der Klassen L1e, L2e und L6e (z. B. E-Roller bis 45 km/h) erhalten"
        " seit 2023 keine THG-Quote mehr (38. BImSchV)."
    ),
    "error.IMGC010": (
        "Für diese Fahrzeugklasse (Feld J) gibt es keine THG-Quote. Quotenberechtigt sind die Klassen M1, M3,"
        " N1, N2, N3 sowie L3e, L4e, L5e und L7e."
    ),
    "error.IBAN001": "Ungültige IBAN",
    "error.IBAN002": "Ungültige IBAN",
    "error.ibanOther": "IBAN wurde nicht richtig eingegeben",
    "error.VAT001": "Ungültige USt. ID",
    "error.verifyEmail": "Error while receiving token",
    # Screen texts the spec leaves to us (German UI).
    "common.loading": "Wird geladen …",
    "common.toHome": "Zur Startseite",
    "common.restart": "Neu starten",
    "terms.title": "Teilnahmebedingungen",
    "terms.yearsHeading": "Für welches Quotenjahr möchten Sie Ihr Fahrzeug registrieren?",
    "terms.nextYearAgreed": "Ich akzeptiere die Allgemeinen Geschäftsbedingungen für das nächste Quotenjahr.",
    "terms.privacy": "Ich habe die Datenschutzinformation zur Kenntnis genommen.",
    "terms.showTerms": "AGB lesen",
    "terms.showNextYearTerms": "AGB für das nächste Jahr lesen",
    "terms.showPrivacy": "Datenschutzinformation lesen",
    "terms.faq": "Häufige Fragen",
    "termsDetails.title": "Allgemeine Geschäftsbedingungen",
    "privacyDetails.title": "Datenschutzinformation",
    "faq.title": "Häufige Fragen",
    "faq.empty": "Für diesen Partner sind noch keine Fragen hinterlegt.",
    "login.title": "Anmelden",
    "login.email": "E-Mail-Adresse",
    "login.tooSoon": "Bitte warten Sie {seconds} Sekunden, bevor Sie eine neue E-Mail anfordern.",
    "login.tooSoonOne": "Bitte warten Sie 1 Sekunde, bevor Sie eine neue E-Mail anfordern.",
    "confirm.title": "Bitte bestätigen Sie Ihre E-Mail-Adresse",
    "confirm.text": "Wir haben einen Bestätigungslink an {email} gesendet. Bitte öffnen Sie den Link in der E-Mail, um fortzufahren.",
    "confirm.help": "Keine E-Mail erhalten? Überprüfen Sie bitte Ihren Spam-Ordner oder starten Sie die Registrierung neu.",
    "verifyEmail.checking": "Ihre E-Mail-Adresse wird bestätigt …",
    "codeValidation.label": "Bestätigungscode",
    "codeValidation.submit": "Bestätigen",
    "tutorial.title": "So gelingt das Foto Ihres Fahrzeugscheins",
    "tutorial.step1": "Legen Sie den Fahrzeugschein (Zulassungsbescheinigung Teil I) aufgeklappt auf eine dunkle, ebene Fläche.",
    "tutorial.step2": "Sorgen Sie für gutes Licht und vermeiden Sie Schatten und Spiegelungen.",
    "tutorial.step3": "Halten Sie das Smartphone gerade über das Dokument, sodass alle vier Ecken zu sehen sind.",
    "tutorial.step4": "Prüfen Sie, dass alle Angaben gut lesbar sind, und starten Sie dann den Scan.",
    "upload.title": "Fahrzeugschein hochladen",
    "upload.text": "Laden Sie ein Foto oder einen Scan (JPG, PNG, HEIC oder PDF) der Vorderseite Ihrer Zulassungsbescheinigung Teil I hoch.",
    "upload.choose": "Datei auswählen",
    "upload.uploading": "Wird hochgeladen …",
    "upload.checking": "Dokument wird geprüft …",
    "upload.cancel": "Abbrechen",
    "upload.cancelled": "Der Upload wurde abgebrochen. Sie können eine andere Datei wählen.",
    "upload.retryHint": "Beim nächsten Versuch prüfen wir Ihr Dokument von Hand.",
    "billing.title": "Auszahlungsdaten",
    "billing.personal": "Persönliche Daten",
    "billing.gender": "Anrede",
    "billing.firstName": "Vorname",
    "billing.lastName": "Nachname",
    "billing.address": "Adresse",
    "billing.street": "Straße",
    "billing.streetNumber": "Hausnummer",
    "billing.postalCode": "PLZ",
    "billing.city": "Ort",
    "billing.ownerType": "Fahrzeughalter",
    "billing.private": "Privatperson",
    "billing.business": "Unternehmen",
    "billing.vatMandatory": "Ist Ihr Unternehmen umsatzsteuerpflichtig?",
    "billing.yes": "Ja",
    "billing.no": "Nein",
    "billing.businessName": "Name des Unternehmens",
    "billing.vatNumber": "USt.-ID oder Steuernummer",
    "billing.vatValid": "USt.-ID geprüft",
    "billing.paymentMethod": "Auszahlungsart",
    "billing.bank": "Bankkonto",
    "billing.chargeCard": "Ladekarte",
    "billing.accountName": "Kontoinhaber",
    "billing.iban": "IBAN",
    "billing.storedIban": "Ihre gespeicherte IBAN {iban} wird verwendet. Geben Sie eine neue ein, um sie zu ersetzen.",
    "billing.partnerVariable": "Vertragsnummer",
    "billing.review": "Angaben prüfen",
    "billing.summaryTitle": "Bitte prüfen Sie Ihre Angaben",
    "billing.submit": "Absenden",
    "billing.portalWait": "Einen Moment bitte, Sie werden zu Ihrem Kundenportal weitergeleitet …",
    "finish.redirectCountdown": "Sie werden in {seconds} Sekunden weitergeleitet.",
    "finish.redirectCountdownOne": "Sie werden in 1 Sekunde weitergeleitet.",
    "finish.redirectButton": "Weiter",
    "finish.quoteId": "Ihre Registrierungsnummer: {id}",
}

FIXED_EN: dict[str, str] = {
    "welcome.start": "Start",
    "welcome.faqLink": "What is behind it?",
    "welcomeDesktop.title": "Do you have a photo or scan of your vehicle registration on this computer?",
    "welcomeDesktop.continue": "Continue on desktop computer",
    "welcomeDesktop.qrHint": "Or scan the QR code to continue on your smartphone.",
    "welcomeB2B.title": "Register in three steps",
    "welcomeB2B.step1": "Confirm your e-mail address",
    "welcomeB2B.step2": "Scan or upload the registration document",
    "welcomeB2B.step3": "Complete",
    "deactivated.title": "Service",
    "deactivated.text": "This website is not active.",
    "common.next": "Next",
    "common.back": "Back",
    "common.required": "Input required.",
    "common.noEmojis": "Please do not use emojis",
    "common.placeholderScreen": "This step is being built.",
    "impressum.title": "Imprint",
}


def _partner_texts(config: PartnerConfig) -> dict[str, str]:
    welcome = config.pages.welcome
    return {
        "app.pageTitle": config.page_title,
        "app.detail": config.detail,
        "welcome.title": welcome.title,
        "welcome.register": welcome.register,
        "welcome.fourSteps": welcome.four_steps,
        "welcome.step1": welcome.step1,
        "welcome.step2": welcome.step2,
        "welcome.step3": welcome.step3,
        "welcome.step4": welcome.step4,
        "welcome.byLine": welcome.by_line,
        "wallbox.infoText": config.wallbox.info_text,
    }


# English holds only what differs from German: the app falls back to German per key, and
# the bundle travels with every config call.
EN_ONLY = {key: text for key, text in FIXED_EN.items() if FIXED_DE.get(key) != text}


def texts_for(config: PartnerConfig) -> dict[str, Any]:
    return {"de": {**FIXED_DE, **_partner_texts(config)}, "en": EN_ONLY}
