"""E-mail rules of spec/registration-flow.md section 5, shared by every call that takes one."""

from __future__ import annotations

import re

from common.text import contains_emoji

# Local part of allowed characters, an @, domain labels of up to 63 characters.
EMAIL = re.compile(
    r"^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
    r"@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$"
)
REQUIRED = "Eingabe erforderlich."
INVALID_EMAIL = "Bitte geben Sie eine gültige E-Mail-Adresse ein."
NO_EMOJIS = "Bitte keine Emojis verwenden"


def email_normalise(value: str) -> str:
    value = (value or "").strip()
    if not value:
        raise ValueError(REQUIRED)
    if contains_emoji(value):
        raise ValueError(NO_EMOJIS)
    if len(value) > 254 or not EMAIL.match(value):
        raise ValueError(INVALID_EMAIL)
    return value.lower()
