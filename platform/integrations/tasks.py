"""Webhook work in the worker: every minute each partner with an active webhook takes up new
events; each due delivery is one task of its own (a slow receiver holds up only its own)."""

from __future__ import annotations

from django.utils import timezone
from django_tenants.utils import get_public_schema_name, schema_context
from huey import crontab
from huey.contrib.djhuey import db_periodic_task

from common.tasks import tenant_task
from integrations.models import WebhookEndpoint
from integrations.services import delivery_attempt, webhooks_sweep
from tenants.models import Partner


@tenant_task()
def webhook_delivery_run(schema_name: str, delivery_id: int) -> None:
    delivery_attempt(delivery_id=delivery_id)


@tenant_task()
def webhooks_sweep_run(schema_name: str) -> None:
    webhooks_sweep(
        now=timezone.now(), attempt=lambda delivery_id: webhook_delivery_run(schema_name, delivery_id)
    )


@db_periodic_task(crontab(minute="*"))
def webhooks_sweep_all() -> None:
    """Every minute, per partner that has an active webhook (one cheap query for the others)."""
    schemas = Partner.objects.exclude(schema_name=get_public_schema_name()).values_list(
        "schema_name", flat=True
    )
    for schema_name in schemas:
        with schema_context(schema_name):
            active = WebhookEndpoint.objects.filter(is_active=True).exists()
        if active:
            webhooks_sweep_run(schema_name)
