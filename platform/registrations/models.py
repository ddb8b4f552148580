from __future__ import annotations

import uuid

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex, OpClass
from django.db import models
from django.db.models.functions import Upper

# Per-partner counter behind `sequence` (the quote id users see); each schema has its own.
SEQUENCE_NAME = "registrations_bev_sequence"


class BevRegistration(models.Model):
    class Source(models.TextChoices):
        B2C = "B2C-FE", "Registrierung durch den Halter"
        B2B = "b2b_fe", "Registrierung durch den Partner (B2B)"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="bev_registrations"
    )
    sequence = models.BigIntegerField(unique=True, editable=False)
    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    source = models.CharField(
        "Weg der Registrierung", max_length=10, choices=Source.choices, default=Source.B2C
    )
    registration_years = ArrayField(models.PositiveSmallIntegerField(), default=list, blank=True)
    # The original scan: kept only for the authority submission, then deleted
    # (services.scan_original_release; empty once deleted). Served by no URL.
    zlb_scan = models.CharField(max_length=300, blank=True)
    # The display copy with the holder's name and address blacked out (registrations.redaction)
    # and its small version: the only images the portal, the partner area and mails show.
    display_scan = models.CharField(max_length=300, blank=True)
    resized_image = models.CharField(max_length=300)
    # boxes (the holder panel blacked out), neutral (a card: the form not located); empty: not yet
    redaction = models.CharField(max_length=10, blank=True)
    original_released_at = models.DateTimeField(null=True, blank=True)
    original_deleted_at = models.DateTimeField(null=True, blank=True)
    original_content_type = models.CharField(max_length=50)
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()
    classifier_skipped = models.BooleanField(default=False)
    # What the reader found on the document (empty when unreadable or skipped).
    vin = models.CharField(max_length=17, blank=True)
    plate = models.CharField(max_length=20, blank=True)  # registration plate (field A)
    first_registration = models.DateField(null=True, blank=True)
    vehicle_class = models.CharField(max_length=10, blank=True)
    energy_code = models.CharField(max_length=4, blank=True)
    is_electric = models.BooleanField(null=True)
    registration_date = models.DateField(null=True, blank=True)  # field I: this registration
    make = models.CharField(max_length=60, blank=True)  # D.1
    model = models.CharField(max_length=60, blank=True)  # D.3
    fuel = models.CharField(max_length=40, blank=True)  # P.3
    maker_key = models.CharField(max_length=4, blank=True)  # 2.1
    check_digit = models.CharField(max_length=1, blank=True)  # field 3: the KBA check digit of E
    # the holder as printed (C1.1 name or firm, C1.2 first names): compared with the billing
    # name, listed in the authority's spreadsheet; personal data (privacy inventory)
    holder_name = models.CharField(max_length=120, blank=True)
    holder_first_names = models.CharField(max_length=120, blank=True)
    # the holder compared with the billing name when the applications were made
    # (registrations.eligibility): True differs (review: leasing, companies), False the same,
    # None not compared (no holder read, no billing yet)
    holder_mismatch = models.BooleanField(null=True, blank=True)
    # per field code, the reader's rule that decided its value (registrations.reader)
    decided_by = models.JSONField(default=dict, blank=True)
    # per field code, where its value lies on the stored picture: [x0, y0, x1, y1] as shares of
    # its width and height (the partner area's review shows the crop beside the value)
    field_boxes = models.JSONField(default=dict, blank=True)
    # The reader's confidence per field code (0..1; 1.0 once the back office corrected it), the
    # codes it saw but could not validate (stored empty, flagged), and who corrected which code.
    confidence = models.JSONField(default=dict, blank=True)
    unread = ArrayField(models.CharField(max_length=5), default=list, blank=True)
    corrected = models.JSONField(default=dict, blank=True)  # code -> {"by": name, "at": iso}
    # For the back office: the reader saw a non-electric energy code, or nothing to read, or the
    # holder is not the billing name.
    needs_review = models.BooleanField("Prüfung nötig", default=False)
    locked_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["sequence"]
        # The partner area's search by VIN (from its start, as istartswith writes it:
        # UPPER(vin::text) LIKE 'WVW%'): trigrams of pg_trgm.
        indexes = [
            GinIndex(OpClass(Upper("vin"), name="gin_trgm_ops"), name="registrations_vin_trgm"),
            # The dashboard prices the few vehicles that are not M1 apart (operations.selectors).
            models.Index(
                fields=["id", "vehicle_class"],
                name="registrations_not_m1",
                condition=~models.Q(vehicle_class__in=["", "M1"]),
            ),
        ]

    def __str__(self) -> str:
        return f"Registrierung {self.sequence}"

    @property
    def vehicle_type(self) -> str:
        return self.vehicle_class or "M1"


class FieldCorrection(models.Model):
    """The back office corrected a field the reader read (or could not): the history of a
    registration's values, shown with the application's history."""

    registration = models.ForeignKey(BevRegistration, on_delete=models.CASCADE, related_name="corrections")
    code = models.CharField(max_length=5)  # the form's field code: E, B, I, J, 10, P.3, D.1, D.3, A, 2.1
    before = models.CharField(max_length=60, blank=True)
    after = models.CharField(max_length=60)
    # the reader's rule that had decided the field when it was corrected (decided_by; empty:
    # none recorded): the review's report counts which rule fails most
    rule = models.CharField(max_length=30, blank=True)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    actor_name = models.CharField(max_length=200)  # kept when the staff account goes
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.code} of {self.registration_id}"


class DeviceInfo(models.Model):
    registration = models.ForeignKey(BevRegistration, on_delete=models.CASCADE, related_name="devices")
    device_type = models.CharField(max_length=10)
    device_name = models.CharField(max_length=200, blank=True)
    browser_version = models.CharField(max_length=200, blank=True)
    os_name = models.CharField(max_length=100, blank=True)
    os_version = models.CharField(max_length=100, blank=True)
    full_user_agent_string = models.CharField(max_length=1000, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.device_type} device of {self.registration_id}"
