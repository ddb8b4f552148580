"""Re-encrypt every encrypted column of every partner with the first FIELD_ENCRYPTION_KEYS key.

Rotation: put the new key first in FIELD_ENCRYPTION_KEYS (keep the old one after it), deploy,
run this command, then remove the old key. Rows are read (decrypted with any configured key)
and written back (encrypted with the first) in batches, each in its own transaction, so the
command can be interrupted and run again; running it twice is harmless.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django_tenants.utils import get_public_schema_name, schema_context

from common.crypto import encrypted_fields, encrypted_models
from tenants.models import Partner


class Command(BaseCommand):
    help = "Re-encrypt the encrypted personal data of all partners with the first FIELD_ENCRYPTION_KEYS key."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--batch-size", type=int, default=500)
        parser.add_argument("--schema", help="only this partner schema")

    def handle(self, *args: Any, **options: Any) -> None:
        batch = int(options["batch_size"])
        if batch < 1:
            raise CommandError("--batch-size must be at least 1")
        schemas = list(
            Partner.objects.exclude(schema_name=get_public_schema_name())
            .order_by("schema_name")
            .values_list("schema_name", flat=True)
        )
        if options["schema"]:
            if options["schema"] not in schemas:
                raise CommandError(f"no partner schema {options['schema']!r}")
            schemas = [options["schema"]]
        models = encrypted_models(apps.get_models())
        for schema in schemas:
            with schema_context(schema):
                for model in models:
                    count = rotate_model(model, batch=batch)
                    self.stdout.write(f"{schema} {model._meta.label}: {count} rows re-encrypted")


def rotate_model(model: Any, *, batch: int) -> int:
    fields = encrypted_fields(model)
    last, count = 0, 0
    while True:
        with transaction.atomic():
            # Reading decrypts with any configured key; bulk_update encrypts with the first.
            rows = list(
                model.objects.select_for_update()
                .filter(pk__gt=last)
                .order_by("pk")
                .only("pk", *fields)[:batch]
            )
            if not rows:
                return count
            model.objects.bulk_update(rows, fields)
        count += len(rows)
        last = rows[-1].pk
