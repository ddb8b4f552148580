"""The submission package: a ZIP with one PDF per vehicle (the stored scan) and a manifest CSV
with the fields the authority asks for. Built from the package's items, partner by partner,
each inside its own schema; the ZIP is written to a temporary file first (a large package
never sits in memory) and stored under `authority/` in the media storage (public, no partner
prefix)."""

from __future__ import annotations

import csv
import io
import tempfile
import zipfile
from collections import defaultdict

from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction
from django_tenants.utils import schema_context
from PIL import Image

from authority.models import AuthoritySubmission, AuthoritySubmissionItem
from quota.admin import csv_cell
from quota.models import QuotaApplication

MANIFEST_NAME = "manifest.csv"
MANIFEST_COLUMNS = [
    "application_number",
    "vin",
    "plate",
    "first_registration",
    "vehicle_class",
    "energy_code",
    "owner_name",
    "file",
]
PDF_RESOLUTION = 200.0  # dpi the scan is declared at: an A5-ish document at ~2000 px


class PackageError(Exception):
    pass


def scan_pdf(data: bytes) -> bytes:
    """One page PDF of a stored scan (JPEG), as it was uploaded."""
    with Image.open(io.BytesIO(data)) as image:
        image.load()
        page = image.convert("RGB") if image.mode not in ("RGB", "L") else image
        out = io.BytesIO()
        page.save(out, "PDF", resolution=PDF_RESOLUTION)
    return out.getvalue()


def _owner_name(application: QuotaApplication) -> str:
    client = application.client
    person = f"{client.first_name} {client.last_name}".strip()
    return client.name_of_business or person


def package_build(*, submission: AuthoritySubmission) -> str:
    """Write the package file and return its storage name."""
    items = list(submission.items.select_related("partner").order_by("application_number"))
    by_partner: dict[int, list[AuthoritySubmissionItem]] = defaultdict(list)
    for item in items:
        by_partner[item.partner_id].append(item)
    manifest = io.StringIO()
    writer = csv.writer(manifest, delimiter=";", lineterminator="\r\n")
    writer.writerow(MANIFEST_COLUMNS)
    rows: list[tuple[str, list[str]]] = []
    with tempfile.TemporaryFile() as spool:
        with zipfile.ZipFile(spool, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for partner_items in by_partner.values():
                partner = partner_items[0].partner
                with schema_context(partner.schema_name):
                    applications = QuotaApplication.objects.select_related("registration", "client").in_bulk(
                        [item.application_id for item in partner_items]
                    )
                    for item in partner_items:
                        application = applications.get(item.application_id)
                        if application is None:
                            raise PackageError(f"{item.application_number}: der Antrag existiert nicht mehr.")
                        registration = application.registration
                        try:
                            with default_storage.open(registration.zlb_scan, "rb") as handle:
                                pdf = scan_pdf(handle.read())
                        except (OSError, Image.UnidentifiedImageError) as error:
                            raise PackageError(
                                f"{item.application_number}: der Fahrzeugschein kann nicht gelesen werden ({error.__class__.__name__})."
                            ) from None
                        name = f"{item.application_number}.pdf"
                        archive.writestr(name, pdf)
                        rows.append(
                            (
                                item.application_number,
                                [
                                    item.application_number,
                                    registration.vin,
                                    registration.plate,
                                    registration.first_registration.isoformat()
                                    if registration.first_registration
                                    else "",
                                    registration.vehicle_type,
                                    registration.energy_code,
                                    str(csv_cell(_owner_name(application))),
                                    name,
                                ],
                            )
                        )
            for _, row in sorted(rows):
                writer.writerow(row)
            archive.writestr(MANIFEST_NAME, manifest.getvalue().encode("utf-8"))
        spool.seek(0)
        return default_storage.save(
            f"authority/{submission.legislation_year}/uba-{submission.legislation_year}-{submission.pk}.zip",
            File(spool),
        )


def submission_package_store(*, submission_id: int) -> AuthoritySubmission:
    """Build and store the file; the package ends `ready`, or `failed` with the reason."""
    submission = AuthoritySubmission.objects.get(pk=submission_id)
    try:
        name = package_build(submission=submission)
    except PackageError as error:
        AuthoritySubmission.objects.filter(pk=submission.pk).update(
            status=AuthoritySubmission.Status.FAILED, error=str(error)[:500]
        )
        submission.refresh_from_db()
        return submission
    with transaction.atomic():
        previous = submission.file
        submission.file = name
        submission.status = AuthoritySubmission.Status.READY
        submission.error = ""
        submission.save(update_fields=["file", "status", "error"])
        if previous and previous != name:
            transaction.on_commit(lambda: default_storage.delete(previous))
    return submission
