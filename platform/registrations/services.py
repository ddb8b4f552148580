"""Registration writes: scan intake, lock, device data."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection, transaction
from django.utils import timezone

from accounts.models import User
from registrations.errors import FILE_TOO_LARGE, ScanRejected
from registrations.intake import scan_prepare
from registrations.models import SEQUENCE_NAME, BevRegistration, DeviceInfo
from registrations.reader import document_check, document_read
from tenants.models import Partner

logger = logging.getLogger(__name__)

B2B_SOURCE = BevRegistration.Source.B2B.value


@dataclass(frozen=True)
class ScanLimits:
    min_size: int
    max_pixels: int
    max_bytes: int


def scan_limits() -> ScanLimits:
    return ScanLimits(
        min_size=settings.SCAN_MIN_SIZE,
        max_pixels=settings.SCAN_MAX_PIXELS,
        max_bytes=settings.SCAN_MAX_BYTES,
    )


def _next_sequence() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT nextval(%s)", [SEQUENCE_NAME])
        return int(cursor.fetchone()[0])


def registration_create(
    *,
    partner: Partner,
    owner: User,
    data: bytes,
    source: str,
    registration_years: list[int],
    skip_classifier: bool,
) -> BevRegistration:
    """Check, read and store a scan; the registration exists only if all of that succeeded."""
    limits = scan_limits()
    prepared = scan_prepare(
        data, min_size=limits.min_size, max_pixels=limits.max_pixels, max_bytes=limits.max_bytes
    )
    reading = document_read(prepared.image)
    if not skip_classifier:
        document_check(reading)
    registration = BevRegistration(
        owner=owner,
        source=source,
        registration_years=registration_years,
        original_content_type=prepared.content_type,
        width=prepared.width,
        height=prepared.height,
        classifier_skipped=skip_classifier,
        vin=reading.vin or "",
        first_registration=reading.first_registration,
        vehicle_class=reading.vehicle_class or "",
        energy_code=reading.energy_code or "",
        is_electric=reading.is_electric,
        needs_review=reading.is_electric is not True,
    )
    prefix = f"{partner.schema_name}/scans/{registration.uuid}"
    with transaction.atomic():
        registration.sequence = _next_sequence()
        registration.zlb_scan = default_storage.save(f"{prefix}.jpg", ContentFile(prepared.image_bytes))
        registration.resized_image = default_storage.save(
            f"{prefix}-resized.jpg", ContentFile(prepared.resized_bytes)
        )
        try:
            registration.save()
        except Exception:
            default_storage.delete(registration.zlb_scan)
            default_storage.delete(registration.resized_image)
            raise
    return registration


def registration_lock(*, registration: BevRegistration) -> BevRegistration:
    """'Weiter' on Validation: the registration is complete. Locking twice changes nothing."""
    if registration.locked_at is None:
        with transaction.atomic():
            updated = BevRegistration.objects.filter(pk=registration.pk, locked_at__isnull=True).update(
                locked_at=timezone.now()
            )
            if updated:
                registration.refresh_from_db(fields=["locked_at"])
    return registration


def device_info_create(*, registration: BevRegistration, data: dict[str, Any]) -> DeviceInfo:
    return DeviceInfo.objects.create(registration=registration, **data)


__all__ = [
    "B2B_SOURCE",
    "FILE_TOO_LARGE",
    "ScanRejected",
    "device_info_create",
    "registration_create",
    "registration_lock",
    "scan_limits",
]
