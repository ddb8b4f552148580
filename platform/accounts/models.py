from __future__ import annotations

import unicodedata
from typing import Any

from django.contrib.auth.models import AbstractUser
from django.contrib.postgres.indexes import GinIndex, OpClass
from django.db import models
from django.db.models.functions import Lower, Upper
from django_otp.plugins.otp_totp.models import TOTPDevice

# Letters that case folding keeps apart from their ASCII look-alike but that Python's
# case-insensitive regular expressions (and so Django's EmailValidator) match as i: the
# Turkish dotless ı, and the dotted İ, which folds to i + COMBINING DOT ABOVE.
_FOLD_EXTRA = {"i\u0307": "i", "ı": "i"}


def canonical_name(value: str) -> str:
    """The form under which a username or e-mail address is one user, one throttle: NFKC,
    then Unicode case folding (ß→ss, ſ→s, K (Kelvin)→k), then the Turkish i's, then NFKC
    again so the result is stable. Stored in User.username_canonical/email_canonical, so the
    database compares exactly what Python computed (PostgreSQL's lower() is not casefold)."""
    folded = unicodedata.normalize("NFKC", value.strip()).casefold()
    for variant, plain in _FOLD_EXTRA.items():
        folded = folded.replace(variant, plain)
    return unicodedata.normalize("NFKC", folded)


class User(AbstractUser):
    """A user of one schema: in a partner's schema the vehicle owners and that partner's back
    office; in the public schema the platform staff. One account per e-mail and partner, and
    per canonical username and canonical e-mail: Anna and anna, and the ſ/ı/İ/K variants of a
    name, are one user (look-alikes from other scripts, Cyrillic а say, are not folded)."""

    # Kept by save(); a queryset .update() of username or email must set them too.
    username_canonical = models.TextField(default="", editable=False)
    email_canonical = models.TextField(default="", editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                Lower("email"), name="accounts_user_email_unique", condition=~models.Q(email="")
            ),
            models.UniqueConstraint(
                fields=["username_canonical"], name="accounts_user_username_canonical_unique"
            ),
            models.UniqueConstraint(
                fields=["email_canonical"],
                name="accounts_user_email_canonical_unique",
                condition=~models.Q(email_canonical=""),
            ),
        ]
        # The partner area's search over owners' e-mail addresses (any part, as icontains
        # writes it: UPPER(email::text) LIKE ...): trigrams of pg_trgm (migration 0006).
        indexes = [GinIndex(OpClass(Upper("email"), name="gin_trgm_ops"), name="accounts_user_email_trgm")]

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.username_canonical = canonical_name(self.username)
        self.email_canonical = canonical_name(self.email or "")
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and {"username", "email"} & set(update_fields):
            kwargs["update_fields"] = {*update_fields, "username_canonical", "email_canonical"}
        super().save(*args, **kwargs)


class LoginCode(models.Model):
    """A six-digit code e-mailed for login; only its keyed hash is kept."""

    class Purpose(models.TextChoices):
        REGISTRATION = "registration", "Registration flow login"
        PORTAL_CHECK = "portal_check", "Portal login check"

    email = models.EmailField()
    purpose = models.CharField(max_length=20, choices=Purpose.choices, default=Purpose.REGISTRATION)
    code_hash = models.CharField(max_length=64)
    # The code for the mail only, encrypted (accounts.mails.mail_secret_seal) and cleared once
    # the mail is sent: the task queue carries the row id, never the code.
    sealed = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    attempts = models.PositiveSmallIntegerField(default=0)
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["email", "purpose", "-created_at"])]

    def __str__(self) -> str:
        return f"code for {self.email} ({self.purpose})"


class LoginLink(models.Model):
    """A single-use e-mail link (flow login or portal signup); only its keyed hash is stored."""

    class Purpose(models.TextChoices):
        REGISTRATION = "registration", "Registration flow login"
        SIGNUP = "signup", "Portal signup"

    email = models.EmailField()
    purpose = models.CharField(max_length=20, choices=Purpose.choices, default=Purpose.REGISTRATION)
    key_hash = models.CharField(max_length=64, unique=True)
    # The link for the mail, encrypted and cleared once sent (as LoginCode.sealed).
    sealed = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["email", "-created_at"])]

    def __str__(self) -> str:
        return f"link for {self.email}"


class Authenticator(TOTPDevice):
    """django_otp's TOTP device under German names, for the admin (accounts.admin): the
    library's model is called "TOTP device" and has no German translation. The same table and
    rows; in an app of every schema, so the platform's and each partner's admin show it."""

    class Meta:
        proxy = True
        verbose_name = "Authenticator-App"
        verbose_name_plural = "Authenticator-Apps"
