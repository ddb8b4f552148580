"""`manage.py seed_demo_operations` (a step of `make run`, not of the test session): each
active demo partner gets two sub-partners, a single deal and applications spread over statuses
and days, with a history that fits each status; a second run adds nothing."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.db.models import Count
from django_tenants.utils import schema_context

from common.partner_config import PartnerConfig
from operations.models import SingleDeal, SubPartner
from quota import catalogue
from quota.amounts import fee_schedule
from quota.fee_selectors import fee_gaps
from quota.models import FeeTableVersion, QuotaApplication, StatusChange
from tenants.models import Partner

pytestmark = pytest.mark.django_db


def test_each_active_demo_partner_gets_operations_and_spread_applications() -> None:
    out = io.StringIO()
    call_command("seed_demo_operations", count=120, days=30, stdout=out)
    call_command("seed_demo_operations", count=120, days=30, stdout=out)

    for schema in ("p_autohaus", "p_stadtwerk", "p_wallbox"):
        with schema_context(schema):
            assert QuotaApplication.objects.count() == 120
            assert SubPartner.objects.count() == 2 and SingleDeal.objects.count() == 1
            statuses = dict(QuotaApplication.objects.values_list("status").annotate(n=Count("pk")))
            assert len(statuses) >= 8
            days = QuotaApplication.objects.dates("created_at", "day")
            assert len(days) >= 20
            assert QuotaApplication.objects.filter(sub_partner__isnull=False).count() > 10
            deal = SingleDeal.objects.get()
            assert (
                0
                < deal.quota_applications.values("registration").distinct().count()
                <= (deal.vehicle_cap or 0)
            )
            # every application's history ends in its status and follows the catalogue
            for application in QuotaApplication.objects.prefetch_related("status_changes")[:60]:
                path = [change.status for change in application.status_changes.all()]
                assert path[0] == "qa_created" and path[-1] == application.status
                assert all(b in catalogue.allowed_moves(a) for a, b in zip(path, path[1:], strict=False))
                if application.status in catalogue.REASON_REQUIRED:
                    assert application.status_changes.all()[len(path) - 1].reason
            # every payable demo application has its price (the autohaus demo had none: issue 49)
            config = PartnerConfig.model_validate(Partner.objects.get(schema_name=schema).config)
            assert fee_gaps(fee_schedule(config))["count"] == 0
    with schema_context("p_autohaus"):
        assert FeeTableVersion.objects.count() == 1  # the demo's prices, written once
    with schema_context("p_inaktiv"):
        assert not QuotaApplication.objects.exists() and not StatusChange.objects.exists()
    assert out.getvalue().count("demo applications present") == 3
