"""Background work of the privacy app: the export ZIP and its mail, the erasure code mail, and
the daily retention run. Tasks carry the schema and a row id, never a link or code."""

from __future__ import annotations

import logging

from django.conf import settings
from django_tenants.utils import get_public_schema_name
from huey import crontab
from huey.contrib.djhuey import db_periodic_task

from accounts.mails import mail_secret_open, mail_send
from common.tasks import tenant_task
from privacy.exports import data_export_build
from privacy.models import DataExport, ErasureRequest
from privacy.retention import retention_apply
from tenants.models import Partner

logger = logging.getLogger(__name__)


@tenant_task(retries=3, retry_delay=30)
def data_export_build_task(schema_name: str, export_id: int) -> None:
    export = data_export_build(schema_name=schema_name, export_id=export_id)
    if export is None or not export.sealed:
        return
    link = mail_secret_open(export.sealed)
    if link is None:
        return
    hours = int(settings.PRIVACY_EXPORT_LINK_LIFETIME.total_seconds() // 3600)
    mail_send(
        schema_name=schema_name,
        to=export.user.email,
        template="privacy_export",
        subject="Ihre Daten zum Herunterladen",
        context={"link": link, "hours": hours},
    )
    DataExport.objects.filter(pk=export.pk).update(sealed="")


@tenant_task(retries=3, retry_delay=30)
def mail_erasure_code(schema_name: str, request_id: int) -> None:
    row = ErasureRequest.objects.select_related("user").filter(pk=request_id).exclude(sealed="").first()
    if row is None:
        return
    code = mail_secret_open(row.sealed)
    if code is None:
        return
    mail_send(
        schema_name=schema_name,
        to=row.user.email,
        template="privacy_erasure_code",
        subject="Löschung Ihrer Daten bestätigen",
        context={"code": code},
    )
    ErasureRequest.objects.filter(pk=row.pk).update(sealed="")


@tenant_task()
def retention_run(schema_name: str) -> None:
    counts = retention_apply(schema_name=schema_name)
    logger.info("retention run: %s", ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


@db_periodic_task(crontab(hour="3", minute="41"))
def retention_run_all() -> None:
    """Daily: one task per partner, each inside its own schema."""
    for schema_name in Partner.objects.exclude(schema_name=get_public_schema_name()).values_list(
        "schema_name", flat=True
    ):
        retention_run(schema_name)
