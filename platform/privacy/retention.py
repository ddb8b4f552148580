"""The retention run: deletes what is past its period, in batches, and counts it.

Periods are settings (RETENTION_*; see docs/privacy.md): unfinished registrations and billing
data, refused applications, login codes, links and spent sessions, device data, scans a year
after the payout, released originals (ORIGINAL_SCAN_RETENTION), exports, erasure codes, and
the pseudonymised payout records of erased owners at the end of their legal period."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Exists, Max, OuterRef, QuerySet
from django.utils import timezone
from ninja_jwt.token_blacklist.models import OutstandingToken

from accounts.models import LoginCode, LoginLink
from billing.models import Client
from privacy.models import DataExport, ErasureRequest, RetainedPayout
from quota.models import QuotaApplication, QuotaStatus
from registrations.cleanup import scan_orphans_delete
from registrations.models import BevRegistration, DeviceInfo
from registrations.services import scan_originals_expire

REFUSED = (
    QuotaStatus.DOUBLE_REGISTRATION,
    QuotaStatus.COLOR_COPY_UNREADABLE,
    QuotaStatus.NOT_AN_ELECTRIC_CAR,
    QuotaStatus.APPROVAL_DATE_IN_THE_FUTURE,
    QuotaStatus.REJECTED_BY_PLATFORM,
    QuotaStatus.MANUALLY_REJECTED,
    QuotaStatus.REJECTED_BY_AUTHORITY,
    QuotaStatus.REJECTED_BY_PARTNER,
)
PAID_OUT = (QuotaStatus.PAID, QuotaStatus.COMPLETED)


def _files_delete(names: list[str]) -> None:
    for name in names:
        default_storage.delete(name)


def _batched(queryset: QuerySet, delete: Callable[[list[int]], int]) -> int:
    """Deletes the queryset's rows in batches of RETENTION_BATCH, each in its own transaction."""
    batch, total = settings.RETENTION_BATCH, 0
    while True:
        ids = list(queryset.order_by("pk").values_list("pk", flat=True)[:batch])
        if not ids:
            return total
        with transaction.atomic():
            total += delete(ids)
        if len(ids) < batch:
            return total


def _rows(model: Any) -> Callable[[list[int]], int]:
    """Deletes rows of the model by id; counts that model's rows only (not cascades)."""
    return lambda ids: model.objects.filter(pk__in=ids).delete()[1].get(model._meta.label, 0)


def _registrations_delete(ids: list[int]) -> int:
    names = [
        name
        for row in BevRegistration.objects.filter(pk__in=ids).values_list(
            "zlb_scan", "display_scan", "resized_image"
        )
        for name in row
        if name
    ]
    DeviceInfo.objects.filter(registration_id__in=ids).delete()
    deleted = BevRegistration.objects.filter(pk__in=ids).delete()[1].get("registrations.BevRegistration", 0)
    transaction.on_commit(lambda: _files_delete(names))
    return deleted


def _scans_delete(ids: list[int]) -> int:
    names = [
        name
        for row in BevRegistration.objects.filter(pk__in=ids).values_list(
            "zlb_scan", "display_scan", "resized_image"
        )
        for name in row
        if name
    ]
    now = timezone.now()
    BevRegistration.objects.filter(pk__in=ids, original_deleted_at__isnull=True).update(
        original_deleted_at=now
    )
    BevRegistration.objects.filter(pk__in=ids).update(zlb_scan="", display_scan="", resized_image="")
    transaction.on_commit(lambda: _files_delete(names))
    return len(ids)


def _exports_delete(ids: list[int]) -> int:
    names = [name for name in DataExport.objects.filter(pk__in=ids).values_list("file", flat=True) if name]
    transaction.on_commit(lambda: _files_delete(names))
    return DataExport.objects.filter(pk__in=ids).delete()[0]


def retention_apply(*, schema_name: str) -> dict[str, int]:
    """One partner's run (inside its schema); returns counts per kind."""
    now = timezone.now()
    days = lambda n: now - timedelta(days=n)  # noqa: E731
    counts: Counter[str] = Counter()
    has_application = Exists(QuotaApplication.objects.filter(registration=OuterRef("pk")))

    # Refused applications, then registrations left with none
    counts["refused applications"] = _batched(
        QuotaApplication.objects.filter(
            status__in=REFUSED, updated_at__lt=days(settings.RETENTION_REFUSED_DAYS)
        ),
        _rows(QuotaApplication),
    )
    # Registrations and billing data never finished (no application), and those just emptied
    counts["unfinished registrations"] = _batched(
        BevRegistration.objects.filter(created_at__lt=days(settings.RETENTION_UNFINISHED_DAYS)).exclude(
            has_application
        ),
        _registrations_delete,
    )
    counts["unfinished billing data"] = _batched(
        Client.objects.filter(created_at__lt=days(settings.RETENTION_UNFINISHED_DAYS)).exclude(
            Exists(QuotaApplication.objects.filter(client=OuterRef("pk")))
        ),
        _rows(Client),
    )
    # Scans a year after the payout: every application paid out, the last move that long ago
    paid_long_ago = (
        BevRegistration.objects.exclude(display_scan="", zlb_scan="", resized_image="")
        .filter(has_application)
        .exclude(
            Exists(QuotaApplication.objects.filter(registration=OuterRef("pk")).exclude(status__in=PAID_OUT))
        )
        .annotate(last_move=Max("quota_applications__updated_at"))
        .filter(last_move__lt=days(settings.RETENTION_SCANS_AFTER_PAYOUT_DAYS))
    )
    counts["scans after payout"] = _batched(paid_long_ago, _scans_delete)
    counts["released originals"] = scan_originals_expire(now=now, batch=settings.RETENTION_BATCH)
    counts["device data"] = _batched(
        DeviceInfo.objects.filter(created_at__lt=days(settings.RETENTION_DEVICE_DAYS)), _rows(DeviceInfo)
    )
    login_cutoff = days(settings.RETENTION_LOGIN_DAYS)
    counts["login codes"] = _batched(LoginCode.objects.filter(expires_at__lt=login_cutoff), _rows(LoginCode))
    counts["login links"] = _batched(LoginLink.objects.filter(expires_at__lt=login_cutoff), _rows(LoginLink))
    counts["expired sessions"] = _batched(
        OutstandingToken.objects.filter(expires_at__lt=login_cutoff), _rows(OutstandingToken)
    )
    counts["exports"] = _batched(DataExport.objects.filter(expires_at__lt=now), _exports_delete)
    counts["erasure codes"] = _batched(
        ErasureRequest.objects.filter(expires_at__lt=now), _rows(ErasureRequest)
    )
    counts["payout records"] = _batched(
        RetainedPayout.objects.filter(retain_until__lt=now.date()), _rows(RetainedPayout)
    )
    counts["orphaned scan files"] = len(scan_orphans_delete(schema_name=schema_name))
    return dict(counts)
