"""Registration writes: scan intake, lock, device data."""

from __future__ import annotations

import datetime
import logging
import re
import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection, transaction
from django.utils import timezone

from accounts.consent_book import CHANNEL_WEB, consent_book
from accounts.models import User
from common import metrics
from common.partner_config import PartnerConfig
from registrations import errors
from registrations.eligibility import eligibility_refusal
from registrations.errors import FILE_TOO_LARGE, ScanRejected
from registrations.models import SEQUENCE_NAME, BevRegistration, DeviceInfo, FieldCorrection
from registrations.ocr_pool import CheckLimits, OcrBusy, scan_check_pooled
from registrations.reader import DATE, ELECTRIC, KNOWN_CODES, PLATE, VEHICLE_CLASS, Reading, vin_valid
from registrations.vin import kba_check_ok
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
    background: bool = True,
) -> BevRegistration:
    """Check, read and store a scan; the registration exists only if all of that succeeded.

    `login` names the login session of the token (owner + session start): a skip of the
    classifier is honoured only after the classifier refused a scan in that login. The check
    runs in the pool (registrations.ocr_pool): a request (`background=False`) is refused with
    OcrBusy when the pool is full, a background caller waits for its turn."""
    limits = scan_limits()
    skip_classifier = skip_classifier and classifier_skip_allowed(partner=partner, owner=owner, login=login)
    started = time.perf_counter()
    try:
        checked = scan_check_pooled(
            data,
            CheckLimits(min_size=limits.min_size, max_pixels=limits.max_pixels, max_bytes=limits.max_bytes),
            skip_classifier,
            background=background,
        )
    except OcrBusy:
        metrics.SCAN_CHECK.labels(outcome="busy").observe(time.perf_counter() - started)
        raise
    except Exception:
        metrics.SCAN_CHECK.labels(outcome="error").observe(time.perf_counter() - started)
        raise
    metrics.SCAN_CHECK_WAIT.labels(origin="bulk" if background else "flow").observe(
        max(0.0, time.perf_counter() - started - checked.seconds)
    )
    if checked.rejected_code:
        refused = checked.rejected_code in (errors.NOT_A_ZLB, errors.NOT_CLASSIFIABLE)
        metrics.SCAN_CHECK.labels(outcome="refused" if refused else "invalid").observe(checked.seconds)
        if refused:
            _classifier_refusal_record(partner=partner, owner=owner, login=login)
        raise ScanRejected(checked.rejected_code, checked.rejected_details)
    reading = checked.reading
    assert reading is not None
    # Eligibility where the document is read: a vehicle the reader is sure may not claim a quota
    # (not battery-electric, an exempt or other class) is refused before anything is stored.
    ineligible = eligibility_refusal(reading)
    if ineligible is not None:
        metrics.SCAN_CHECK.labels(outcome="ineligible").observe(checked.seconds)
        raise ineligible
    metrics.SCAN_CHECK.labels(outcome="accepted").observe(checked.seconds)
    registration = BevRegistration(
        owner=owner,
        source=source,
        registration_years=registration_years,
        original_content_type=checked.content_type,
        width=checked.width,
        height=checked.height,
        classifier_skipped=skip_classifier,
        redaction=checked.redaction,
        **reading_values(reading),
    )
    prefix = f"{partner.schema_name}/scans/{registration.uuid}"
    with transaction.atomic():
        registration.sequence = _next_sequence()
        registration.zlb_scan = default_storage.save(f"{prefix}.jpg", ContentFile(checked.image_bytes))
        registration.display_scan = default_storage.save(
            f"{prefix}-display.jpg", ContentFile(checked.display_bytes)
        )
        registration.resized_image = default_storage.save(
            f"{prefix}-resized.jpg", ContentFile(checked.display_resized_bytes)
        )
        try:
            registration.save()
        except Exception:
            for name in (registration.zlb_scan, registration.display_scan, registration.resized_image):
                default_storage.delete(name)
            raise
        if source != B2B_SOURCE:
            # The flow's upload is reached only with these years' terms and the privacy notice
            # ticked: recorded with the texts' version (privacy.consents).
            consent_book().consents_record_terms(
                user=owner,
                config=PartnerConfig.model_validate(partner.config),
                years=registration_years,
                channel=CHANNEL_WEB,
            )
    return registration


