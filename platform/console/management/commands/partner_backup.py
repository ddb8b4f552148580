"""Write one partner's backup: its schema, its public rows and its media in one archive."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from console.backup import BackupError, partner_backup
from tenants.audit import command_actor, console_audit_record
from tenants.models import Partner


class Command(BaseCommand):
    help = (
        "Back up one partner into a single archive (tar): a pg_dump of its schema, its rows in the "
        "public schema (partner, domains, configuration versions, registry entries) and its media "
        "files, with a manifest of row counts and checksums. Default file: "
        "var/backups/SUB-TIMESTAMP.tar. Restore with manage.py partner_restore FILE."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("subdomain")
        parser.add_argument("--output", "-o", type=Path, default=None, help="the archive file to write")

    def handle(self, *args: Any, **options: Any) -> None:
        subdomain = options["subdomain"].strip().lower()
        partner = Partner.objects.filter(subdomain=subdomain).first()
        if partner is None:
            raise CommandError(f"No partner {subdomain!r}.")
        path = options["output"] or (
            Path(settings.VAR_DIR) / "backups" / f"{subdomain}-{timezone.now():%Y%m%dT%H%M%SZ}.tar"
        )
        if path.exists():
            raise CommandError(f"{path} exists: choose another --output.")
        try:
            summary = partner_backup(partner=partner, path=path)
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        console_audit_record(
            actor=command_actor(),
            action="backup",
            partner=partner,
            summary=f"Sicherung {summary.path.name} geschrieben",
            after={"path": str(summary.path), "size": summary.size, "files": summary.files},
        )
        rows = sum(summary.counts.values())
        self.stdout.write(
            f"Backed up {subdomain} to {summary.path} ({summary.size / 1e6:.1f} MB): "
            f"{rows} rows in {len(summary.counts)} tables, {summary.files} media files."
        )
