"""Error codes and texts of the partner area's operations calls (docs/partner-api.md): German
by default, English when the request's accept-language prefers it."""

from __future__ import annotations

from typing import Any

from common.i18n import Language

NAME_MISSING = "OPS001"  # a name is required
KEY_INVALID = "OPS002"  # referral / deal key: letters, digits, hyphen, 3-40
KEY_TAKEN = "OPS003"  # the key is used by another sub-partner / deal of this partner
EMAIL_INVALID = "OPS004"
PERCENT_INVALID = "OPS005"  # 0-100, two places
PRICE_INVALID = "OPS006"  # 0-99,999,999.99, two places
YEARS_INVALID = "OPS007"  # one or more years 2020-2100
CAP_INVALID = "OPS008"  # a whole number from 1, or null for no cap
CAP_BELOW_USED = "OPS009"  # the cap is below the vehicles the deal covers already
DEAL_UNKNOWN = "OPS010"  # the moves call names a single deal that does not exist
MOVE_BODY = "OPS011"  # the moves call needs either a status or a single_deal
APPLICATION_UNKNOWN = "OPS012"  # an id of the moves call that is not an application here
PRICE_OUT_OF_BOUNDS = "OPS013"  # a deal price outside the platform's bounds (common.payout_bounds)

MESSAGES: dict[str, tuple[str, str]] = {
    NAME_MISSING: ("Bitte geben Sie einen Namen ein.", "Please enter a name."),
    KEY_INVALID: (
        "Nur Buchstaben, Ziffern und Bindestrich, 3 bis 40 Zeichen.",
        "Letters, digits and hyphens only, 3 to 40 characters.",
    ),
    KEY_TAKEN: ("Dieser Schlüssel ist schon vergeben.", "This key is already taken."),
    EMAIL_INVALID: (
        "Bitte geben Sie eine gültige E-Mail-Adresse ein.",
        "Please enter a valid e-mail address.",
    ),
    PERCENT_INVALID: (
        "Bitte einen Prozentsatz von 0 bis 100 angeben.",
        "Please enter a percentage from 0 to 100.",
    ),
    PRICE_INVALID: ("Bitte einen Betrag ab 0,00 € angeben.", "Please enter an amount from € 0.00."),
    YEARS_INVALID: (
        "Bitte mindestens ein Quotenjahr zwischen 2020 und 2100 angeben.",
        "Please give at least one legislation year between 2020 and 2100.",
    ),
    CAP_INVALID: (
        "Bitte eine ganze Zahl ab 1 angeben oder das Feld leer lassen.",
        "Please enter a whole number from 1, or leave the field empty.",
    ),
    CAP_BELOW_USED: (
        "Der Vertrag deckt schon {used} Fahrzeuge ab.",
        "The deal already covers {used} vehicles.",
    ),
    DEAL_UNKNOWN: ("Diesen Einzelvertrag gibt es nicht.", "There is no such single deal."),
    MOVE_BODY: (
        "Bitte entweder einen Status oder einen Einzelvertrag angeben.",
        "Please give either a status or a single deal.",
    ),
    APPLICATION_UNKNOWN: ("Diesen Antrag gibt es nicht.", "There is no such application."),
    PRICE_OUT_OF_BOUNDS: (
        "Der Preis muss über 0,00 € und höchstens {ceiling} je Fahrzeug liegen (Grenze der Plattform).",
        "The price must be above € 0.00 and at most {ceiling} per vehicle (the platform's bound).",
    ),
}


def text(code: str, language: Language = "de", **values: Any) -> str:
    german, english = MESSAGES[code]
    chosen = english if language == "en" else german
    return chosen.format(**values) if values else chosen


class OperationsError(Exception):
    """Refused input: answered 400 {field: {"error_code", "message"}} (or {"detail"} without a
    field), the message in the request's language."""

    def __init__(self, code: str, *, field: str | None = None, **values: Any):
        self.code = code
        self.field = field
        self.values = values
        super().__init__(code)

    def body(self, language: Language) -> dict[str, Any]:
        message = text(self.code, language, **self.values)
        if self.field:
            return {self.field: {"error_code": self.code, "message": message}}
        return {"detail": message, "error_code": self.code}
