"""E-mail rules of spec/registration-flow.md section 5, shared by every call that takes one."""

from __future__ import annotations

import re

# Local part of allowed characters, an @, domain labels of up to 63 characters.
EMAIL = re.compile(
    r"^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
    r"@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$"
)
EMOJI = re.compile(
    "[\U0001f000-\U0001faff\U00002600-\U000027bf\U0001f1e6-\U0001f1ff\U0000fe0f\U0000200d\U00002300-\U000023ff]"
)
REQUIRED = "Eingabe erforderlich."
INVALID_EMAIL = "Bitte geben Sie eine gültige E-Mail-Adresse ein."
NO_EMOJIS = "Bitte keine Emojis verwenden"


def contains_emoji(value: str) -> bool:
    return bool(EMOJI.search(value))


def email_normalise(value: str) -> str:
    value = (value or "").strip()
    if not value:
        raise ValueError(REQUIRED)
    if contains_emoji(value):
        raise ValueError(NO_EMOJIS)
    if len(value) > 254 or not EMAIL.match(value):
        raise ValueError(INVALID_EMAIL)
    return value.lower()
