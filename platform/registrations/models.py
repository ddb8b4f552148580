from __future__ import annotations

import uuid

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models

# Per-partner counter behind `sequence` (the quote id users see); each schema has its own.
SEQUENCE_NAME = "registrations_bev_sequence"


class BevRegistration(models.Model):
    class Source(models.TextChoices):
        B2C = "B2C-FE", "Consumer registration flow"
        B2B = "b2b_fe", "B2B registration flow"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="bev_registrations"
    )
    sequence = models.BigIntegerField(unique=True, editable=False)
    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.B2C)
    registration_years = ArrayField(models.PositiveSmallIntegerField(), default=list, blank=True)
    # The original scan: kept only for the authority submission, then deleted
    # (services.scan_original_release; empty once deleted). Served by no URL.
    zlb_scan = models.CharField(max_length=300, blank=True)
    # The display copy with the holder's name and address blacked out (registrations.redaction)
    # and its small version: the only images the portal, the partner area and mails show.
    display_scan = models.CharField(max_length=300, blank=True)
    resized_image = models.CharField(max_length=300)
    redaction = models.CharField(max_length=10, blank=True)  # boxes, pixelated; empty: not yet
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
    # For the back office: the reader saw a non-electric energy code, or nothing to read.
    needs_review = models.BooleanField(default=False)
    locked_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["sequence"]

    def __str__(self) -> str:
        return f"registration {self.sequence}"

    @property
    def vehicle_type(self) -> str:
        return self.vehicle_class or "M1"


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
