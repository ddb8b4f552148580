"""Bulk upload work: one task per file, inside the partner's schema."""

from __future__ import annotations

from django_tenants.utils import get_public_schema_name
from huey import crontab
from huey.contrib.djhuey import db_periodic_task

from common.tasks import tenant_task
from operations.bulk import bulk_item_process, bulk_uploads_sweep
from operations.digest import digest_send
from operations.einvoice import payout_documents_render as documents_render
from tenants.models import Partner


@tenant_task()
def bulk_item_run(schema_name: str, item_id: int) -> None:
    bulk_item_process(partner=Partner.objects.get(schema_name=schema_name), item_id=item_id)


@tenant_task()
def bulk_uploads_sweep_run(schema_name: str) -> None:
    bulk_uploads_sweep(schema_name=schema_name, enqueue=bulk_item_run)


@db_periodic_task(crontab(minute="*/10"))
def bulk_uploads_sweep_all() -> None:
    """Every 10 minutes, per partner: uploads whose worker died are resumed or finished."""
    for schema_name in Partner.objects.exclude(schema_name=get_public_schema_name()).values_list(
        "schema_name", flat=True
    ):
        bulk_uploads_sweep_run(schema_name)


@tenant_task(retries=2, retry_delay=60)
def payout_documents_render(schema_name: str, batch_id: int) -> None:
    """A paid batch's credit notes and payout statements made and kept (issue 46)."""
    documents_render(batch_id=batch_id)


@tenant_task(retries=2, retry_delay=300)
def staff_digest_run(schema_name: str) -> None:
    """Yesterday's digest to the partner's staff (issue 49; operations.digest)."""
    digest_send(schema_name=schema_name)


@db_periodic_task(crontab(hour="6", minute="30"))
def staff_digest_all() -> None:
    """Once a day, early: one task per partner, each inside its own schema; a member mailed
    already for the day is skipped, so a retry or a second run mails nobody twice."""
    for schema_name in Partner.objects.exclude(schema_name=get_public_schema_name()).values_list(
        "schema_name", flat=True
    ):
        staff_digest_run(schema_name)
