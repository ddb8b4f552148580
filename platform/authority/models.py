"""Public schema: the double-registration registry and the authority (UBA) submissions.

Nothing here holds a plain VIN: vehicles are keyed by HMAC-SHA256 of the normalised VIN under
settings.VIN_HASH_KEY (authority.registry). The plain data stays in the partner's schema; the
submission package file (for the authority) is the one place it leaves it.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class VehicleClaim(models.Model):
    """The application that holds a vehicle's quota for one legislation year, on any partner.

    The unique pair (vin_hash, legislation_year) decides parallel submissions: the first INSERT
    wins, every other one is a double registration (authority.registry.vehicle_claim)."""

    vin_hash = models.CharField(max_length=64)
    legislation_year = models.PositiveSmallIntegerField()
    partner = models.ForeignKey("tenants.Partner", on_delete=models.CASCADE, related_name="+")
    application_id = models.BigIntegerField()  # quota.QuotaApplication in the partner's schema
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "Registrierung im Fahrzeugregister"
        verbose_name_plural = "Fahrzeugregister"
        constraints = [
            models.UniqueConstraint(
                fields=["vin_hash", "legislation_year"], name="authority_one_claim_per_year"
            ),
        ]
        indexes = [models.Index(fields=["partner", "application_id"], name="authority_claim_application")]

    def __str__(self) -> str:
        return f"{self.vin_hash[:12]}… {self.legislation_year}"


class DoubleRegistration(models.Model):
    """A refused second application, for the platform admin only (partners never see this)."""

    vin_hash = models.CharField(max_length=64)
    legislation_year = models.PositiveSmallIntegerField()
    partner = models.ForeignKey("tenants.Partner", on_delete=models.CASCADE, related_name="+")
    application_id = models.BigIntegerField()
    holder_partner = models.ForeignKey("tenants.Partner", on_delete=models.CASCADE, related_name="+")
    holder_application_id = models.BigIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "Doppelregistrierung"
        verbose_name_plural = "Doppelregistrierungen"
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"double registration {self.vin_hash[:12]}… {self.legislation_year}"


class AuthoritySubmission(models.Model):
    """One package for the Umweltbundesamt: the applications of a legislation year that were
    ready (picked up by the back office) across partners, now `qa_sent_to_uba`."""

    class Status(models.TextChoices):
        BUILDING = "building", "Paket wird erstellt"
        READY = "ready", "Bereit zum Herunterladen"
        FAILED = "failed", "Paket fehlgeschlagen"
        ANSWERED = "answered", "Antwort eingespielt"

    legislation_year = models.PositiveSmallIntegerField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    file = models.CharField(max_length=300, blank=True)  # name in default_storage
    count = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.BUILDING)
    error = models.CharField(max_length=500, blank=True)

    class Meta:
        verbose_name = "UBA-Einreichung"
        verbose_name_plural = "UBA-Einreichungen"
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"UBA-Einreichung {self.pk} ({self.legislation_year})"


class AuthoritySubmissionItem(models.Model):
    """One application in a package; its VIN only as the registry's keyed hash."""

    class Result(models.TextChoices):
        PENDING = "", "offen"
        ACCEPTED = "accepted", "angenommen"
        REJECTED = "rejected", "abgelehnt"

    submission = models.ForeignKey(AuthoritySubmission, on_delete=models.CASCADE, related_name="items")
    partner = models.ForeignKey("tenants.Partner", on_delete=models.PROTECT, related_name="+")
    application_id = models.BigIntegerField()
    application_number = models.CharField(max_length=60)
    vin_hash = models.CharField(max_length=64)
    result = models.CharField(max_length=10, choices=Result.choices, blank=True, default="")
    reason = models.CharField(max_length=500, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["submission", "vin_hash"], name="authority_item_vehicle_once"),
            models.UniqueConstraint(
                fields=["partner", "application_id"], name="authority_item_application_once"
            ),
        ]
        indexes = [models.Index(fields=["vin_hash"], name="authority_item_vin_hash")]

    def __str__(self) -> str:
        return self.application_number


class AuthorityAuditEntry(models.Model):
    """What platform admins did with packages and answers (public schema)."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    action = models.CharField(max_length=40)
    submission = models.ForeignKey(
        AuthoritySubmission, null=True, on_delete=models.SET_NULL, related_name="audit"
    )
    detail = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "Protokolleintrag (UBA)"
        verbose_name_plural = "Protokoll (UBA)"
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.action} {self.created_at:%Y-%m-%d %H:%M}"