def reading_values(reading: Reading) -> dict[str, Any]:
    """The model's fields from what the reader found: empty where it found nothing, the
    confidence per field code and the codes it could not validate."""
    return {
        "vin": reading.vin or "",
        "plate": reading.plate or "",
        "first_registration": reading.first_registration,
        "registration_date": reading.registration_date,
        "vehicle_class": reading.vehicle_class or "",
        "energy_code": reading.energy_code or "",
        "is_electric": reading.is_electric,
        "fuel": (reading.fuel or "")[:40],
        "make": (reading.make or "")[:60],
        "model": (reading.model or "")[:60],
        "maker_key": reading.maker_key or "",
        "check_digit": reading.check_digit or "",
        "holder_name": (reading.holder_name or "")[:120],
        "holder_first_names": (reading.holder_first_names or "")[:120],
        "decided_by": dict(reading.decided_by),
        "field_boxes": {code: list(box) for code, box in reading.boxes.items()},
        "confidence": {code: round(float(value), 2) for code, value in reading.confidence.items()},
        "unread": list(dict.fromkeys(reading.unread)),
        "needs_review": reading.needs_review,
    }


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


def scan_originals_expire(
    *, now: datetime.datetime | None = None, batch: int = 500, retention: datetime.timedelta | None = None
) -> int:
    """Deletes released originals whose retention (the partner's, else ORIGINAL_SCAN_RETENTION)
    ran out and that no application waits for."""
    cutoff = (now or timezone.now()) - (settings.ORIGINAL_SCAN_RETENTION if retention is None else retention)
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


# The reader's fields by the form's code: the model's attribute of each.
READING_FIELDS: dict[str, str] = {
    "E": "vin",
    "3": "check_digit",
    "B": "first_registration",
    "I": "registration_date",
    "J": "vehicle_class",
    "10": "energy_code",
    "P.3": "fuel",
    "D.1": "make",
    "D.3": "model",
    "A": "plate",
    "2.1": "maker_key",
}
EARLIEST_DATE = datetime.date(1950, 1, 1)  # as the reader: no vehicle registered before is eligible
FUEL_TEXT = re.compile(r"^[A-ZÄÖÜ0-9./ -]{1,40}$")
NAME_TEXT = re.compile(r"^[A-Z0-9ÄÖÜ .()/&+-]{1,60}$")


