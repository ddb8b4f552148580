"""Retention (issue 19): the periodic run deletes what is past its period and nothing else."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.utils import timezone

from accounts.models import LoginCode, LoginLink
from billing.models import Client
from operations.models import SettlementBatch, SettlementItem
from privacy.models import DataExport, RetainedPayout
from privacy.tasks import retention_run
from quota.models import QuotaApplication, QuotaStatus
from registrations.models import BevRegistration, DeviceInfo
from tests.factories import ApplicationFactory, ClientFactory, RegistrationFactory, UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("in_autohaus")]
DAY = timedelta(days=1)


def _aged(model: Any, pk: int, field: str, age: timedelta) -> None:
    model.objects.filter(pk=pk).update(**{field: timezone.now() - age})


def _with_files(registration: BevRegistration) -> BevRegistration:
    for name in (registration.zlb_scan, registration.resized_image):
        default_storage.save(name, ContentFile(b"\xff\xd8\xff"))
    return registration


def test_each_kind_is_deleted_just_after_its_period(
    django_capture_on_commit_callbacks: Any, caplog: pytest.LogCaptureFixture, media: Path
) -> None:
    owner = UserFactory.create()
    # unfinished registrations: 31 days old goes, 29 days old stays
    old_unfinished = _with_files(RegistrationFactory.create(owner=owner))
    _aged(BevRegistration, old_unfinished.pk, "created_at", 31 * DAY)
    young_unfinished = RegistrationFactory.create(owner=owner)
    _aged(BevRegistration, young_unfinished.pk, "created_at", 29 * DAY)
    old_client = ClientFactory.create(owner=owner)
    _aged(Client, old_client.pk, "created_at", 31 * DAY)
    # refused applications: 91 days after the refusal goes (with its registration), 89 stays
    refused = ApplicationFactory.create(registration__owner=owner, status=QuotaStatus.MANUALLY_REJECTED)
    _with_files(refused.registration)
    _aged(QuotaApplication, refused.pk, "updated_at", 91 * DAY)
    _aged(BevRegistration, refused.registration_id, "created_at", 91 * DAY)
    recent_refusal = ApplicationFactory.create(
        registration__owner=owner, status=QuotaStatus.MANUALLY_REJECTED
    )
    _aged(QuotaApplication, recent_refusal.pk, "updated_at", 89 * DAY)
    # scans one year after the payout: the rows stay, the files go
    paid = ApplicationFactory.create(registration__owner=owner, status=QuotaStatus.PAID)
    _with_files(paid.registration)
    _aged(QuotaApplication, paid.pk, "updated_at", 366 * DAY)
    paid_recently = ApplicationFactory.create(registration__owner=owner, status=QuotaStatus.PAID)
    _aged(QuotaApplication, paid_recently.pk, "updated_at", 364 * DAY)
    # device data, login codes and links
    old_device = DeviceInfo.objects.create(registration=paid.registration, device_type="mobile")
    _aged(DeviceInfo, old_device.pk, "created_at", 31 * DAY)
    DeviceInfo.objects.create(registration=paid.registration, device_type="desktop")
    LoginCode.objects.create(email="a@example.de", code_hash="x", expires_at=timezone.now() - 31 * DAY)
    LoginCode.objects.create(email="b@example.de", code_hash="y", expires_at=timezone.now() - 29 * DAY)
    LoginLink.objects.create(email="a@example.de", key_hash="z", expires_at=timezone.now() - 31 * DAY)
    # an expired export with its file, a payout record past its legal period
    default_storage.save("p_autohaus/exports/old.zip", ContentFile(b"zip"))
    DataExport.objects.create(user=owner, key_hash="k", file="p_autohaus/exports/old.zip",
                              expires_at=timezone.now() - DAY)  # fmt: skip
    RetainedPayout.objects.create(pseudonym="p", sequence=1, legislation_year=2014, status="qa_paid",
                                  created_at=timezone.now(), retain_until=timezone.localdate() - DAY)  # fmt: skip
    RetainedPayout.objects.create(pseudonym="q", sequence=2, legislation_year=2025, status="qa_paid",
                                  created_at=timezone.now(), retain_until=timezone.localdate() + DAY)  # fmt: skip

    with caplog.at_level(logging.INFO), django_capture_on_commit_callbacks(execute=True):
        retention_run("p_autohaus")

    assert not BevRegistration.objects.filter(pk__in=[old_unfinished.pk, refused.registration_id]).exists()
    assert not default_storage.exists(old_unfinished.zlb_scan)
    assert not default_storage.exists(refused.registration.zlb_scan)
    assert BevRegistration.objects.filter(pk=young_unfinished.pk).exists()
    assert not Client.objects.filter(pk=old_client.pk).exists()
    assert QuotaApplication.objects.filter(pk=recent_refusal.pk).exists()
    paid_files = (paid.registration.zlb_scan, paid.registration.resized_image)
    paid.registration.refresh_from_db()
    assert paid.registration.zlb_scan == "" and paid.registration.resized_image == ""
    assert not any(default_storage.exists(name) for name in paid_files)  # files gone, row kept
    assert QuotaApplication.objects.filter(pk=paid.pk).exists()
    assert BevRegistration.objects.get(pk=paid_recently.registration_id).zlb_scan != ""
    assert list(DeviceInfo.objects.values_list("device_type", flat=True)) == ["desktop"]
    assert list(LoginCode.objects.values_list("email", flat=True)) == ["b@example.de"]
    assert not LoginLink.objects.exists()
    assert not DataExport.objects.exists() and not default_storage.exists("p_autohaus/exports/old.zip")
    assert list(RetainedPayout.objects.values_list("pseudonym", flat=True)) == ["q"]
    line = next(r.getMessage() for r in caplog.records if r.getMessage().startswith("retention run"))
    # the refused application's registration had nothing left: it went as unfinished
    assert "unfinished registrations 2" in line and "refused applications 1" in line
    assert "scans after payout 1" in line and "login codes 1" in line and "payout records 1" in line


def test_the_periods_are_settings(settings: Any, django_capture_on_commit_callbacks: Any) -> None:
    settings.RETENTION_UNFINISHED_DAYS = 5
    registration = RegistrationFactory.create()
    _aged(BevRegistration, registration.pk, "created_at", 6 * DAY)

    with django_capture_on_commit_callbacks(execute=True):
        retention_run("p_autohaus")

    assert not BevRegistration.objects.filter(pk=registration.pk).exists()


def _batch_item(application: QuotaApplication, *, created: datetime, paid: datetime | None) -> SettlementItem:
    batch = SettlementBatch.objects.create(
        reference="THG-test",
        execution_date=created.date(),
        status=SettlementBatch.Status.SETTLED if paid else SettlementBatch.Status.NEW,
        paid_at=paid,
    )
    SettlementBatch.objects.filter(pk=batch.pk).update(created_at=created)
    return SettlementItem.objects.create(
        batch=batch,
        application=application,
        owner=application.registration.owner,
        sequence=application.registration.sequence,
        legislation_year=application.legislation_year,
        method=SettlementItem.Method.SEPA,
        net=Decimal("85.00"),
        vat_percent=Decimal("0.00"),
        vat=Decimal("0.00"),
        gross=Decimal("85.00"),
        payee_name="Ina Beispiel",
        iban="DE89370400440532013000",
        end_to_end_id=f"THG{batch.pk}-{application.registration.sequence}",
    )


def test_settlement_batches_are_kept_to_the_end_of_the_payout_period_and_survive_their_applications(
    django_capture_on_commit_callbacks: Any, caplog: pytest.LogCaptureFixture
) -> None:
    # given: batches paid in the last year past the period, in the first year within it, one
    # never paid made past the period, and a failed payout whose application was refused long ago
    year = timezone.localdate().year - settings.RETENTION_PAYOUT_YEARS
    zone = timezone.get_current_timezone()
    # (one application each: an application is in one open or paid item at most, issue 46)
    past = _batch_item(ApplicationFactory.create(status=QuotaStatus.PAID), created=datetime(year - 1, 12, 1, tzinfo=zone),
                       paid=datetime(year - 1, 12, 31, 12, tzinfo=zone))  # fmt: skip
    within = _batch_item(ApplicationFactory.create(status=QuotaStatus.PAID), created=datetime(year - 1, 12, 1, tzinfo=zone),
                         paid=datetime(year, 1, 1, 12, tzinfo=zone))  # fmt: skip
    never_paid = _batch_item(
        ApplicationFactory.create(status=QuotaStatus.TO_SETTLE),
        created=datetime(year - 1, 6, 1, tzinfo=zone),
        paid=None,
    )
    refused = ApplicationFactory.create(status=QuotaStatus.REJECTED_BY_PARTNER)
    _aged(QuotaApplication, refused.pk, "updated_at", 91 * DAY)
    failed = _batch_item(refused, created=timezone.now() - 200 * DAY, paid=timezone.now() - 199 * DAY)

    # when
    with caplog.at_level(logging.INFO), django_capture_on_commit_callbacks(execute=True):
        retention_run("p_autohaus")

    # then: the batches past the period went with their items; the others stay, the failed
    # payout's item without its (deleted) application but with its number, year and amount
    assert not SettlementItem.objects.filter(pk__in=[past.pk, never_paid.pk]).exists()
    assert SettlementItem.objects.filter(pk=within.pk).exists()
    assert not QuotaApplication.objects.filter(pk=refused.pk).exists()
    kept = SettlementItem.objects.get(pk=failed.pk)
    assert kept.application_id is None and kept.gross == Decimal("85.00")
    assert (kept.sequence, kept.legislation_year) == (refused.registration.sequence, refused.legislation_year)
    line = next(r.getMessage() for r in caplog.records if r.getMessage().startswith("retention run"))
    assert "settlement batches 2" in line and "refused applications 1" in line
