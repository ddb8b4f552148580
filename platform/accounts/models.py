from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models.functions import Lower


class User(AbstractUser):
    """A user of one schema: in a partner's schema the vehicle owners and that partner's back
    office; in the public schema the platform staff. One account per e-mail and partner."""

    class Meta:
        constraints = [
            models.UniqueConstraint(
                Lower("email"), name="accounts_user_email_unique", condition=~models.Q(email="")
            ),
        ]


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
