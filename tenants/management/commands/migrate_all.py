from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand

from tenants.services import template_schema_migrate


class Command(BaseCommand):
    help = "Migrate the public schema, the partner template schema and every partner schema."

    def handle(self, *args: Any, **options: Any) -> None:
        verbosity = int(options["verbosity"])
        call_command("migrate_schemas", shared=True, interactive=False, verbosity=verbosity)
        template_schema_migrate(verbosity=verbosity)
        call_command("migrate_schemas", tenant=True, interactive=False, verbosity=verbosity)
