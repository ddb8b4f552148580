"""The staff's daily mail digest (issue 49): what happened in the partner's schema on the previous
local calendar day (new applications, finished bulk uploads, the authority's answers, failed
payouts), mailed once in the partner's branding (accounts.mails.mail_send) to every active
member who did not switch it off (staff.StaffMember.digest_enabled). Nothing is mailed for a day
on which nothing happened, and no member gets one day's digest twice (digest_sent_for).

Only counts and application numbers: no owner's name or address goes into a mail."""

from __future__ import annotations

import datetime
import logging
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from accounts.mails import mail_send
from operations.models import BulkUpload, SettlementItem
from quota.models import QuotaApplication, QuotaStatus, StatusChange
from staff.models import StaffMember
from tenants.middleware import partner_site_url
from tenants.models import Partner

logger = logging.getLogger(__name__)

# The authority's answers: the moves out of "sent to the UBA" (quota.catalogue).
AUTHORITY_ANSWERS = (QuotaStatus.ACCEPTED, QuotaStatus.REJECTED_BY_AUTHORITY, QuotaStatus.DOUBLE_REGISTRATION)
ANSWER_LABELS = {
    QuotaStatus.ACCEPTED: "bestätigt",
    QuotaStatus.REJECTED_BY_AUTHORITY: "abgelehnt",
    QuotaStatus.DOUBLE_REGISTRATION: "als Doppelmeldung abgelehnt",
}
LISTED = 20  # application numbers named per section; the rest is counted


@dataclass
class Digest:
    day: datetime.date
    new_applications: int = 0
    uploads: list[dict[str, object]] = field(default_factory=list)
    answers: dict[str, int] = field(default_factory=dict)
    failed_payouts: list[str] = field(default_factory=list)
    failed_payout_count: int = 0

    @property
    def empty(self) -> bool:
        return not (self.new_applications or self.uploads or self.answers or self.failed_payout_count)


def day_bounds(day: datetime.date) -> tuple[datetime.datetime, datetime.datetime]:
    """The local calendar day as [00:00, next day's 00:00) (23 or 25 hours when clocks change)."""
    zone = timezone.get_current_timezone()
    start = datetime.datetime.combine(day, datetime.time(), tzinfo=zone)
    end = datetime.datetime.combine(day + datetime.timedelta(days=1), datetime.time(), tzinfo=zone)
    return start, end


def digest_collect(day: datetime.date) -> Digest:
    """What the day contains, in the current schema."""
    start, end = day_bounds(day)
    digest = Digest(day=day)
    digest.new_applications = QuotaApplication.objects.filter(
        created_at__gte=start, created_at__lt=end
    ).count()
    for upload in BulkUpload.objects.filter(finished_at__gte=start, finished_at__lt=end).order_by(
        "finished_at"
    ):
        digest.uploads.append(
            {"file_name": upload.file_name, "status": BulkUpload.Status(upload.status).label}
        )
    for status in AUTHORITY_ANSWERS:
        count = StatusChange.objects.filter(status=status, created_at__gte=start, created_at__lt=end).count()
        if count:
            digest.answers[ANSWER_LABELS[status]] = count
    failed = SettlementItem.objects.filter(failed_at__gte=start, failed_at__lt=end).order_by(
        "failed_at", "pk"
    )
    digest.failed_payout_count = failed.count()
    digest.failed_payouts = [
        f"{sequence}/{year}" for sequence, year in failed.values_list("sequence", "legislation_year")[:LISTED]
    ]
    return digest


def digest_send(*, schema_name: str, today: datetime.date | None = None) -> int:
    """Mail yesterday's digest to each member who wants it and has not had it; returns how many
    were mailed. Run by the task queue once a day (operations.tasks.staff_digest_all)."""
    today = today or timezone.localdate()
    day = today - datetime.timedelta(days=1)
    digest = digest_collect(day)
    if digest.empty:
        return 0
    partner = Partner.objects.get(schema_name=schema_name)
    link = partner_site_url(partner) + "partner/dashboard"
    sent = 0
    members = (
        StaffMember.objects.select_related("user")
        .filter(is_active=True, user__is_active=True, digest_enabled=True)
        .exclude(digest_sent_for__gte=day)
        .order_by("pk")
    )
    for member in members:
        with transaction.atomic():
            # Taken under a row lock: two workers never mail one member the same day twice.
            locked = (
                StaffMember.objects.select_for_update(skip_locked=True)
                .filter(pk=member.pk, digest_enabled=True)
                .exclude(digest_sent_for__gte=day)
                .first()
            )
            if locked is None:
                continue
            mail_send(
                schema_name=schema_name,
                to=member.user.email,
                template="staff_digest",
                subject=f"Ihre Tagesübersicht vom {day.strftime('%d.%m.%Y')}",
                context={
                    "name": member.name,
                    "day": day.strftime("%d.%m.%Y"),
                    "digest": digest,
                    "more_failed": max(digest.failed_payout_count - len(digest.failed_payouts), 0),
                    "link": link,
                },
            )
            StaffMember.objects.filter(pk=member.pk).update(digest_sent_for=day)
            sent += 1
    return sent
