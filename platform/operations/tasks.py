"""Bulk upload work: one task per file, inside the partner's schema."""

from __future__ import annotations

from config.tasks import tenant_task
from operations.bulk import bulk_item_process
from tenants.models import Partner


@tenant_task()
def bulk_item_run(schema_name: str, item_id: int) -> None:
    bulk_item_process(partner=Partner.objects.get(schema_name=schema_name), item_id=item_id)
