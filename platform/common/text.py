"""The characters a client may send in a text field, shared by every API input.

Two rules, one message each (spec/registration-flow.md section 5 asks for 'Bitte keine Emojis
verwenden' in the billing block; we apply it everywhere):

- no invisible or unprintable characters: control characters (Cc: NUL, BEL, ESC; line breaks
  only in multi-line fields), format characters (Cf: bidi overrides such as U+202E that turn
  a name around on screen, zero-width joiners, BOM), lone surrogates (Cs: they cannot be
  encoded to UTF-8, so they would fail deep in the database or the password hasher),
  private-use (Co) and unassigned code points (Cn, including the noncharacters U+FFFE/FFFF),
  and the line/paragraph separators U+2028/U+2029;
- no emoji: every Extended_Pictographic code point of the `regex` package's Unicode data
  (newer than the interpreter's), skin-tone modifiers, regional indicators (flags), the
  emoji/text variation selectors U+FE0F/U+FE0E, the keycap U+20E3 and tag characters.
  © ® ™ are Extended_Pictographic too, but in their text form they are ordinary in company
  and product names, so they pass; their emoji form carries U+FE0F and is refused.

Passwords follow a looser rule (`Password`): anything printable, emoji included, because a
password manager may generate it and it is never shown; only Cc and Cs are refused, since
they break hashing (lone surrogates) or storage and logs (NUL).

Use `CleanText` (single line), `CleanMultiline` or `Password` as the type of a pydantic/ninja
schema field; endpoints that read a form by hand call `form_text_check`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Annotated, Any

import regex
from pydantic import BeforeValidator

from common.errors import FieldError

INVALID_CHARACTERS = "Dieses Feld enthält unzulässige Zeichen."
NO_EMOJIS = "Bitte keine Emojis verwenden"

# Every emoji building block; the text forms of © ® ™ are allowed (see above).
_EMOJI = regex.compile(
    r"(?:(?![\u00a9\u00ae\u2122])\p{Extended_Pictographic})"
    r"|\p{Emoji_Modifier}|\p{Regional_Indicator}|[\ufe0e\ufe0f\u20e3]|[\U000e0020-\U000e007f]"
)
_UNSAFE = regex.compile(r"[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\u2028\u2029]")
_UNSAFE_MULTILINE = regex.compile(r"(?![\t\n\r])[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\u2028\u2029]")
_UNSAFE_PASSWORD = regex.compile(r"[\p{Cc}\p{Cs}]")


def contains_emoji(value: str) -> bool:
    return bool(_EMOJI.search(value))


def text_problem(value: str, *, multiline: bool = False) -> str | None:
    """The message for a text a client may not send, or None when it is fine."""
    # Emoji first: a ZWJ sequence (family) is an emoji to the user, not a control character.
    if _EMOJI.search(value):
        return NO_EMOJIS
    if (_UNSAFE_MULTILINE if multiline else _UNSAFE).search(value):
        return INVALID_CHARACTERS
    return None


def text_clean(value: str) -> str:
    """Text that came from elsewhere (a file an authority sent), made to pass the same rules as
    a client's field instead of being refused: markup, emoji and every character text_problem
    refuses (bidi overrides, control characters, ...) taken out, white space collapsed."""
    from django.utils.html import strip_tags

    text = _EMOJI.sub("", strip_tags(value))
    text = regex.sub(r"[\t\n\r]", " ", text)
    return " ".join(_UNSAFE.sub("", text).split())


def password_problem(value: str) -> str | None:
    return INVALID_CHARACTERS if _UNSAFE_PASSWORD.search(value) else None


def _checked(multiline: bool) -> Any:
    def check(value: Any) -> Any:
        # Before pydantic's own str check: a lone surrogate would fail there with an English
        # message about parsing; non-strings are left to the type check.
        if isinstance(value, str):
            problem = text_problem(value, multiline=multiline)
            if problem:
                raise ValueError(problem)
        return value

    return check


def _password_checked(value: Any) -> Any:
    if isinstance(value, str):
        problem = password_problem(value)
        if problem:
            raise ValueError(problem)
    return value


CleanText = Annotated[str, BeforeValidator(_checked(False))]
CleanMultiline = Annotated[str, BeforeValidator(_checked(True))]
Password = Annotated[str, BeforeValidator(_password_checked)]


def form_text_check(data: Mapping[str, Any], fields: Iterable[str], *, multiline: Iterable[str] = ()) -> None:
    """Raise FieldError (400 {field: [message]}) for the first form field a client may not send.

    For endpoints that read `request.POST` (or a hand-parsed form) instead of a schema.
    """
    multi = set(multiline)
    for field in (*fields, *multi):
        value = data.get(field)
        if isinstance(value, str):
            problem = text_problem(value, multiline=field in multi)
            if problem:
                raise FieldError(field, problem)
