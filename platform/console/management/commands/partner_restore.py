"""Restore a partner from its archive (manage.py partner_backup), checked before anything is
written; an existing partner is never overwritten unless asked for by name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from console.backup import BackupError, backup_verify, partner_restore
from tenants.audit import command_actor, console_audit_record


class Command(BaseCommand):
    help = (
        "Restore a partner from a partner_backup archive into a new schema: as it was (SUB must "
        "not exist) or --as NEWSUB (custom domains stay with the original). --replace SUB "
        "overwrites the existing partner SUB after archiving and backing it up. --check only "
        "verifies the archive (checksums of every member)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--as", dest="as_subdomain", default=None, help="restore under this subdomain")
        parser.add_argument(
            "--replace",
            default="",
            help="the subdomain being overwritten, again: replaces an existing partner of that name",
        )
        parser.add_argument("--check", action="store_true", help="verify the archive only")

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        try:
            manifest = backup_verify(path)
            if options["check"]:
                self.stdout.write(
                    f"{path} is intact: {manifest['subdomain']}, {sum(manifest['counts'].values())} rows, "
                    f"{len(manifest['members']) - 2} media files, made {manifest.get('created_at')}."
                )
                return
            target = (options["as_subdomain"] or manifest["subdomain"]).strip().lower()
            replace = options["replace"].strip().lower()
            if replace and replace != target:
                raise CommandError(
                    f"--replace {replace} does not name the partner being restored ({target})."
                )
            summary = partner_restore(path=path, subdomain=target, replace=bool(replace))
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        partner = summary.partner
        console_audit_record(
            actor=command_actor(),
            action="restore",
            partner=partner,
            summary=f"Aus {path.name} wiederhergestellt"
            + (f" (ersetzt {target})" if replace else "")
            + (f" (als Kopie von {manifest['subdomain']})" if target != manifest["subdomain"] else ""),
            after={"path": str(path), "from": manifest["subdomain"], "skipped": summary.skipped},
        )
        self.stdout.write(
            f"Restored {partner.subdomain} (schema {partner.schema_name}, {partner.status}): "
            f"{sum(summary.counts.values())} rows, {summary.files} media files"
            + (", migrated to this version" if summary.migrated else "")
            + "."
        )
        for line in summary.skipped:
            self.stdout.write(f"  not restored: {line}")
