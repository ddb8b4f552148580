"""Authenticated encryption of personal data in database columns (issue 19, GDPR Art. 25/32).

`EncryptedTextField` stores a Fernet token (AES-128-CBC + HMAC-SHA256, with a timestamp) in a
text column and hands the plain value to Python: validation, services, selectors, the admin
and the CSV export see the same strings as before. A token changed in the database fails its
MAC and raises `FieldDecryptionError` naming the column, never returns garbage.

Keys: `settings.FIELD_ENCRYPTION_KEYS` (any random strings, each stretched with HKDF into a
Fernet key): the first encrypts, all decrypt. Unset, the keys are derived from SECRET_KEY and
SECRET_KEY_FALLBACKS (the same approach as accounts.mails for mail secrets), so an existing
deployment keeps running; a deployment should set its own (see README "Field encryption").
Rotation: put the new key first, run `manage.py rotate_field_keys`, then drop the old key.

An empty value stays empty (no token): that an optional field was left blank is not secret,
and the forms' "is there a stored IBAN" checks stay cheap. Tokens are randomised, so equality
lookups cannot work on these columns and are refused. None is needed today (billing finds an
owner's previous data by owner, never by IBAN); one that is would add an HMAC column beside it.
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Iterable
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings
from django.core.exceptions import FieldError
from django.db import models

ENCRYPTION_INFO = b"thg.field-encryption"


class FieldDecryptionError(Exception):
    """A stored token does not authenticate under any configured key."""


def _derive(secret: str, info: bytes) -> bytes:
    return HKDF(algorithm=SHA256(), length=32, salt=None, info=info).derive(secret.encode())


def field_key_secrets() -> tuple[str, ...]:
    """The configured key strings, first the one that encrypts."""
    configured = [str(key) for key in getattr(settings, "FIELD_ENCRYPTION_KEYS", []) if str(key)]
    if configured:
        return tuple(configured)
    return tuple(str(s) for s in [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])])


@functools.lru_cache(maxsize=8)
def _multi_fernet(secrets: tuple[str, ...]) -> MultiFernet:
    # Cached per key list: HKDF per value would cost more than the encryption itself.
    return MultiFernet([Fernet(base64.urlsafe_b64encode(_derive(s, ENCRYPTION_INFO))) for s in secrets])


def field_encrypt(value: str) -> str:
    return _multi_fernet(field_key_secrets()).encrypt(value.encode()).decode("ascii")


def field_decrypt(token: str, *, where: str = "an encrypted field") -> str:
    try:
        return _multi_fernet(field_key_secrets()).decrypt(token.encode("ascii")).decode()
    except (InvalidToken, UnicodeEncodeError) as error:
        raise FieldDecryptionError(
            f"{where}: the stored value cannot be decrypted (changed in the database, not encrypted, "
            "or its key is no longer in FIELD_ENCRYPTION_KEYS)"
        ) from error


class EncryptedTextField(models.TextField):  # type: ignore[type-arg]
    """A text column holding a Fernet token; Python sees the plain string."""

    description = "Text encrypted at rest (Fernet)"

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        if value is None or value == "":
            return value
        return field_decrypt(value, where=f"{self.model._meta.db_table}.{self.column}")

    def get_prep_value(self, value: Any) -> Any:
        value = super().get_prep_value(value)
        if value is None or value == "":
            return value
        return field_encrypt(str(value))

    def get_lookup(self, lookup_name: str) -> Any:
        # A randomised token never equals another one: an equality or text lookup would silently
        # find nothing. Only NULL checks make sense.
        if lookup_name != "isnull":
            raise FieldError(
                f"{self.name} is encrypted: '{lookup_name}' lookups cannot work on it (add a keyed hash column)"
            )
        return super().get_lookup(lookup_name)


def encrypted_fields(model: type[models.Model]) -> list[str]:
    return [f.name for f in model._meta.get_fields() if isinstance(f, EncryptedTextField)]


def encrypted_models(candidates: Iterable[type[models.Model]]) -> list[type[models.Model]]:
    return [m for m in candidates if encrypted_fields(m)]
