"""Registration writes: scan intake, lock, device data."""

from __future__ import annotations

import datetime
import logging
import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection, transaction
from django.utils import timezone

from accounts.models import User
from registrations import errors
from registrations.errors import FILE_TOO_LARGE, ScanRejected
from registrations.intake import scan_prepare
from registrations.models import SEQUENCE_NAME, BevRegistration, DeviceInfo
from registrations.reader import document_check, document_read
from registrations.redaction import scan_redact
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


class UploadThrottled(Exception):
    """Too many uploads from this token or this client address in the current window."""

    def __init__(self, retry_after: int):
        self.retry_after = retry_after
        super().__init__(errors.UPLOAD_THROTTLED)


@dataclass(frozen=True)
class UploadLimits:
    per_token: int
    per_address: int
    window: int  # seconds


def upload_limits() -> UploadLimits:
    # Read with defaults so an environment without these settings still limits.
    return UploadLimits(
        per_token=int(getattr(settings, "UPLOAD_LIMIT_PER_LOGIN", 20)),
        per_address=int(getattr(settings, "UPLOAD_LIMIT_PER_ADDRESS", 60)),
        window=int(getattr(settings, "UPLOAD_LIMIT_WINDOW", 600)),
    )


def _window_count(key: str, window: int) -> int:
    """This window's count after adding one (fixed window in the shared cache)."""
    cache.add(key, 0, timeout=window + 5)
    try:
        return int(cache.incr(key))
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=window + 5)
        return 1


def upload_budget_take(*, partner: Partner, owner_id: int, client_ip: str) -> None:
    """Counts one upload for the token's owner and for the client address; refuses past either
    budget. Checked before the body is read: a refused upload costs no decode."""
    limits = upload_limits()
    now = time.time()
    bucket = int(now // limits.window)
    retry_after = max(1, int((bucket + 1) * limits.window - now) + 1)
    prefix = f"uploads:{partner.schema_name}:{bucket}"
    over = _window_count(f"{prefix}:owner:{owner_id}", limits.window) > limits.per_token
    # The address counts every attempt, also those of owners already over their own budget.
    over = _window_count(f"{prefix}:address:{client_ip}", limits.window) > limits.per_address or over
    if over:
        raise UploadThrottled(retry_after)


def _refusal_key(partner: Partner, owner: User, login: str) -> str:
    return f"scan-refused:{partner.schema_name}:{owner.pk}:{login}"


CLASSIFIER_REFUSAL_MEMORY = 24 * 3600  # seconds a refusal lets this login skip the classifier


def _classifier_refusal_record(*, partner: Partner, owner: User, login: str) -> None:
    cache.set(_refusal_key(partner, owner, login), True, timeout=CLASSIFIER_REFUSAL_MEMORY)


def classifier_skip_allowed(*, partner: Partner, owner: User, login: str) -> bool:
    """The web app offers 'upload anyway' only after the classifier refused a scan (IMGC002/003);
    a client asking to skip without such a refusal in this login is not believed."""
    return bool(cache.get(_refusal_key(partner, owner, login)))


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
    login: str,
) -> BevRegistration:
    """Check, read and store a scan; the registration exists only if all of that succeeded.

    `login` names the login session of the token (owner + session start): a skip of the
    classifier is honoured only after the classifier refused a scan in that login."""
    limits = scan_limits()
    prepared = scan_prepare(
        data, min_size=limits.min_size, max_pixels=limits.max_pixels, max_bytes=limits.max_bytes
    )
    skip_classifier = skip_classifier and classifier_skip_allowed(partner=partner, owner=owner, login=login)
    reading = document_read(prepared.image)
    if not skip_classifier:
        try:
            document_check(reading)
        except ScanRejected as rejected:
            if rejected.code in (errors.NOT_A_ZLB, errors.NOT_CLASSIFIABLE):
                _classifier_refusal_record(partner=partner, owner=owner, login=login)
            raise
    # After the check: the copy everyone but the authority sees, the holder blacked out.
    redacted = scan_redact(prepared.image, reading)
    registration = BevRegistration(
        owner=owner,
        source=source,
        registration_years=registration_years,
        original_content_type=prepared.content_type,
        width=prepared.width,
        height=prepared.height,
        classifier_skipped=skip_classifier,
        vin=reading.vin or "",
        plate=reading.plate or "",
        first_registration=reading.first_registration,
        vehicle_class=reading.vehicle_class or "",
        energy_code=reading.energy_code or "",
        is_electric=reading.is_electric,
        needs_review=reading.needs_review,
        redaction=redacted.method,
    )
    prefix = f"{partner.schema_name}/scans/{registration.uuid}"
    with transaction.atomic():
        registration.sequence = _next_sequence()
        registration.zlb_scan = default_storage.save(f"{prefix}.jpg", ContentFile(prepared.image_bytes))
        registration.display_scan = default_storage.save(
            f"{prefix}-display.jpg", ContentFile(redacted.image_bytes)
        )
        registration.resized_image = default_storage.save(
            f"{prefix}-resized.jpg", ContentFile(redacted.resized_bytes)
        )
        try:
            registration.save()
        except Exception:
            for name in (registration.zlb_scan, registration.display_scan, registration.resized_image):
                default_storage.delete(name)
            raise
    return registration


# Applications in these states still wait for their authority submission: the original stays.
_AWAITING_SUBMISSION = ("qa_created", "qa_entered", "qa_picked_up")


def _original_delete(registration: BevRegistration) -> None:
    if registration.zlb_scan:
        default_storage.delete(registration.zlb_scan)
    BevRegistration.objects.filter(pk=registration.pk).update(zlb_scan="", original_deleted_at=timezone.now())
    registration.zlb_scan = ""


def scan_original_release(registration: BevRegistration) -> bool:
    """The authority submission of this registration is done: its original scan is no longer
    needed. Deleted at once when ORIGINAL_SCAN_RETENTION is zero (the default) and no other
    application of the registration still waits for a submission; otherwise marked, and the
    retention run (privacy.retention) deletes it once both hold. Returns whether it was deleted.

    For the authority app: call after the submission package went out (idempotent)."""
    with transaction.atomic():
        locked = BevRegistration.objects.select_for_update().get(pk=registration.pk)
        if locked.original_released_at is None:
            locked.original_released_at = timezone.now()
            locked.save(update_fields=["original_released_at"])
        registration.original_released_at = locked.original_released_at
        retention = settings.ORIGINAL_SCAN_RETENTION
        waiting = locked.quota_applications.filter(status__in=_AWAITING_SUBMISSION).exists()
        if locked.original_deleted_at is None and not waiting and retention.total_seconds() <= 0:
            _original_delete(locked)
            registration.zlb_scan, registration.original_deleted_at = "", locked.original_deleted_at
            logger.info("original scan deleted after the authority submission")
            return True
    return False


def scan_originals_expire(*, now: datetime.datetime | None = None, batch: int = 500) -> int:
    """Deletes released originals whose retention ran out and that no application waits for."""
    cutoff = (now or timezone.now()) - settings.ORIGINAL_SCAN_RETENTION
    due = (
        BevRegistration.objects.filter(original_released_at__lte=cutoff, original_deleted_at__isnull=True)
        .exclude(quota_applications__status__in=_AWAITING_SUBMISSION)
        .order_by("pk")[:batch]
    )
    count = 0
    for registration in due:
        _original_delete(registration)
        count += 1
    return count


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
    "UploadThrottled",
    "classifier_skip_allowed",
    "device_info_create",
    "registration_create",
    "registration_lock",
    "scan_limits",
    "scan_original_release",
    "scan_originals_expire",
    "upload_budget_take",
]
