"""The text bundle: the spec's fixed German texts (English beside them) plus the partner's own.

Keys are flat and dotted (`welcome.start`). Partner texts from the configuration override
the defaults under the same key, so a screen reads one bundle whatever the partner.
"""

from __future__ import annotations

from typing import Any

from tenants.config_schema import PartnerConfig

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
    "error.IBAN001": "Ungültige IBAN",
    "error.IBAN002": "Ungültige IBAN",
    "error.ibanOther": "IBAN wurde nicht richtig eingegeben",
    "error.VAT001": "Ungültige USt. ID",
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
