"""The dashboard's rollup (quota.models.ApplicationDayCount, kept by the triggers of migration
quota 0005): after every kind of write it equals a live aggregate of the applications; a
schema cloned for a new partner or restored under another name carries the triggers and
writes its own rollup (a restored copy: tests/tenancy/test_onboarding_backup.py); the stats call reads it and queues its compaction."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context

from operations import selectors as operations_selectors
from operations.demo import applications_generate, demo_operations_ensure
from operations.models import SingleDeal
from quota.models import ApplicationDayCount, QuotaApplication, QuotaStatus
from quota.services import application_day_counts_compact, quota_application_move
from registrations.models import BevRegistration
from tenants.models import Partner
from tenants.services import partner_provision
from tests.day_counts import TRIGGERS, live, rolled, schema_triggers
from tests.factories import ApplicationFactory
from tests.partner_staff import partner_session, staff_member

pytestmark = pytest.mark.django_db
SCHEMA = "p_stadtwerk"
HOST = "stadtwerk.localhost"
API = "/api/partner/"


def test_the_rollup_equals_the_rows_after_every_kind_of_write() -> None:
    with schema_context(SCHEMA):
        # given applications made one by one, and 300 in bulk over 30 days
        single = ApplicationFactory.create_batch(3)
        sub_partners, deal = demo_operations_ensure()
        applications_generate(count=300, days=30, sub_partners=sub_partners, single_deal=deal, label="rollup")
        assert live() == rolled() and sum(live().values()) >= 303

        # when moved one at a time (with history), and many at once by a bulk UPDATE
        for application in single:
            quota_application_move(application=application, status=QuotaStatus.ENTERED, actor=None)
        some = list(QuotaApplication.objects.order_by("pk").values_list("pk", flat=True)[:120])
        QuotaApplication.objects.filter(pk__in=some[:60]).update(status=QuotaStatus.PICKED_UP)
        assert live() == rolled()
        # ... attributed elsewhere, dated elsewhere, only touched
        QuotaApplication.objects.filter(pk__in=some[60:90]).update(
            sub_partner=sub_partners[1], single_deal=None
        )
        QuotaApplication.objects.filter(pk__in=some[90:]).update(
            created_at=timezone.now() - timedelta(days=400), single_deal=deal
        )
        touched_before = ApplicationDayCount.objects.count()
        QuotaApplication.objects.filter(pk__in=some).update(updated_at=timezone.now())
        assert ApplicationDayCount.objects.count() == touched_before  # nothing changed: no rows
        assert live() == rolled()

        # ... the vehicle class of registrations corrected (one, and several in one statement)
        registration = single[0].registration
        registration.vehicle_class = "N1"
        registration.save(update_fields=["vehicle_class"])
        many = list(BevRegistration.objects.order_by("-pk").values_list("pk", flat=True)[:20])
        BevRegistration.objects.filter(pk__in=many).update(vehicle_class="N1")
        BevRegistration.objects.filter(pk__in=many[:5]).update(vehicle_class="")
        assert live() == rolled()

        # ... deleted
        doomed = list(QuotaApplication.objects.order_by("-pk").values_list("pk", flat=True)[:25])
        QuotaApplication.objects.filter(pk__in=doomed).delete()
        assert live() == rolled()

        # then compaction leaves one row per key and the same counts
        rows_before = ApplicationDayCount.objects.count()
        left = application_day_counts_compact()
        assert left == ApplicationDayCount.objects.count() == len(live()) < rows_before
        assert live() == rolled()


def test_a_cloned_schema_carries_the_triggers_and_writes_its_own_rollup() -> None:
    # given a partner provisioned from the template (tenants.cloning: pg_dump's script replayed)
    partner = partner_provision(subdomain="rollup-clone", name="Rollup GmbH")

    assert schema_triggers(partner.schema_name) == TRIGGERS
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
            " WHERE n.nspname = %s AND p.proname LIKE 'quota_day_counts%%'",
            [partner.schema_name],
        )
        assert cursor.fetchone()[0] == 3
    with schema_context(SCHEMA):
        before = rolled()
    with schema_context(partner.schema_name):
        ApplicationFactory.create_batch(2)
        assert live() == rolled() and sum(rolled().values()) == 2
    with schema_context(SCHEMA):
        assert rolled() == before  # another schema's writes never reach this one


def test_stats_over_http_follow_a_bulk_move_and_queue_a_compaction(
    monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    partner = Partner.objects.get(subdomain="stadtwerk")
    member, password = staff_member(partner, role="back_office")
    client = partner_session(Client(enforce_csrf_checks=True), HOST, member, password)
    with schema_context(SCHEMA):
        applications = ApplicationFactory.create_batch(4)
        deal = SingleDeal.objects.create(name="D", deal_key="d-rollup", price_net=100, legislation_years=[])
        QuotaApplication.objects.filter(pk=applications[0].pk).update(single_deal=deal)
    ids = [a.pk for a in applications]

    moved = client.post(
        API + "quota_applications/moves/",
        {"ids": ids[:3], "status": "qa_entered", "reason": "Geprüft"},
        content_type="application/json",
        HTTP_HOST=HOST,
        HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value,
    )
    assert moved.status_code == 200 and all(row["ok"] for row in moved.json()["results"])
    # the rollup now has more rows than keys: above the threshold, a stats read compacts it
    monkeypatch.setattr(operations_selectors, "COMPACT_ABOVE", 1)
    with schema_context(SCHEMA):
        rows_before = ApplicationDayCount.objects.count()
    with django_capture_on_commit_callbacks(execute=True):
        body = client.get(API + "stats/", HTTP_HOST=HOST).json()

    with schema_context(SCHEMA):
        truth = Counter(QuotaApplication.objects.values_list("status", flat=True))
        assert {row["status"]: row["count"] for row in body["status_distribution"]} == dict(truth)
        assert truth["qa_entered"] >= 3
        assert ApplicationDayCount.objects.count() == len(live()) < rows_before
        assert live() == rolled()
    again = client.get(API + "stats/", HTTP_HOST=HOST).json()
    assert again["status_distribution"] == body["status_distribution"]
    assert again["per_day"] == body["per_day"]
