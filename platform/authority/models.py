"""Public schema: the double-registration registry and the authority (UBA) submissions.

Nothing here holds a plain VIN: vehicles are keyed by HMAC-SHA256 of the normalised VIN under
settings.VIN_HASH_KEY (authority.registry). The plain data stays in the partner's schema; the
submission package file (for the authority) is the one place it leaves it.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class VehicleClaim(models.Model):
    """An application's claim on a vehicle's quota for one legislation year, on any partner.

    Provisional at upload (`confirmed_at` empty): it decides nothing and nobody learns of it.
    Confirmed when the application passes the partner's review (authority.registry.
    vehicle_confirm): two confirmed claims of one vehicle and year are a conflict for the
    platform operator's queue (DoubleRegistration). Submitted (`submitted_at`) when the
    application goes out in a UBA package: the authority certifies the first submission per
    vehicle and year, so at most one claim per vehicle and year is ever submitted (the partial
    unique index) and the earlier submission decides every conflict."""

    vin_hash = models.CharField(max_length=64)
    legislation_year = models.PositiveSmallIntegerField("Quotenjahr")
    partner = models.ForeignKey("tenants.Partner", on_delete=models.CASCADE, related_name="+")
    application_id = models.BigIntegerField("Antrags-ID")  # quota.QuotaApplication in the partner's schema
    created_at = models.DateTimeField(auto_now_add=True)
    confirmed_at = models.DateTimeField("Bestätigt am", null=True, blank=True)
    submitted_at = models.DateTimeField("Übermittelt am", null=True, blank=True)

    class Meta:
        verbose_name = "Registrierung im Fahrzeugregister"
        verbose_name_plural = "Fahrzeugregister"
        constraints = [
            models.UniqueConstraint(
                fields=["partner", "application_id"], name="authority_one_claim_per_application"
            ),
            models.UniqueConstraint(
                fields=["vin_hash", "legislation_year"],
                condition=models.Q(submitted_at__isnull=False),
                name="authority_one_submission_per_year",
            ),
        ]
        indexes = [models.Index(fields=["vin_hash", "legislation_year"], name="authority_claim_vehicle")]

    def __str__(self) -> str:
        return f"{self.vin_hash[:12]}… {self.legislation_year}"


class DoubleRegistration(models.Model):
    """A conflict of two confirmed claims on one vehicle and year, in the platform operator's
    queue (partners never see this): `application` is the one whose review found the conflict,
    `holder` the one that had been confirmed before. The operator decides by the earlier
    submission to the authority (authority.services.double_registration_decide); the other
    application becomes `qa_double_registration`."""

    class Status(models.TextChoices):
        OPEN = "open", "Offen"
        DECIDED = "decided", "Entschieden"
        WITHDRAWN = "withdrawn", "Erledigt (Antrag zurückgezogen oder korrigiert)"

    vin_hash = models.CharField(max_length=64)
    legislation_year = models.PositiveSmallIntegerField("Quotenjahr")
    partner = models.ForeignKey("tenants.Partner", on_delete=models.CASCADE, related_name="+")
    application_id = models.BigIntegerField()
    holder_partner = models.ForeignKey("tenants.Partner", on_delete=models.CASCADE, related_name="+")
    holder_application_id = models.BigIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)
    status = models.CharField("Status", max_length=10, choices=Status.choices, default=Status.OPEN)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The application that keeps the vehicle (the earlier submission): "application" or "holder".
    kept = models.CharField(max_length=12, blank=True)

    class Meta:
        verbose_name = "Doppelregistrierung"
        verbose_name_plural = "Doppelregistrierungen"
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["partner", "application_id", "holder_partner", "holder_application_id"],
                condition=models.Q(status="open"),
                name="authority_double_open_once",
            ),
        ]

    def __str__(self) -> str:
        return f"double registration {self.vin_hash[:12]}… {self.legislation_year}"


class AuthoritySubmission(models.Model):
    """One package for the Umweltbundesamt: a partner's applications of a legislation year that
    were ready (picked up by the back office, past the withdrawal period), `qa_sent_to_uba` once
    the package is built and stored (authority.package). Packages made before the calendar
    (issue 48) span partners and have no `partner`."""

    class Status(models.TextChoices):
        BUILDING = "building", "Paket wird erstellt"
        READY = "ready", "Bereit zum Herunterladen"
        FAILED = "failed", "Paket fehlgeschlagen"
        ANSWERED = "answered", "Antwort eingespielt"

    legislation_year = models.PositiveSmallIntegerField("Quotenjahr")
    partner = models.ForeignKey(
        "tenants.Partner", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    file = models.CharField(max_length=300, blank=True)  # name in default_storage
    count = models.PositiveIntegerField(default=0)
    status = models.CharField("Status", max_length=20, choices=Status.choices, default=Status.BUILDING)
    error = models.CharField(max_length=500, blank=True)
    limit = models.PositiveIntegerField(null=True, blank=True)  # at most this many applications
    # The applications left out of the package, each with the reason the operator reads:
    # [{"application_number", "reason"}] (no VIN: the public schema keeps none in clear).
    left_out = models.JSONField(default=list, blank=True)
    answer_file = models.CharField(max_length=300, blank=True)  # the authority's answer, kept

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
