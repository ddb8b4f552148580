"""Per-partner retention (issue 19): each partner sets its periods in its configuration, within
legal bounds; the daily run applies that partner's periods in that partner's schema only."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.utils import timezone
from django_tenants.utils import schema_context
from ninja_jwt.token_blacklist.models import OutstandingToken

from accounts.models import LoginCode, User
from common.partner_config import ConfigErrors, config_public, config_validate
from privacy.models import RetainedPayout
from privacy.tasks import retention_run
from quota.models import QuotaApplication, QuotaStatus
from registrations.models import BevRegistration, DeviceInfo
from tenants.config_form import config_form_schema
from tenants.models import Partner
from tenants.services import partner_update
from tests.factories import ApplicationFactory, UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media")]
DAY = timedelta(days=1)


def _aged(model: Any, pk: int, field: str, age: timedelta) -> None:
    model.objects.filter(pk=pk).update(**{field: timezone.now() - age})


def _retention(captured: Any, subdomain: str, **days: int | None) -> None:
    partner = Partner.objects.get(subdomain=subdomain)
    with captured(execute=True):
        partner_update(partner=partner, config={**partner.config, "retention": days})


@pytest.mark.parametrize(
    ("field", "refused", "allowed"),
    [
        ("unfinished_days", 6, 7),
        ("unfinished_days", 91, 90),
        ("refused_days", 29, 365),
        ("refused_days", 366, 30),
        ("login_days", 0, 1),
        ("device_days", 91, 90),
        ("scans_after_payout_days", 29, 1095),
        ("scans_after_payout_days", 1096, 30),
        ("original_scan_days", -1, 0),
        ("original_scan_days", 91, 90),
        ("inactive_account_days", 364, 365),
        ("inactive_account_days", 3651, 3650),
    ],
)
def test_the_periods_are_bounded(field: str, refused: int, allowed: int) -> None:
    with pytest.raises(ConfigErrors) as error:
        config_validate({"retention": {field: refused}})
    assert list(error.value.errors) == [f"retention.{field}"]
    assert getattr(config_validate({"retention": {field: allowed}}).retention, field) == allowed


def test_an_empty_period_is_the_platforms_default_and_the_form_offers_the_bounds() -> None:
    assert config_validate({"retention": {"refused_days": ""}}).retention.refused_days is None
    with pytest.raises(ConfigErrors):
        config_validate({"retention": {"refused_days": 60, "keep_forever": True}})
    field = config_form_schema()["keys"]["rechtliches"]["keys"]["retention"]["keys"]["refused_days"]
    assert (field["type"], field["minimum"], field["maximum"]) == ("integer", 30, 365)
    # the periods are the partner's business, not the public configuration call's
    assert "retention" not in config_public({"retention": {"refused_days": 60}})


def test_each_partner_runs_with_its_own_periods(django_capture_on_commit_callbacks: Any) -> None:
    # given autohaus keeps refused applications 30 days and device data 7; stadtwerk the defaults
    _retention(django_capture_on_commit_callbacks, "autohaus", refused_days=30, device_days=7)
    rows: dict[str, tuple[int, int]] = {}
    for schema in ("p_autohaus", "p_stadtwerk"):
        with schema_context(schema):
            refused = ApplicationFactory.create(status=QuotaStatus.MANUALLY_REJECTED)
            _aged(QuotaApplication, refused.pk, "updated_at", 31 * DAY)
            device = DeviceInfo.objects.create(registration=refused.registration, device_type="mobile")
            _aged(DeviceInfo, device.pk, "created_at", 8 * DAY)
            rows[schema] = (refused.pk, device.pk)

    # when the daily run reaches both
    with django_capture_on_commit_callbacks(execute=True):
        for schema in ("p_autohaus", "p_stadtwerk"):
            with schema_context(schema):
                retention_run(schema)

    # then autohaus's shorter periods applied there, and only there
    with schema_context("p_autohaus"):
        assert not QuotaApplication.objects.filter(pk=rows["p_autohaus"][0]).exists()
        assert not DeviceInfo.objects.filter(pk=rows["p_autohaus"][1]).exists()
    with schema_context("p_stadtwerk"):
        assert QuotaApplication.objects.filter(pk=rows["p_stadtwerk"][0]).exists()
        assert DeviceInfo.objects.filter(pk=rows["p_stadtwerk"][1]).exists()


def test_a_partner_keeps_longer_within_the_bounds(django_capture_on_commit_callbacks: Any) -> None:
    # given autohaus keeps login codes 60 days and the scans two years after the payout
    _retention(django_capture_on_commit_callbacks, "autohaus", login_days=60, scans_after_payout_days=730)
    with schema_context("p_autohaus"):
        LoginCode.objects.create(email="a@example.de", code_hash="x", expires_at=timezone.now() - 31 * DAY)
        paid = ApplicationFactory.create(status=QuotaStatus.PAID)
        default_storage.save(paid.registration.zlb_scan, ContentFile(b"\xff\xd8\xff"))
        _aged(QuotaApplication, paid.pk, "updated_at", 400 * DAY)

        with django_capture_on_commit_callbacks(execute=True):
            retention_run("p_autohaus")

        # then what the defaults would have deleted is still there
        assert LoginCode.objects.filter(email="a@example.de").exists()
        assert BevRegistration.objects.get(pk=paid.registration_id).zlb_scan != ""
        assert default_storage.exists(paid.registration.zlb_scan)


def test_inactive_accounts_are_erased_when_the_partner_sets_a_period(
    django_capture_on_commit_callbacks: Any,
) -> None:
    with schema_context("p_autohaus"):
        # given an owner inactive for 400 days whose only application was paid out, one inactive
        # as long but with an application still in progress, and one who logged in lately
        gone = ApplicationFactory.create(status=QuotaStatus.PAID)
        waiting = ApplicationFactory.create(status=QuotaStatus.TO_PAY)
        recent = UserFactory.create()
        for application in (gone, waiting):
            _aged(QuotaApplication, application.pk, "updated_at", 400 * DAY)
            _aged(BevRegistration, application.registration_id, "created_at", 400 * DAY)
            application.client.__class__.objects.filter(pk=application.client_id).update(
                created_at=timezone.now() - 400 * DAY, updated_at=timezone.now() - 400 * DAY
            )
        for user in (gone.registration.owner, waiting.registration.owner, recent):
            _aged(User, user.pk, "date_joined", 400 * DAY)
        _aged(User, recent.pk, "last_login", 10 * DAY)
        ids = {
            "gone": gone.registration.owner_id,
            "waiting": waiting.registration.owner_id,
            "recent": recent.pk,
        }

        # without a period (the default) nobody is erased for inactivity
        with django_capture_on_commit_callbacks(execute=True):
            retention_run("p_autohaus")
        assert User.objects.filter(pk__in=ids.values()).count() == 3

    # when the partner sets one year
    _retention(django_capture_on_commit_callbacks, "autohaus", inactive_account_days=365)
    with schema_context("p_autohaus"), django_capture_on_commit_callbacks(execute=True):
        retention_run("p_autohaus")

        # then only the finished, inactive owner is erased; the payout record is kept pseudonymised
        assert set(User.objects.filter(pk__in=ids.values()).values_list("pk", flat=True)) == {
            ids["waiting"],
            ids["recent"],
        }
        assert not OutstandingToken.objects.filter(user_id=ids["gone"]).exists()
        assert RetainedPayout.objects.filter(sequence=gone.registration.sequence).exists()
