"""Make the redacted display copy for registrations stored before redaction existed.

Until it has one, a registration's images are served to no one (the portal shows no scan).
Reads each original again (the reader locates the page), writes the display copy and a new
small version from it, and deletes the old, unredacted small version. Safe to run again.
"""

from __future__ import annotations

from typing import Any

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management.base import BaseCommand, CommandError
from django_tenants.utils import get_public_schema_name, schema_context
from PIL import Image

from registrations.models import BevRegistration
from registrations.reader import document_read
from registrations.redaction import scan_redact
from tenants.models import Partner


def registration_redact(registration: BevRegistration, *, schema_name: str) -> bool:
    if registration.display_scan or not registration.zlb_scan:
        return False
    try:
        with default_storage.open(registration.zlb_scan, "rb") as handle:
            opened = Image.open(handle)
            image = opened.convert("RGB")
    except FileNotFoundError:
        return False
    redacted = scan_redact(image, document_read(image))
    prefix = f"{schema_name}/scans/{registration.uuid}"
    old_resized = registration.resized_image
    registration.display_scan = default_storage.save(
        f"{prefix}-display.jpg", ContentFile(redacted.image_bytes)
    )
    registration.resized_image = default_storage.save(
        f"{prefix}-resized.jpg", ContentFile(redacted.resized_bytes)
    )
    registration.redaction = redacted.method
    registration.save(update_fields=["display_scan", "resized_image", "redaction"])
    if old_resized and old_resized != registration.resized_image:
        default_storage.delete(old_resized)
    return True


class Command(BaseCommand):
    help = "Make the redacted display copy of scans stored before redaction existed."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--schema", help="only this partner schema")

    def handle(self, *args: Any, **options: Any) -> None:
        schemas = list(
            Partner.objects.exclude(schema_name=get_public_schema_name())
            .order_by("schema_name")
            .values_list("schema_name", flat=True)
        )
        if options["schema"]:
            if options["schema"] not in schemas:
                raise CommandError(f"no partner schema {options['schema']!r}")
            schemas = [options["schema"]]
        for schema in schemas:
            with schema_context(schema):
                count = 0
                for registration in (
                    BevRegistration.objects.filter(display_scan="").exclude(zlb_scan="").iterator()
                ):
                    count += registration_redact(registration, schema_name=schema)
                self.stdout.write(f"{schema}: {count} scans redacted")
