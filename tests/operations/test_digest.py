"""Issue 49, the staff's daily mail digest with a frozen clock: the day it reports is the previous
local calendar day (00:00 to 24:00 Berlin, nothing from before or after); new applications,
finished uploads, the authority's answers and failed payouts; mailed once by the daily task in the
partner's branding to each active member who did not switch it off (PATCH /api/partner/me/ over
HTTP, audited); nothing when nothing happened, nobody twice for one day."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone
from freezegun import freeze_time

from operations.models import BulkUpload, SettlementItem
from operations.tasks import staff_digest_all
from quota.models import QuotaApplication, QuotaStatus, StatusChange
from staff.models import AuditEntry, StaffMember
from tenants.models import Partner
from tests.factories import ApplicationFactory
from tests.operations.conftest import API, HOST, SessionFactory, member_of
from tests.operations.test_settlement_reports import batch_of, to_pay

pytestmark = pytest.mark.django_db


def at(day: datetime.date, hour: int, minute: int = 0, second: int = 0) -> datetime.datetime:
    zone = timezone.get_current_timezone()
    return datetime.datetime.combine(day, datetime.time(hour, minute, second), tzinfo=zone)


def recipients() -> list[str]:
    return sorted(address for message in mail.outbox for address in message.to)


def test_the_digest_reports_the_previous_day_once_to_those_who_want_it(
    autohaus: Partner, session: SessionFactory
) -> None:
    # given: a day after everything the demo seeded; staff of three kinds
    day = timezone.localdate() + datetime.timedelta(days=10)
    admin = session("partner_admin")
    viewer = session("viewer")
    gone = member_of(session("back_office"))
    StaffMember.objects.filter(pk=gone.pk).update(is_active=False)

    # the viewer switches the digest off, over HTTP
    switched = viewer.patch(
        f"{API}me/", {"digest_enabled": False}, content_type="application/json", HTTP_HOST=HOST
    )
    assert switched.status_code == 200 and switched.json()["digest_enabled"] is False
    assert viewer.get(f"{API}me/", HTTP_HOST=HOST).json()["digest_enabled"] is False
    assert AuditEntry.objects.filter(
        action="staff.digest_change", object_id=str(member_of(viewer).pk), after={"digest_enabled": False}
    ).exists()

    # what happened: two applications inside the day (its first and last second), two outside
    inside = [ApplicationFactory.create(), ApplicationFactory.create()]
    outside = [ApplicationFactory.create(), ApplicationFactory.create()]
    QuotaApplication.objects.filter(pk=inside[0].pk).update(created_at=at(day, 0, 0, 0))
    QuotaApplication.objects.filter(pk=inside[1].pk).update(created_at=at(day, 23, 59, 59))
    QuotaApplication.objects.filter(pk=outside[0].pk).update(
        created_at=at(day, 0) - datetime.timedelta(seconds=1)
    )
    QuotaApplication.objects.filter(pk=outside[1].pk).update(
        created_at=at(day + datetime.timedelta(days=1), 0)
    )
    # the authority answered two (accepted, rejected); one answer came the day after
    for application, status, moment in (
        (inside[0], QuotaStatus.ACCEPTED, at(day, 9)),
        (inside[1], QuotaStatus.REJECTED_BY_AUTHORITY, at(day, 15)),
        (outside[0], QuotaStatus.ACCEPTED, at(day + datetime.timedelta(days=1), 8)),
    ):
        change = StatusChange.objects.create(application=application, status=status)
        StatusChange.objects.filter(pk=change.pk).update(created_at=moment)
    # an upload finished that day, one is still running
    BulkUpload.objects.create(
        file_name="flotte-maerz.zip", size=1, file_count=3, status=BulkUpload.Status.READY,
        finished_at=at(day, 11),
    )  # fmt: skip
    BulkUpload.objects.create(
        file_name="laeuft.zip", size=1, file_count=3, status=BulkUpload.Status.IN_PROGRESS
    )
    # a payout failed that day
    batch = batch_of(admin, to_pay(), mark_paid=False)
    item = SettlementItem.objects.get(pk=batch["items"][0]["id"])
    SettlementItem.objects.filter(pk=item.pk).update(
        status=SettlementItem.Status.FAILED, failed_at=at(day, 13)
    )
    mail.outbox.clear()

    # when: the daily task runs the next morning
    with freeze_time(at(day + datetime.timedelta(days=1), 7, 30)):
        staff_digest_all()

    # then: every active member who wants it, once; not the viewer, not the deactivated one
    wanted = sorted(
        StaffMember.objects.filter(is_active=True, digest_enabled=True, user__is_active=True).values_list(
            "user__email", flat=True
        )
    )
    assert member_of(admin).user.email in wanted and member_of(viewer).user.email not in wanted
    assert recipients() == wanted and gone.user.email not in recipients()
    message = next(m for m in mail.outbox if m.to == [member_of(admin).user.email])
    label = day.strftime("%d.%m.%Y")
    assert message.subject == f"Ihre Tagesübersicht vom {label} – {autohaus.name}"
    text = message.body
    assert "Neue Anträge: 2" in text
    assert "Abgeschlossene Sammel-Uploads: 1" in text and "flotte-maerz.zip: Fertig (mit Ablehnungen)" in text
    assert "laeuft.zip" not in text
    assert "1 bestätigt" in text and "1 abgelehnt" in text
    assert f"Fehlgeschlagene Auszahlungen: 1 (Anträge {item.sequence}/{item.legislation_year})" in text
    html: Any = message.alternatives[0][0]  # type: ignore[attr-defined]
    assert "Zum Partnerbereich" in html and "partner/dashboard" in html
    assert item.payee_name not in text and item.payee_name not in html  # counts and numbers, no names
    assert StaffMember.objects.get(pk=member_of(admin).pk).digest_sent_for == day

    # a second run that morning (a retry, a second worker) mails nobody again
    with freeze_time(at(day + datetime.timedelta(days=1), 9)):
        staff_digest_all()
    assert recipients() == wanted

    # the next day holds only the late answer; the day after that nothing: no mail
    mail.outbox.clear()
    with freeze_time(at(day + datetime.timedelta(days=2), 7, 30)):
        staff_digest_all()
    assert recipients() == wanted and "1 bestätigt" in mail.outbox[0].body
    assert "Neue Anträge" in mail.outbox[0].body  # the application at 00:00 of that day
    mail.outbox.clear()
    with freeze_time(at(day + datetime.timedelta(days=3), 7, 30)):
        staff_digest_all()
    assert mail.outbox == []


def test_the_own_digest_switch_is_only_ones_own(autohaus: Partner, session: SessionFactory) -> None:
    viewer = session("viewer")
    admin = session("partner_admin")
    # an unknown field changes nothing; another member's row has no such call
    refused = viewer.patch(
        f"{API}me/", {"digest_enabled": "vielleicht"}, content_type="application/json", HTTP_HOST=HOST
    )
    assert refused.status_code in (400, 422)
    assert StaffMember.objects.get(pk=member_of(viewer).pk).digest_enabled is True
    answer = admin.patch(
        f"{API}staff/{member_of(viewer).pk}/",
        {"digest_enabled": False},
        content_type="application/json",
        HTTP_HOST=HOST,
    )
    assert StaffMember.objects.get(pk=member_of(viewer).pk).digest_enabled is True, answer.content
    # without a session nobody switches anything
    assert Client().patch(
        f"{API}me/", {"digest_enabled": False}, content_type="application/json", HTTP_HOST=HOST
    ).status_code in (401, 403)
    # and without the CSRF header neither
    bare = Client(enforce_csrf_checks=True)
    bare.cookies = viewer.cookies
    csrf_less = bare.patch(
        f"{API}me/", {"digest_enabled": False}, content_type="application/json", HTTP_HOST=HOST
    )
    assert csrf_less.status_code == 403
    assert StaffMember.objects.get(pk=member_of(viewer).pk).digest_enabled is True
