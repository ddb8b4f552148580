"""Requests of owners under GDPR Art. 15/20 (export) and Art. 17 (erasure), and the payout
records the law makes a partner keep after an erasure, pseudonymised."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone

from accounts.consent_book import CHANNEL_PORTAL, CHANNEL_WEB
from common.crypto import EncryptedTextField


class DataExport(models.Model):
    """An owner's data export: a ZIP built in the background, mailed as a one-time link valid
    PRIVACY_EXPORT_LINK_LIFETIME; only the link key's keyed hash is stored."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="data_exports")
    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    key_hash = models.CharField(max_length=64, unique=True)
    # The link for the mail, encrypted (accounts.mails.mail_secret_seal), cleared once sent.
    sealed = models.TextField(blank=True, default="")
    file = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    built_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField()
    downloaded_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["user", "-created_at"])]

    def __str__(self) -> str:
        return f"data export {self.uuid}"


class ErasureRequest(models.Model):
    """An owner asked for erasure; confirmed by a six-digit code mailed to the account's address
    (keyed hash only, as the login codes)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="erasure_requests"
    )
    code_hash = models.CharField(max_length=64)
    sealed = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    attempts = models.PositiveSmallIntegerField(default=0)

    def __str__(self) -> str:
        return f"erasure request {self.pk}"


class RetainedPayout(models.Model):
    """What tax and payout law needs of an erased owner's paid (or to be paid) application,
    without a name, address or e-mail: a pseudonym (keyed hash, not reversible), the year,
    status and its dates, and the account paid to (encrypted). Deleted at `retain_until`."""

    pseudonym = models.CharField(max_length=64, db_index=True)
    sequence = models.BigIntegerField()
    legislation_year = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=40)
    status_history = models.JSONField(default=list)  # [{"status", "at"}], no actor, no reason
    account_iban = EncryptedTextField(blank=True)
    account_bic = EncryptedTextField(blank=True)
    vehicle_class = models.CharField(max_length=10, blank=True)
    created_at = models.DateTimeField()  # the application's
    erased_at = models.DateTimeField(auto_now_add=True)
    retain_until = models.DateField(db_index=True)

    def __str__(self) -> str:
        return f"retained payout {self.pseudonym[:8]} {self.legislation_year}"


class ConsentRecord(models.Model):
    """What an owner agreed to (or declined), when, through which channel, and to which text:
    `version` is the SHA-256 of the text shown (the checkbox and the document behind it), so
    the partner can prove which terms were accepted after the texts changed. Deleted with the
    account (an erased owner's consents prove nothing any more)."""

    class Kind(models.TextChoices):
        TERMS = "terms", "AGB"
        NEXT_YEAR_TERMS = "next_year_terms", "AGB für das nächste Jahr"
        PRIVACY = "privacy", "Datenschutzinformation"
        EMAIL_PROMOTION = "email_promotion", "Werbung per E-Mail"

    class Channel(models.TextChoices):
        WEB = CHANNEL_WEB, "Registrierung"
        PORTAL = CHANNEL_PORTAL, "Kundenportal"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="consents")
    kind = models.CharField(max_length=30, choices=Kind.choices)
    given = models.BooleanField()
    legislation_year = models.PositiveSmallIntegerField(null=True, blank=True)
    version = models.CharField(max_length=64)
    label = models.TextField(blank=True, default="")  # the checkbox's text as shown
    channel = models.CharField(max_length=10, choices=Channel.choices)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["user", "kind", "-created_at"])]

    def __str__(self) -> str:
        return f"consent {self.kind} {'given' if self.given else 'declined'} ({self.version[:8]})"
