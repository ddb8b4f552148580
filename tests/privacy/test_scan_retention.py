"""Scans of the document as the law has it (issue 48): kept three years after the year's
submission to the authority (38. BImSchV § 7), then deleted by the retention run; a partner may
keep them longer, never shorter."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.utils import timezone
from django_tenants.utils import schema_context
from freezegun import freeze_time

from quota.models import QuotaApplication, QuotaStatus, StatusChange
from registrations.models import BevRegistration
from tenants.models import Partner
from tenants.services import partner_update
from tests.factories import ApplicationFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("in_autohaus")]
YEAR = timedelta(days=365)
DAY = timedelta(days=1)


def submitted_and(status: str, *, submitted_ago: timedelta, last_move_ago: timedelta) -> QuotaApplication:
    """An application sent to the authority that long ago, its scans stored."""
    application = ApplicationFactory.create(status=status)
    registration = application.registration
    for name in (registration.zlb_scan, registration.resized_image):
        default_storage.save(name, ContentFile(b"\xff\xd8\xff"))
    sent = StatusChange.objects.create(application=application, status=QuotaStatus.SENT_TO_UBA)
    StatusChange.objects.filter(pk=sent.pk).update(created_at=timezone.now() - submitted_ago)
    QuotaApplication.objects.filter(pk=application.pk).update(updated_at=timezone.now() - last_move_ago)
    BevRegistration.objects.filter(pk=registration.pk).update(
        created_at=timezone.now() - submitted_ago - 30 * DAY
    )
    return application


def run(capture: Any) -> dict[str, int]:
    from privacy.retention import retention_apply

    with capture(execute=True):
        return retention_apply(schema_name="p_autohaus")


def scans_kept(application: QuotaApplication) -> bool:
    registration = BevRegistration.objects.filter(pk=application.registration_id).first()
    return (
        registration is not None
        and bool(registration.zlb_scan)
        and default_storage.exists(registration.zlb_scan)
    )


def test_paid_out_scans_stay_three_years_after_the_submission_then_go(
    django_capture_on_commit_callbacks: Any,
) -> None:
    # paid out 2 years ago (the payout period alone would delete the scans after one year)
    young = submitted_and(
        QuotaStatus.PAID, submitted_ago=3 * YEAR - 10 * timedelta(days=1), last_move_ago=2 * YEAR
    )
    old = submitted_and(
        QuotaStatus.PAID, submitted_ago=3 * YEAR + 2 * timedelta(days=1), last_move_ago=2 * YEAR
    )

    counts = run(django_capture_on_commit_callbacks)

    assert scans_kept(young)
    assert not scans_kept(old)
    assert counts["scans after payout"] == 1


def test_a_refusal_by_the_authority_keeps_its_scans_for_the_legal_period(
    django_capture_on_commit_callbacks: Any,
) -> None:
    refused = submitted_and(
        QuotaStatus.REJECTED_BY_AUTHORITY, submitted_ago=YEAR, last_move_ago=300 * timedelta(days=1)
    )
    gone = submitted_and(
        QuotaStatus.REJECTED_BY_AUTHORITY,
        submitted_ago=3 * YEAR + 5 * timedelta(days=1),
        last_move_ago=3 * YEAR,
    )

    run(django_capture_on_commit_callbacks)

    assert QuotaApplication.objects.filter(pk=refused.pk).exists() and scans_kept(refused)
    assert not QuotaApplication.objects.filter(pk=gone.pk).exists()
    assert not BevRegistration.objects.filter(pk=gone.registration_id).exists()


def test_a_partner_keeps_scans_longer_never_shorter(django_capture_on_commit_callbacks: Any) -> None:
    with schema_context("public"):
        partner = Partner.objects.get(subdomain="autohaus")
        with pytest.raises(ValidationError) as refused:
            partner_update(
                partner=partner, config={**partner.config, "retention": {"scan_years_after_submission": 2}}
            )
        assert "retention.scan_years_after_submission: Mindestens 3." in str(refused.value)
        with django_capture_on_commit_callbacks(execute=True):
            partner_update(
                partner=partner, config={**partner.config, "retention": {"scan_years_after_submission": 5}}
            )
    four_years = submitted_and(QuotaStatus.PAID, submitted_ago=4 * YEAR, last_move_ago=4 * YEAR)
    six_years = submitted_and(QuotaStatus.PAID, submitted_ago=6 * YEAR, last_move_ago=6 * YEAR)

    run(django_capture_on_commit_callbacks)

    assert scans_kept(four_years)
    assert not scans_kept(six_years)


def test_the_daily_run_on_the_day_after_the_third_anniversary(
    django_capture_on_commit_callbacks: Any,
) -> None:
    application = submitted_and(QuotaStatus.PAID, submitted_ago=timedelta(0), last_move_ago=timedelta(0))
    sent_at = StatusChange.objects.get(application=application, status=QuotaStatus.SENT_TO_UBA).created_at
    with freeze_time(sent_at + 3 * YEAR - timedelta(days=1)):
        run(django_capture_on_commit_callbacks)
    assert scans_kept(application)
    with freeze_time(sent_at + 3 * YEAR + timedelta(days=2)):
        run(django_capture_on_commit_callbacks)
    assert not scans_kept(application)
