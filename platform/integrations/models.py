"""The partner's systems: API keys and webhooks (issue 49). All in the partner's schema: a key of partner A
does not exist on partner B's host."""

from __future__ import annotations

import uuid

from django.contrib.postgres.fields import ArrayField
from django.db import models

from common.crypto import EncryptedTextField


class ApiKey(models.Model):
    """A named key of the partner API. Only a keyed hash of the secret is stored; the key is
    shown once, when it is made or rotated. It acts for the partner admin who made or last
    rotated it (the audit log names both), limited to its scope."""

    class Scope(models.TextChoices):
        READ = "read", "Lesen"
        WRITE = "write", "Lesen und schreiben"

    name = models.CharField(max_length=100)
    scope = models.CharField(max_length=10, choices=Scope.choices)
    # The public part of the key (thg_<prefix>_<secret>): finds the row and is shown in lists.
    prefix = models.CharField(max_length=16, unique=True)
    secret_hash = models.CharField(max_length=64)
    created_by = models.ForeignKey(
        "staff.StaffMember", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    rotated_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"API key {self.name} ({self.prefix})"


# ---------------------------------------------------------------- webhooks


class WebhookEvent(models.TextChoices):
    STATUS_CHANGED = "application.status_changed", "Statuswechsel eines Antrags"
    UPLOAD_FINISHED = "bulk_upload.finished", "Sammel-Upload abgeschlossen"
    PAYOUT_PAID = "payout.paid", "Auszahlung ausgeführt"
    PAYOUT_FAILED = "payout.failed", "Auszahlung fehlgeschlagen"
    PING = "ping", "Test"


class WebhookEndpoint(models.Model):
    """An address of the partner's system that is sent the chosen events, signed with the
    endpoint's secret (HMAC-SHA256). The secret is shown once; it is kept encrypted, not
    hashed, because every delivery is signed with it."""

    url = models.URLField(max_length=500)
    events = ArrayField(models.CharField(max_length=40), default=list)
    secret = EncryptedTextField()
    is_active = models.BooleanField(default=True)
    created_by = models.ForeignKey(
        "staff.StaffMember", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return f"webhook {self.pk}"


class OutboundEvent(models.Model):
    """Something that happened, once, as it is sent: read from the record each write keeps
    already (a status change, a finished upload, a paid batch, a failed payout)."""

    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    type = models.CharField(max_length=40, choices=WebhookEvent.choices)
    # Where it comes from, e.g. "status_change:17": each happening becomes one event only.
    source_key = models.CharField(max_length=100, unique=True)
    occurred_at = models.DateTimeField()
    payload = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.type} {self.uuid}"


class WebhookDelivery(models.Model):
    """One event for one endpoint: tried at once, then again with growing pauses for a day
    (integrations.webhooks.RETRY_AFTER), until the endpoint answers 2xx."""

    class Status(models.TextChoices):
        PENDING = "pending", "Ausstehend"
        DELIVERED = "delivered", "Zugestellt"
        FAILED = "failed", "Fehlgeschlagen"

    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    event = models.ForeignKey(OutboundEvent, on_delete=models.CASCADE, related_name="deliveries")
    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.PENDING)
    # Tries of the schedule (a resend by hand is logged but does not count).
    tries = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["event", "endpoint"], name="integrations_delivery_once"),
        ]
        indexes = [
            models.Index(fields=["status", "next_attempt_at"], name="integrations_delivery_due"),
            models.Index(fields=["endpoint", "-created_at"], name="integrations_delivery_log"),
        ]

    def __str__(self) -> str:
        return f"delivery {self.uuid}"


class WebhookAttempt(models.Model):
    """One request of a delivery and its answer: the delivery log."""

    delivery = models.ForeignKey(WebhookDelivery, on_delete=models.CASCADE, related_name="attempts")
    at = models.DateTimeField()
    manual = models.BooleanField(default=False)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True)
    duration_ms = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["at", "pk"]

    def __str__(self) -> str:
        return f"attempt of {self.delivery_id} at {self.at}"


class WebhookCursor(models.Model):
    """How far the sweep has read a source (integrations.webhooks.events_collect)."""

    source = models.CharField(max_length=40, unique=True)
    last_id = models.BigIntegerField(default=0)
    since = models.DateTimeField()

    def __str__(self) -> str:
        return f"cursor {self.source}"


class ApplicationReference(models.Model):
    """The partner's own reference of an application (a fleet's vehicle or contract number),
    set through the partner API; the list call filters by it and webhooks carry it."""

    application = models.OneToOneField(
        "quota.QuotaApplication", on_delete=models.CASCADE, related_name="partner_reference"
    )
    reference = models.CharField(max_length=100, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"reference of {self.application_id}"