def _date_parse(value: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(value)
    except ValueError:
        pass
    match = DATE.fullmatch(value)
    if match:
        day, month, year = match.groups()
        try:
            return datetime.date(int(year), int(month), int(day))
        except ValueError:
            pass
    raise errors.CorrectionRefused(errors.CORRECTION_DATE)


def reading_value_parse(registration: BevRegistration, code: str, raw: str) -> Any:
    """The value as the model stores it, checked by the reader's own rules."""
    value = " ".join(raw.split())
    if not value:
        raise errors.CorrectionRefused(errors.CORRECTION_EMPTY)
    upper = value.upper()
    if code == "E":
        vin = upper.replace(" ", "")
        if not vin_valid(vin)[0]:
            raise errors.CorrectionRefused(errors.CORRECTION_VIN)
        return vin
    if code == "3":
        # the KBA check digit of E: a digit or X, and the stored VIN's own where there is one
        if not re.fullmatch(r"[0-9X]", upper) or (
            registration.vin and not kba_check_ok(registration.vin, upper)
        ):
            raise errors.CorrectionRefused(errors.CORRECTION_CHECK_DIGIT)
        return upper
    if code in ("B", "I"):
        day = _date_parse(value)
        today = timezone.localdate()
        first = day if code == "B" else registration.first_registration
        this = day if code == "I" else registration.registration_date
        if not EARLIEST_DATE <= day <= today or (first and this and first > this):
            raise errors.CorrectionRefused(errors.CORRECTION_DATE_ORDER)
        return day
    if code == "J":
        if not VEHICLE_CLASS.fullmatch(upper):
            raise errors.CorrectionRefused(errors.CORRECTION_CLASS)
        return upper[:-1] + "e" if upper.startswith("L") else upper
    if code == "10":
        if not re.fullmatch(r"\d{4}", value) or value not in KNOWN_CODES:
            raise errors.CorrectionRefused(errors.CORRECTION_ENERGY)
        return value
    if code == "A":
        if len(upper) > 20 or not PLATE.match(upper):
            raise errors.CorrectionRefused(errors.CORRECTION_PLATE)
        return upper
    if code == "2.1":
        if not re.fullmatch(r"\d{4}", value):
            raise errors.CorrectionRefused(errors.CORRECTION_MAKER_KEY)
        return value
    if not (FUEL_TEXT if code == "P.3" else NAME_TEXT).fullmatch(upper):
        raise errors.CorrectionRefused(errors.CORRECTION_TEXT)
    return upper


def reading_display(value: Any) -> str:
    if value is None:
        return ""
    return value.isoformat() if isinstance(value, datetime.date) else str(value)


def registration_field_correct(
    *, registration: BevRegistration, code: str, value: str, actor: User | None, actor_name: str
) -> FieldCorrection:
    """The back office sets one field: checked by the reader's rules, confidence 1.0, no longer
    unread, the correction kept in the registration's history; the registration leaves the
    review when nothing is unread and it is electric. Call inside the caller's transaction to
    audit it with the same commit."""
    if code not in READING_FIELDS:
        raise errors.CorrectionRefused(errors.CORRECTION_FIELD, field="field")
    attribute = READING_FIELDS[code]
    with transaction.atomic():
        locked = BevRegistration.objects.select_for_update().get(pk=registration.pk)
        new = reading_value_parse(locked, code, value)
        before = reading_display(getattr(locked, attribute))
        setattr(locked, attribute, new)
        changed = [attribute, "confidence", "unread", "corrected", "needs_review"]
        if code == "10":
            locked.is_electric = new == ELECTRIC
            changed.append("is_electric")
        locked.confidence = {**locked.confidence, code: 1.0}
        locked.unread = [c for c in locked.unread if c != code]
        now = timezone.now()
        locked.corrected = {**locked.corrected, code: {"by": actor_name, "at": now.isoformat()}}
        locked.needs_review = (
            bool(locked.unread) or locked.is_electric is not True or locked.holder_mismatch is True
        )
        locked.save(update_fields=changed)
        correction = FieldCorrection.objects.create(
            registration=locked,
            code=code,
            before=before[:60],
            after=reading_display(new)[:60],
            rule=str(locked.decided_by.get(code, ""))[:30],
            actor=actor,
            actor_name=actor_name[:200],
        )
    for name in changed:
        setattr(registration, name, getattr(locked, name))
    return correction


def reading_fields(registration: BevRegistration) -> list[dict[str, Any]]:
    """Each field of the reader with its value, confidence, whether it was seen but not read,
    and where the value comes from (the reader, or the back office's correction)."""
    fields = []
    for code, attribute in READING_FIELDS.items():
        corrected = registration.corrected.get(code)
        confidence = registration.confidence.get(code)
        fields.append(
            {
                "code": code,
                "name": attribute,
                "value": reading_display(getattr(registration, attribute)) or None,
                "confidence": None if confidence is None else float(confidence),
                "unread": code in registration.unread,
                "source": "corrected" if corrected else "reader",
                "corrected_by": corrected["by"] if corrected else None,
                "corrected_at": corrected["at"] if corrected else None,
            }
        )
    return fields


def device_info_create(*, registration: BevRegistration, data: dict[str, Any]) -> DeviceInfo:
    return DeviceInfo.objects.create(registration=registration, **data)


__all__ = [
    "B2B_SOURCE",
    "FILE_TOO_LARGE",
    "OcrBusy",
    "ScanRejected",
    "UploadThrottled",
    "classifier_skip_allowed",
    "device_info_create",
    "reading_fields",
    "registration_field_correct",
    "registration_create",
    "registration_lock",
    "scan_limits",
    "scan_original_release",
    "scan_originals_expire",
    "upload_budget_take",
]
