"""Make the redacted display copy for registrations stored before redaction existed, and make
again the mosaics of before issue 51.

Until it has one, a registration's images are served to no one (the portal shows no scan).
Reads each original again (the reader locates the page), writes the display copy and a new
small version from it, and deletes the old, unredacted small version. A copy pixelated as a
whole (redaction "pixelated", the old answer to a page not located) is made again the same way:
the real layout's holder panel blacked out, or the neutral card; where its original is already
deleted (after the authority submission), the neutral card. `--again` makes every copy whose
original is still kept again (after a change of the reader or the layout). Safe to run again.
"""

from __future__ import annotations

from typing import Any

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management.base import BaseCommand, CommandError
from django.db.models import Q
from django_tenants.utils import get_public_schema_name, schema_context
from PIL import Image

from registrations.models import BevRegistration
from registrations.reader import Reading, document_read
from registrations.redaction import scan_redact
from tenants.models import Partner

# The whole copy pixelated: what a page the reader did not locate got before issue 51.
MOSAIC = "pixelated"


def _due(registration: BevRegistration, *, again: bool) -> bool:
    if registration.redaction == MOSAIC and registration.display_scan:
        return True
    if not registration.zlb_scan:
        return False
    return again or not registration.display_scan


def _open_rgb(name: str) -> Image.Image | None:
    try:
        with default_storage.open(name, "rb") as handle:
            return Image.open(handle).convert("RGB")
    except FileNotFoundError:
        return None


def registration_redact(registration: BevRegistration, *, schema_name: str, again: bool = False) -> bool:
    if not _due(registration, again=again):
        return False
    image = _open_rgb(registration.zlb_scan) if registration.zlb_scan else None
    if image is not None:
        redacted = scan_redact(image, document_read(image))
    else:
        # the original is gone: nothing to locate the form on; the mosaic becomes the card
        mosaic = _open_rgb(registration.display_scan) if registration.redaction == MOSAIC else None
        if mosaic is None:
            return False
        redacted = scan_redact(mosaic, Reading(is_zlb=False, readable=False, score=0))
    prefix = f"{schema_name}/scans/{registration.uuid}"
    old = {registration.display_scan, registration.resized_image} - {""}
    registration.display_scan = default_storage.save(
        f"{prefix}-display.jpg", ContentFile(redacted.image_bytes)
    )
    registration.resized_image = default_storage.save(
        f"{prefix}-resized.jpg", ContentFile(redacted.resized_bytes)
    )
    registration.redaction = redacted.method
    registration.save(update_fields=["display_scan", "resized_image", "redaction"])
    # the old copies (a mosaic, an unredacted small version) are served by no URL any more
    for name in old - {registration.display_scan, registration.resized_image, registration.zlb_scan}:
        default_storage.delete(name)
    return True


class Command(BaseCommand):
    help = "Make the redacted display copy of scans stored before redaction existed."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--schema", help="only this partner schema")
        parser.add_argument(
            "--again", action="store_true", help="also every display copy whose original is still kept"
        )

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
                due = Q(display_scan="") | Q(redaction=MOSAIC)
                if options["again"]:
                    due = Q()
                for registration in BevRegistration.objects.filter(due).iterator():
                    count += registration_redact(registration, schema_name=schema, again=options["again"])
                self.stdout.write(f"{schema}: {count} scans redacted")
