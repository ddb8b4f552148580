"""Periodic sweep of scan files left without a registration row (see registrations.cleanup)."""

from __future__ import annotations

from django_tenants.utils import get_public_schema_name
from huey import crontab
from huey.contrib.djhuey import db_periodic_task

from common.tasks import tenant_task
from registrations.cleanup import scan_orphans_delete
from tenants.models import Partner


@tenant_task()
def scan_orphans_sweep(schema_name: str) -> None:
    scan_orphans_delete(schema_name=schema_name)


@db_periodic_task(crontab(minute="17"))
def scan_orphans_sweep_all() -> None:
    """Hourly: one task per partner, so each runs inside its own schema."""
    for schema_name in Partner.objects.exclude(schema_name=get_public_schema_name()).values_list(
        "schema_name", flat=True
    ):
        scan_orphans_sweep(schema_name)
