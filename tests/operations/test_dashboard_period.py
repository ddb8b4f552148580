"""Issue 49, a dashboard worth opening: the stats call's tiles (new, in review, submitted,
certified, paid, payout sum) in the chosen period and in the previous period of the same length,
with a frozen clock (an open-ended period ends today); the funnel monotonic by construction;
the number of queries flat in the amount of data; another partner's figures never counted. Over
HTTP with staff sessions (tests/operations/conftest.py: the autohaus demo partner, fees set)."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django_tenants.utils import schema_context
from freezegun import freeze_time

import config.api  # noqa: F401  (the routers' schemas built before a clock is frozen: dates stay dates)
from accounts.models import LoginCode
from operations.models import SettlementBatch, SubPartner
from quota.models import QuotaApplication, QuotaStatus, StatusChange
from tenants.models import Partner
from tests.factories import ApplicationFactory, UserFactory
from tests.operations.conftest import API, HOST, OTHER_HOST, SessionFactory
from tests.operations.test_settlement_reports import batch_of, to_pay

pytestmark = pytest.mark.django_db

# Weeks after everything the demo seeded: the periods hold only what the test puts there.
FIRST = timezone.localdate() + datetime.timedelta(days=60)  # the chosen period: FIRST .. FIRST + 6
BEFORE = FIRST - datetime.timedelta(days=7)  # the previous period: BEFORE .. FIRST - 1
YEAR = timezone.localdate().year  # the year the fees are set for (conftest.money_config)


def at(day: datetime.date, hour: int = 12, minute: int = 0, second: int = 0) -> datetime.datetime:
    zone = timezone.get_current_timezone()
    return datetime.datetime.combine(day, datetime.time(hour, minute, second), tzinfo=zone)


def days(n: int) -> datetime.timedelta:
    return datetime.timedelta(days=n)


def created(moment: datetime.datetime, **kwargs: Any) -> QuotaApplication:
    application = ApplicationFactory.create(**kwargs)
    QuotaApplication.objects.filter(pk=application.pk).update(created_at=moment)
    StatusChange.objects.filter(application=application).update(created_at=moment)
    return application


def moved(application: QuotaApplication, status: str, moment: datetime.datetime) -> None:
    change = StatusChange.objects.create(application=application, status=status)
    StatusChange.objects.filter(pk=change.pk).update(created_at=moment)


def tiles(body: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    return {tile["key"]: (tile["value"], tile["previous"]) for tile in body["tiles"]}


def stats(client: Client, query: str = "", host: str = HOST) -> dict[str, Any]:
    answer = client.get(f"{API}stats/{query}", HTTP_HOST=host)
    assert answer.status_code == 200, answer.content[:300]
    return answer.json()  # type: ignore[no-any-return]


def test_the_tiles_compare_the_period_with_the_one_before(autohaus: Partner, session: SessionFactory) -> None:
    # given: the clock on the chosen period's last day, a week after its first
    with freeze_time(at(FIRST + days(6), 15)):
        admin = session("partner_admin")
        viewer = session("viewer")
        meier = SubPartner.objects.create(name="Meier", referral_key="meier-dash")
        # two payouts: one batch paid in the period, one in the previous (created long before,
        # so they do not count as new)
        paid_now = to_pay(legislation_year=YEAR)
        paid_before = to_pay(legislation_year=YEAR)
        batch_of(admin, paid_now)
        earlier = batch_of(admin, paid_before)
        for application in (paid_now, paid_before):
            QuotaApplication.objects.filter(pk=application.pk).update(created_at=at(BEFORE - days(30)))
        SettlementBatch.objects.filter(pk=earlier["id"]).update(paid_at=at(FIRST - days(1), 23, 59, 59))
        StatusChange.objects.filter(application=paid_before, status=QuotaStatus.PAID).update(
            created_at=at(FIRST - days(1), 23, 59, 59)
        )
        # new: three in the period (its first and last second among them, one of Meier), two in
        # the previous one (its first and last second), one on each side outside both
        first_now = created(at(FIRST, 0), sub_partner=meier)
        created(at(FIRST + days(3)))
        last_now = created(at(FIRST + days(6), 23, 59, 59))
        first_before = created(at(BEFORE, 0))
        last_before = created(at(FIRST - days(1), 23, 59, 59))
        created(at(BEFORE - days(1), 23, 59, 59))
        created(at(FIRST + days(7), 0))
        # moves: into review twice in the period (one application twice: counted once), once
        # before; to the authority once in the period; confirmed twice before, none now
        moved(first_now, QuotaStatus.PICKED_UP, at(FIRST, 8))
        moved(first_now, QuotaStatus.PICKED_UP, at(FIRST + days(1), 8))
        moved(last_now, QuotaStatus.PICKED_UP, at(FIRST + days(6), 23))
        moved(first_before, QuotaStatus.PICKED_UP, at(BEFORE, 0, 0, 1))
        moved(first_now, QuotaStatus.SENT_TO_UBA, at(FIRST + days(2)))
        moved(first_before, QuotaStatus.ACCEPTED, at(BEFORE + days(2)))
        moved(last_before, QuotaStatus.ACCEPTED, at(FIRST - days(1), 23))
        moved(last_now, QuotaStatus.ACCEPTED, at(FIRST + days(7), 0, 0, 1))  # after the period

        # when: the period from FIRST, open-ended (so up to today, the frozen day)
        body = stats(viewer, f"?created_from={FIRST.isoformat()}")

    # then
    assert body["period"] == {"from": FIRST.isoformat(), "to": (FIRST + days(6)).isoformat(), "days": 7}
    assert body["previous_period"] == {
        "from": BEFORE.isoformat(),
        "to": (FIRST - days(1)).isoformat(),
        "days": 7,
    }
    assert tiles(body) == {
        "new": (3, 2),
        "in_review": (2, 1),
        "submitted": (1, 0),
        "certified": (0, 2),
        "paid": (1, 1),
        "payout_sum": ("85.00", "85.00"),
    }
    assert [tile["status"] for tile in body["tiles"]] == [
        None, "qa_picked_up", "qa_sent_to_uba", "qa_accepted", "qa_paid", None,
    ]  # fmt: skip

    with freeze_time(at(FIRST + days(6), 15)):
        # a closed period: the same figures; one sub-partner: only its applications
        closed = stats(
            viewer, f"?created_from={FIRST.isoformat()}&created_to={(FIRST + days(6)).isoformat()}"
        )
        of_meier = stats(viewer, f"?created_from={FIRST.isoformat()}&sub_partner={meier.pk}")
        # without a first day there is no period to compare: no previous figures
        everything = stats(viewer)
        # another partner's staff sees none of it; nobody signed in sees nothing
        other = stats(session("viewer", host=OTHER_HOST, partner=Partner.objects.get(subdomain="stadtwerk")),
                      f"?created_from={FIRST.isoformat()}", host=OTHER_HOST)  # fmt: skip
        anonymous = Client().get(f"{API}stats/?created_from={FIRST.isoformat()}", HTTP_HOST=HOST)
    assert tiles(closed) == tiles(body)
    # the tiles' "new" is the per-day chart's sum
    assert sum(day["count"] for day in closed["per_day"]) == 3
    assert tiles(of_meier) == {
        "new": (1, 0), "in_review": (1, 0), "submitted": (1, 0), "certified": (0, 0), "paid": (0, 0),
        "payout_sum": ("0.00", "0.00"),
    }  # fmt: skip
    assert everything["period"] is None and everything["previous_period"] is None
    assert all(tile["previous"] is None for tile in everything["tiles"])
    assert tiles(everything)["new"][0] >= 7
    assert {key: value for key, (value, _) in tiles(other).items()} == {
        "new": 0, "in_review": 0, "submitted": 0, "certified": 0, "paid": 0, "payout_sum": "0.00",
    }  # fmt: skip
    assert anonymous.status_code in (401, 403)


def test_the_funnel_never_grows_and_counts_a_person_once(autohaus: Partner, session: SessionFactory) -> None:
    with freeze_time(at(FIRST, 9)):
        viewer = session("viewer")
        now = timezone.now()
        # asked for a code (upper case) and went all the way: one person at every step
        owner = UserFactory.create(email="fahrer@example.de")
        LoginCode.objects.create(email="Fahrer@Example.de", code_hash="x", expires_at=now, used_at=now)
        ApplicationFactory.create(registration__owner=owner)
        # came by a bulk upload: no code at all, but a locked application; counted as started
        ApplicationFactory.create()
        # asked for a code only; used one only
        LoginCode.objects.create(email="nur@example.de", code_hash="x", expires_at=now)
        LoginCode.objects.create(email="benutzt@example.de", code_hash="x", expires_at=now, used_at=now)
        body = stats(viewer, f"?created_from={FIRST.isoformat()}&created_to={FIRST.isoformat()}")
    funnel = body["funnel"]
    assert funnel == {"flow_started": 4, "code_verified": 3, "scan_accepted": 2, "billing_locked": 2}
    steps = list(funnel.values())
    assert steps == sorted(steps, reverse=True)


def test_the_number_of_queries_stays_flat(autohaus: Partner, session: SessionFactory) -> None:
    with freeze_time(at(FIRST + days(6), 15)):
        viewer = session("viewer")
        query = f"?created_from={FIRST.isoformat()}"
        stats(viewer, query)  # warm: the session and the partner are read once

        def queries() -> int:
            with CaptureQueriesContext(connection) as captured:
                stats(viewer, query)
            return len(captured)

        few = queries()
        for index in range(12):
            application = created(at(FIRST + days(index % 7)))
            moved(application, QuotaStatus.PICKED_UP, at(FIRST + days(index % 7), 13))
            created(at(BEFORE + days(index % 7)))
        many = queries()
    assert many == few
    with schema_context(autohaus.schema_name):
        assert QuotaApplication.objects.count() >= 24
