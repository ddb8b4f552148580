import time
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser
from django_tenants.utils import get_public_schema_name

from tenants.migrating import migration_leaves, schemas_migrate, schemas_with_pending_migrations
from tenants.models import Partner
from tenants.services import template_schema_migrate


class Command(BaseCommand):
    help = (
        "Migrate the public schema, the partner template schema and every partner schema. "
        "Schemas with nothing to apply are skipped; partner schemas are migrated in parallel."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--every-schema",
            action="store_true",
            help="run migrate on every schema, also those that have nothing to apply",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        verbosity = int(options["verbosity"])
        started = time.perf_counter()
        leaves = migration_leaves()
        public = get_public_schema_name()
        template = settings.TENANT_TEMPLATE_SCHEMA

        def pending(schemas: list[str]) -> list[str]:
            return (
                list(schemas) if options["every_schema"] else schemas_with_pending_migrations(schemas, leaves)
            )

        if pending([public]):
            call_command("migrate_schemas", shared=True, interactive=False, verbosity=verbosity)
        if pending([template]):
            template_schema_migrate(verbosity=verbosity)
        partners = list(Partner.objects.exclude(schema_name=public).values_list("schema_name", flat=True))
        to_migrate = pending(partners)
        schemas_migrate(schemas=to_migrate, verbosity=verbosity)
        if verbosity:
            self.stdout.write(
                f"migrate_all: {len(to_migrate)} of {len(partners)} partner schemas had migrations to apply "
                f"({time.perf_counter() - started:.1f} s)"
            )
