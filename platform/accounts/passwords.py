"""The portal's password rules (spec/customer-portal.md section 5), checked on the server."""

from __future__ import annotations

import re

from common.i18n import Language

SPECIALS = "~!@#$%^&*()_+{}\":;'[]"
MIN_LENGTH = 8
_ALLOWED = re.compile(r"^[A-Za-z0-9" + re.escape(SPECIALS) + r"]*$")

TEXTS: dict[Language, dict[str, str]] = {
    "de": {
        "required": "Neues Passwort ist erforderlich",
        "length": "Das neue Passwort muss mindestens 8 Zeichen lang sein",
        "pattern": (
            "Das Passwort braucht einen Klein- und einen Großbuchstaben, eine Ziffer und ein Sonderzeichen "
            f"aus {SPECIALS}; andere Zeichen sind nicht erlaubt"
        ),
        "again_required": "Passwort wiederholen ist erforderlich",
        "match": "Neues Passwort und wiederholtes Passwort müssen übereinstimmen",
    },
    "en": {
        "required": "New password is required",
        "length": "New password must be at least 8 characters",
        "pattern": (
            "The password needs a lower-case and an upper-case letter, a digit and a special character "
            f"from {SPECIALS}; no other characters are allowed"
        ),
        "again_required": "Retype password is required",
        "match": "New password and retype password should match",
    },
}


def password_errors(
    password: str, password_again: str | None, language: Language = "de"
) -> dict[str, list[str]]:
    """Field errors for a new password (and its retype, when the form has one)."""
    texts = TEXTS[language]
    errors: dict[str, list[str]] = {}
    if not password:
        errors["password"] = [texts["required"]]
    else:
        found = []
        if len(password) < MIN_LENGTH:
            found.append(texts["length"])
        if not (
            _ALLOWED.match(password)
            and re.search(r"[a-z]", password)
            and re.search(r"[A-Z]", password)
            and re.search(r"[0-9]", password)
            and any(char in SPECIALS for char in password)
        ):
            found.append(texts["pattern"])
        if found:
            errors["password"] = found
    if password_again is not None:
        if not password_again:
            errors["password_again"] = [texts["again_required"]]
        elif password_again != password:
            errors["password_again"] = [texts["match"]]
    return errors
