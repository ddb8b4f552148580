"""The dashboard's rollup (quota.models.ApplicationDayCount) beside a live count of the
applications, for the tests of its triggers."""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.db import connection
from django.utils import timezone

from quota.models import ApplicationDayCount, QuotaApplication

TRIGGERS = {
    ("quota_quotaapplication", "quota_day_counts_insert"),
    ("quota_quotaapplication", "quota_day_counts_update"),
    ("quota_quotaapplication", "quota_day_counts_delete"),
    ("quota_quotaapplication", "quota_day_counts_truncate"),
    ("registrations_bevregistration", "quota_day_counts_vehicle_class"),
}


def live() -> Counter[tuple[Any, ...]]:
    """What the rollup must say, counted from the applications themselves."""
    rows = QuotaApplication.objects.values_list(
        "created_at", "status", "legislation_year", "registration__vehicle_class", "sub_partner_id", "single_deal_id"
    )  # fmt: skip
    return Counter(
        (timezone.localdate(created), status, year, vehicle_class or "M1", sub_partner, deal)
        for created, status, year, vehicle_class, sub_partner, deal in rows
    )


def rolled() -> Counter[tuple[Any, ...]]:
    counts: Counter[tuple[Any, ...]] = Counter()
    for row in ApplicationDayCount.objects.all():
        counts[(row.day, row.status, row.legislation_year, row.vehicle_class, row.sub_partner_id,
                row.single_deal_id)] += row.count  # fmt: skip
    return +counts  # keys that sum to zero dropped


def schema_triggers(schema: str) -> set[tuple[str, str]]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
            " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s AND t.tgname LIKE 'quota_day_counts%%'",
            [schema],
        )
        return set(cursor.fetchall())
