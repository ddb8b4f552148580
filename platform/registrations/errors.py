"""Scan error codes. IMGC001-003 are the spec's (section 8); the rest are ours, for input
the spec's flow never sends but a client can."""

from __future__ import annotations

from typing import Any

SIZE = "IMGC001"  # too small or too many pixels; details.given_width / given_height
NOT_A_ZLB = "IMGC002"  # readable, but not a Zulassungsbescheinigung Teil I
NOT_CLASSIFIABLE = "IMGC003"  # too little to read to classify it
UNSUPPORTED_TYPE = "IMGC004"  # not JPEG, PNG, WEBP, HEIC or PDF (by content, not by name)
FILE_TOO_LARGE = "IMGC005"  # over 10 MB
DAMAGED = "IMGC006"  # claims a type but cannot be read (broken, encrypted or empty PDF)
ILLEGIBLE = "IMGC007"  # a ZB I, but its printed values are too blurred or faint to read (reader.LEGIBLE)
# A ZB I the reader read surely, of a vehicle that may not claim a quota (registrations.eligibility;
# details name the value read). The German texts are the bundle's error.<code> (themes.texts).
NOT_ELECTRIC = "IMGC008"  # field 10 not 0004: a combustion engine, hybrid or fuel cell; details.energy_code
EXEMPT_CLASS = "IMGC009"  # registration-exempt L1e, L2e, L6e (no quota since 2023); details.vehicle_class
CLASS_NOT_ELIGIBLE = "IMGC010"  # a class without credited energy (M2, O1-O4, ...); details.vehicle_class
# Answered 429 {"detail", "error_code"} with Retry-After: too many uploads from this token's
# owner or this client address in the window.
UPLOAD_THROTTLED = "UPLOAD001"
UPLOAD_THROTTLED_MESSAGE = "Zu viele Uploads. Bitte versuchen Sie es später erneut."
# Answered 503 {"detail", "error_code"} with Retry-After: the document check is busy with other
# uploads (registrations.ocr_pool); nothing of the upload was kept.
CHECK_BUSY = "UPLOAD002"
CHECK_BUSY_MESSAGE = (
    "Die Dokumentenprüfung ist gerade ausgelastet. Bitte versuchen Sie es in wenigen Sekunden erneut."
)


class ScanRejected(Exception):
    def __init__(self, code: str, details: dict[str, Any] | None = None):
        self.code = code
        self.details = details or {}
        super().__init__(code)


# A back-office correction of a field the reader read (registrations.services.
# registration_field_correct): 400 {"field" | "value": {"error_code", "message"}}.
CORRECTION_FIELD = "READ001"  # not one of the reader's field codes
CORRECTION_EMPTY = "READ002"  # no value
CORRECTION_VIN = "READ003"  # not a VIN: alphabet, length, region, serial or check digit
CORRECTION_DATE = "READ004"  # not a date (dd.mm.yyyy or yyyy-mm-dd)
CORRECTION_DATE_ORDER = "READ005"  # B <= I <= today, none before 1950
CORRECTION_CLASS = "READ006"  # not a vehicle class of the list (M1, N1, L3e, ...)
CORRECTION_ENERGY = "READ007"  # not a code of the KBA list (0000-0040)
CORRECTION_PLATE = "READ008"  # not a German registration plate
CORRECTION_MAKER_KEY = "READ009"  # not four digits
CORRECTION_TEXT = "READ010"  # too long or characters the form does not print
CORRECTION_CHECK_DIGIT = "READ011"  # field 3: not a digit or X, or not the VIN's KBA check digit

CORRECTION_MESSAGES: dict[str, tuple[str, str]] = {
    CORRECTION_FIELD: ("Dieses Feld gibt es nicht.", "There is no such field."),
    CORRECTION_EMPTY: ("Bitte geben Sie einen Wert ein.", "Please enter a value."),
    CORRECTION_VIN: (
        "Keine gültige FIN: 17 Zeichen ohne I, O und Q, mit passender Prüfziffer.",
        "Not a valid VIN: 17 characters without I, O and Q, with a matching check digit.",
    ),
    CORRECTION_DATE: (
        "Bitte geben Sie ein Datum als TT.MM.JJJJ ein.",
        "Please enter a date as DD.MM.YYYY.",
    ),
    CORRECTION_DATE_ORDER: (
        "Das Datum passt nicht: Erstzulassung (B) ≤ Zulassung (I) ≤ heute, nicht vor 1950.",
        "The date does not fit: first registration (B) ≤ registration (I) ≤ today, not before 1950.",
    ),
    CORRECTION_CLASS: (
        "Keine Fahrzeugklasse der Liste (z. B. M1, N1, L3e).",
        "Not a vehicle class of the list (e.g. M1, N1, L3e).",
    ),
    CORRECTION_ENERGY: (
        "Kein Code der Kraftstoffliste (vier Ziffern, 0000 bis 0040; Elektro: 0004).",
        "Not a code of the fuel list (four digits, 0000 to 0040; electric: 0004).",
    ),
    CORRECTION_PLATE: (
        "Kein gültiges Kennzeichen (z. B. B-AB 1234E).",
        "Not a valid plate (e.g. B-AB 1234E).",
    ),
    CORRECTION_MAKER_KEY: (
        "Die Herstellerschlüsselnummer hat vier Ziffern.",
        "The maker key has four digits.",
    ),
    CORRECTION_TEXT: (
        "Zu lang oder mit Zeichen, die der Fahrzeugschein nicht druckt.",
        "Too long, or characters the registration document does not print.",
    ),
    CORRECTION_CHECK_DIGIT: (
        "Die Prüfziffer (Feld 3) ist eine Ziffer oder X und muss zur FIN passen.",
        "The check digit (field 3) is a digit or X and must match the VIN.",
    ),
}


class CorrectionRefused(Exception):
    """A correction the reader's own rules refuse; `field` names the input that is wrong."""

    def __init__(self, code: str, field: str = "value"):
        self.code = code
        self.field = field
        super().__init__(code)

    def body(self, language: str) -> dict[str, Any]:
        german, english = CORRECTION_MESSAGES[self.code]
        return {self.field: {"error_code": self.code, "message": english if language == "en" else german}}
