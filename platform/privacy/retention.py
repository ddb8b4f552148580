"""The retention run: deletes what is past its period, in batches, and counts it.

Periods are the partner's (PartnerConfig.retention, within legal bounds) or the platform's
settings (RETENTION_*; see docs/privacy.md): unfinished registrations and billing data, refused
applications, login codes, links and spent sessions, device data, scans a year after the
payout, released originals (ORIGINAL_SCAN_RETENTION), inactive accounts (off by default),
exports, erasure codes, and the payout records (pseudonymised ones of erased owners, and the
settlement batches with their items) at the end of their legal period.

A vehicle's scans (and a refused application that holds them) stay at least three years after
its year's submission to the authority (38. BImSchV § 7; the partner's longer
`retention.scan_years_after_submission`, never shorter), whatever the other periods say; after
that the payout and refusal rules delete them."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Exists, Max, OuterRef, Q, QuerySet
from django.utils import timezone
from ninja_jwt.token_blacklist.models import OutstandingToken

from accounts.models import LoginCode, LoginLink, User
from billing.models import Client
from common.partner_config import PartnerConfig, Retention
from operations.models import SettlementBatch
from privacy.erasure import owner_erase
from privacy.models import DataExport, ErasureRequest, RetainedPayout
from quota.models import QuotaApplication, QuotaStatus, StatusChange
from registrations.cleanup import scan_orphans_delete
from registrations.models import BevRegistration, DeviceInfo
from registrations.services import scan_originals_expire
from tenants.models import Partner

logger = logging.getLogger(__name__)

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
# An account is inactive only when none of its applications is still moving.
FINISHED = REFUSED + PAID_OUT
LEGAL_SCAN_YEARS = 3  # copies of the document after the submission (38. BImSchV § 7)


@dataclass(frozen=True)
class RetentionPeriods:
    unfinished: timedelta
    refused: timedelta
    login: timedelta
    device: timedelta
    scans_after_payout: timedelta
    original_scan: timedelta
    inactive_account: timedelta | None  # None: accounts are never erased for inactivity
    # Years a vehicle's scans are kept after its year's submission to the authority (the law's
    # 3, 38. BImSchV § 7, or the partner's longer period): no other period deletes them sooner.
    scan_years_after_submission: int = 3


def retention_periods(retention: Retention) -> RetentionPeriods:
    """The partner's periods, the platform's default where it set none."""

    def days(own: int | None, default: int) -> timedelta:
        return timedelta(days=default if own is None else own)

    inactive = (
        retention.inactive_account_days
        if retention.inactive_account_days is not None
        else settings.RETENTION_INACTIVE_ACCOUNT_DAYS or None
    )
    return RetentionPeriods(
        unfinished=days(retention.unfinished_days, settings.RETENTION_UNFINISHED_DAYS),
        refused=days(retention.refused_days, settings.RETENTION_REFUSED_DAYS),
        login=days(retention.login_days, settings.RETENTION_LOGIN_DAYS),
        device=days(retention.device_days, settings.RETENTION_DEVICE_DAYS),
        scans_after_payout=days(
            retention.scans_after_payout_days, settings.RETENTION_SCANS_AFTER_PAYOUT_DAYS
        ),
        original_scan=(
            settings.ORIGINAL_SCAN_RETENTION
            if retention.original_scan_days is None
            else timedelta(days=retention.original_scan_days)
        ),
        inactive_account=timedelta(days=inactive) if inactive else None,
        scan_years_after_submission=max(
            LEGAL_SCAN_YEARS, retention.scan_years_after_submission or LEGAL_SCAN_YEARS
        ),
    )


def years_before(moment: datetime, years: int) -> datetime:
    """The same day and time that many years earlier (29 February: the 28th)."""
    try:
        return moment.replace(year=moment.year - years)
    except ValueError:
        return moment.replace(year=moment.year - years, day=28)


def _inactive_accounts(cutoff: datetime) -> QuerySet[User]:
    """Owners (never staff) with no login, session, upload or move since `cutoff` and no
    application still in progress."""
    recent = lambda model, **lookups: Exists(model.objects.filter(**lookups))  # noqa: E731
    return (
        User.objects.filter(is_staff=False, is_superuser=False, staff_member__isnull=True)
        .filter(date_joined__lt=cutoff)
        .exclude(last_login__gte=cutoff)
        .exclude(recent(OutstandingToken, user=OuterRef("pk"), created_at__gte=cutoff))
        .exclude(recent(BevRegistration, owner=OuterRef("pk"), created_at__gte=cutoff))
        .exclude(recent(Client, owner=OuterRef("pk"), updated_at__gte=cutoff))
        .exclude(recent(QuotaApplication, registration__owner=OuterRef("pk"), updated_at__gte=cutoff))
        .exclude(
            Exists(
                QuotaApplication.objects.filter(registration__owner=OuterRef("pk")).exclude(
                    status__in=FINISHED
                )
            )
        )
    )


def _inactive_erase(schema_name: str, cutoff: datetime) -> int:
    erased = 0
    while True:
        users = list(_inactive_accounts(cutoff).order_by("pk")[: settings.RETENTION_BATCH])
        for user in users:
            owner_erase(schema_name=schema_name, user=user, actor="retention (inactive account)")
        erased += len(users)
        if len(users) < settings.RETENTION_BATCH:
            return erased


def _originals_expire(now: datetime, retention: timedelta) -> int:
    """Released originals past their period, every batch of them (one call takes one batch)."""
    batch, total = settings.RETENTION_BATCH, 0
    while True:
        done = scan_originals_expire(now=now, batch=batch, retention=retention)
        total += done
        if done < batch:
            return total


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
    """One partner's run (inside its schema), with its own periods; returns counts per kind."""
    now = timezone.now()
    partner = Partner.objects.filter(schema_name=schema_name).first()
    config = PartnerConfig.model_validate(partner.config if partner is not None else {})
    periods = retention_periods(config.retention)
    before = lambda period: now - period  # noqa: E731
    counts: Counter[str] = Counter()
    has_application = Exists(QuotaApplication.objects.filter(registration=OuterRef("pk")))
    # Submitted to the authority within the scans' legal period: the vehicle's scans (and the
    # application that holds them) stay, whatever the other periods say.
    submitted_since = years_before(now, periods.scan_years_after_submission)
    sent = StatusChange.objects.filter(status=QuotaStatus.SENT_TO_UBA, created_at__gte=submitted_since)
    submitted_lately = Exists(sent.filter(application__registration=OuterRef("pk")))

    # Refused applications, then registrations left with none
    counts["refused applications"] = _batched(
        QuotaApplication.objects.filter(status__in=REFUSED, updated_at__lt=before(periods.refused)).exclude(
            Exists(sent.filter(application=OuterRef("pk")))
        ),
        _rows(QuotaApplication),
    )
    # Registrations and billing data never finished (no application), and those just emptied
    counts["unfinished registrations"] = _batched(
        BevRegistration.objects.filter(created_at__lt=before(periods.unfinished)).exclude(has_application),
        _registrations_delete,
    )
    counts["unfinished billing data"] = _batched(
        Client.objects.filter(created_at__lt=before(periods.unfinished)).exclude(
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
        .filter(last_move__lt=before(periods.scans_after_payout))
        .exclude(submitted_lately)
    )
    counts["scans after payout"] = _batched(paid_long_ago, _scans_delete)
    counts["released originals"] = _originals_expire(now, periods.original_scan)
    counts["device data"] = _batched(
        DeviceInfo.objects.filter(created_at__lt=before(periods.device)), _rows(DeviceInfo)
    )
    login_cutoff = before(periods.login)
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
        RetainedPayout.objects.filter(retain_until__lt=timezone.localdate(now)), _rows(RetainedPayout)
    )
    # Settlement batches (payout records, with erased owners' pseudonymised items) to the end of
    # the legal period after their payout (or their creation, for a batch never paid).
    payout_cutoff = datetime(
        timezone.localdate(now).year - settings.RETENTION_PAYOUT_YEARS,
        1,
        1,
        tzinfo=timezone.get_current_timezone(),
    )
    counts["settlement batches"] = _batched(
        SettlementBatch.objects.filter(
            Q(paid_at__lt=payout_cutoff) | Q(paid_at__isnull=True, created_at__lt=payout_cutoff)
        ),
        _rows(SettlementBatch),
    )
    if periods.inactive_account is not None:
        counts["inactive accounts"] = _inactive_erase(schema_name, before(periods.inactive_account))
    counts["orphaned scan files"] = len(scan_orphans_delete(schema_name=schema_name))
    return dict(counts)
