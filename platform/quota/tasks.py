"""Upkeep of the dashboard's rollup (quota.models.ApplicationDayCount)."""

from __future__ import annotations

from django_tenants.utils import schema_context
from huey import crontab
from huey.contrib.djhuey import db_periodic_task

from common.tasks import tenant_task
from quota.services import application_day_counts_compact
from tenants.models import Partner


@tenant_task()
def application_day_counts_compact_run(schema_name: str) -> None:
    application_day_counts_compact()


@db_periodic_task(crontab(minute="*/15"))
def application_day_counts_compact_all() -> None:
    """Every partner's rollup, one schema at a time (a schema without a write since its last
    compaction costs one index lookup)."""
    for schema_name in Partner.objects.exclude(schema_name="public").values_list("schema_name", flat=True):
        with schema_context(schema_name):
            application_day_counts_compact(unless_unchanged=True)
