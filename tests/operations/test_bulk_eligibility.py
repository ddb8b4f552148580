"""Eligibility in the partner API's bulk upload (issue 48): each file runs the flow's intake, so a
scan the reader surely reads as a combustion car or a registration-exempt moped is refused with
the same code as in the flow (IMGC008, IMGC009), nothing of it stored, while an electric car of
the same archive is taken."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from registrations.models import BevRegistration
from tenants.models import Partner
from tests.operations.conftest import API, HOST
from tests.registrations.test_eligibility import scan

pytestmark = pytest.mark.django_db
UPLOADS = API + "bulk_uploads/"


def zip_of(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_a_bulk_upload_refuses_the_ineligible_vehicles_with_the_flows_codes(
    autohaus: Partner, admin: Client, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    archive = zip_of(
        {
            "flotte/elektro.jpg": scan(7, klass="N2")[0],
            "flotte/benziner.jpg": scan(5, energy="0001")[0],
            "flotte/roller.jpg": scan(6, klass="L1e")[0],
        }
    )

    with django_capture_on_commit_callbacks(execute=True):
        created = admin.post(
            UPLOADS,
            {"archive": SimpleUploadedFile("flotte.zip", archive, "application/zip")},
            HTTP_HOST=HOST,
        )

    assert created.status_code == 201, created.content
    progress = admin.get(f"{UPLOADS}{created.json()['id']}/", HTTP_HOST=HOST).json()
    items = {item["file_name"]: item for item in progress["items"]}
    assert items["elektro.jpg"]["status"] == "accepted"
    assert (items["benziner.jpg"]["status"], items["benziner.jpg"]["error_code"]) == ("refused", "IMGC008")
    assert items["benziner.jpg"]["details"]["energy_code"] == "0001"
    assert (items["roller.jpg"]["status"], items["roller.jpg"]["error_code"]) == ("refused", "IMGC009")
    assert items["roller.jpg"]["details"] == {"vehicle_class": "L1e"}
    # only the electric car's registration and its three pictures are kept
    assert BevRegistration.objects.count() == 1
    assert len(list(Path(settings.MEDIA_ROOT).rglob("scans/*"))) == 3
