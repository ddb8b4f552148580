"""The onboarding console's writes over more than one app (issue 50: above the apps in the
layering, so they import them at the top)."""

from __future__ import annotations

import logging
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.utils import timezone

from authority.models import AuthoritySubmissionItem
from tenants.models import Partner
from tenants.services import _media_delete, schema_dump

logger = logging.getLogger(__name__)


def partner_purge(*, partner: Partner, dump_dir: Path) -> Path:
    """Really remove an archived partner: first a pg_dump of its schema (kept in dump_dir),
    then the schema, its media and its rows (domains, versions). Refuses a partner that is
    not archived: purging is the second step, never the first."""
    if partner.archived_at is None:
        raise ValidationError({"partner": [f"{partner.subdomain} ist nicht archiviert: zuerst archivieren."]})
    if AuthoritySubmissionItem.objects.filter(partner=partner).exists():
        # The platform's record of what went to the authority refers to the partner: kept.
        raise ValidationError(
            {"partner": [f"{partner.subdomain} hat Anträge in UBA-Einreichungen: bleibt archiviert."]}
        )
    stamp = timezone.now().strftime("%Y%m%dT%H%M%SZ")
    dump = schema_dump(schema_name=partner.schema_name, path=dump_dir / f"{partner.schema_name}-{stamp}.dump")
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(f"DROP SCHEMA IF EXISTS {connection.ops.quote_name(partner.schema_name)} CASCADE")
        Partner.objects.filter(pk=partner.pk).delete()
    files = _media_delete(f"{partner.schema_name}/")
    logger.info("partner purged", extra={"partner": partner.schema_name, "dump": str(dump), "files": files})
    return dump
