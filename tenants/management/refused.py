"""Base of the django-tenants commands this project replaces (see tenants/management/commands)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

INSTEAD = {
    "create_tenant": "manage.py create_partner SUB NAME (or the platform admin)",
    "delete_tenant": "the platform admin's Delete (archives), then manage.py partner_purge SUB",
    "clone_tenant": "manage.py create_partner, then manage.py partner_backup / partner_restore",
    "create_domain": "the custom domains on the partner's page in the platform admin (verified by DNS)",
    "delete_domain": "the custom domains on the partner's page in the platform admin",
    "rename_schema": "manage.py partner_backup SUB, then manage.py partner_restore FILE --as NEWSUB",
    "create_missing_schemas": "manage.py create_partner (clones the template) or manage.py partner_restore",
    "create_tenant_superuser": "the platform admin's partner admin invite (set password, second factor)",
}


class RefusedCommand(BaseCommand):
    name = ""

    @property
    def help(self) -> str:  # type: ignore[override]
        return f"Refused: use {INSTEAD[self.name]}."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("args", nargs="*")

    def run_from_argv(self, argv: list[str]) -> None:
        # Whatever django-tenants' own options were: never parsed, always refused.
        raise SystemExit(self._refuse())

    def handle(self, *args: Any, **options: Any) -> None:
        raise CommandError(self._message())

    def _message(self) -> str:
        return f"`{self.name}` is refused here: it bypasses partner provisioning. Use {INSTEAD[self.name]}."

    def _refuse(self) -> str:
        return "CommandError: " + self._message()
