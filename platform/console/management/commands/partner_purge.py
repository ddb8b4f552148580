"""Really remove an archived partner, after a pg_dump of its schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from console.services import partner_purge
from tenants.audit import command_actor, console_audit_record
from tenants.models import Partner


class Command(BaseCommand):
    help = (
        "Purge an ARCHIVED partner: writes a pg_dump of its schema first (to --dump-dir, default "
        "var/purged), then drops the schema, deletes its media and its rows. Asks to type the "
        "subdomain, or takes --confirm SUB."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("subdomain")
        parser.add_argument("--confirm", default="", help="the subdomain again: no question asked")
        parser.add_argument("--dump-dir", type=Path, default=None)

    def handle(self, *args: Any, **options: Any) -> None:
        subdomain = options["subdomain"].strip().lower()
        partner = Partner.objects.filter(subdomain=subdomain).first()
        if partner is None:
            raise CommandError(f"No partner {subdomain!r}.")
        if partner.archived_at is None:
            raise CommandError(
                f"{subdomain} is not archived: archive it in the platform admin (Delete) first."
            )
        confirmation = options["confirm"].strip().lower()
        if not confirmation:
            if not options.get("interactive", True) or not self.stdin_isatty():
                raise CommandError("Refused without confirmation: pass --confirm SUB.")
            confirmation = (
                input(
                    f"This drops schema {partner.schema_name} and all data of {partner.name} "
                    f"(a pg_dump is written first). Type the subdomain to confirm: "
                )
                .strip()
                .lower()
            )
        if confirmation != subdomain:
            raise CommandError("Confirmation does not match the subdomain: nothing was purged.")
        dump_dir = options["dump_dir"] or Path(settings.VAR_DIR) / "purged"
        try:
            dump = partner_purge(partner=partner, dump_dir=dump_dir)
        except (ValidationError, RuntimeError) as exc:
            raise CommandError(str(exc)) from exc
        console_audit_record(
            actor=command_actor(),
            action="purge",
            partner=None,
            partner_label=subdomain,
            summary=f"Endgültig gelöscht (Schema-Dump {dump.name})",
            before={"schema_name": partner.schema_name, "name": partner.name},
            after={"dump": str(dump)},
        )
        self.stdout.write(f"Purged {subdomain}; its schema dump is {dump} (restore with pg_restore).")

    @staticmethod
    def stdin_isatty() -> bool:
        import sys

        return sys.stdin.isatty()
