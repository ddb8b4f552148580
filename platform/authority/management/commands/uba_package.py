"""Build a partner's UBA package for a year, as the platform admin does, and write it to a file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.files.storage import default_storage
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django_tenants.utils import get_public_schema_name, schema_context

from authority.models import AuthoritySubmission
from authority.services import submission_build_now
from tenants.models import Partner


class Command(BaseCommand):
    help = (
        "Build the UBA package of a partner and year (ZIP: one {VIN}_{year}.pdf per vehicle and the "
        "authority's spreadsheet); its applications move to 'An UBA übermittelt' only once it is stored."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("subdomain")
        parser.add_argument("year", type=int)
        parser.add_argument("--out", required=True, help="where to write the ZIP")

    def handle(self, *args: Any, **options: Any) -> None:
        with schema_context(get_public_schema_name()):
            try:
                partner = Partner.objects.get(subdomain=options["subdomain"].lower())
            except Partner.DoesNotExist:
                raise CommandError(f"Unbekannter Partner: {options['subdomain']}") from None
            submission = submission_build_now(partner=partner, legislation_year=options["year"], actor=None)
            for entry in submission.left_out:
                self.stdout.write(f"nicht im Paket: {entry['application_number']}: {entry['reason']}")
            if submission.status != AuthoritySubmission.Status.READY:
                raise CommandError(f"UBA-Einreichung Nr. {submission.pk} fehlgeschlagen: {submission.error}")
            out = Path(options["out"])
            with default_storage.open(submission.file, "rb") as source:
                out.write_bytes(source.read())
        self.stdout.write(
            f"UBA-Einreichung Nr. {submission.pk}: {submission.count} Fahrzeuge, "
            f"{len(submission.left_out)} nicht im Paket; geschrieben nach {out}"
        )
