"""Stuck bulk uploads (issue 47, item 5): an upload whose worker died is resumed by the periodic
sweep (its waiting files queued again), or, once too old, finished with the waiting files failed
and their raw files deleted; either way it can be rolled back. Uploads through HTTP; the sweep
is the periodic huey task (immediate mode: the real task code)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone

from operations.models import BulkUpload, BulkUploadItem
from operations.tasks import bulk_uploads_sweep_all
from tenants.models import Partner
from tests.operations.conftest import HOST
from tests.operations.test_bulk_upload import UPLOADS, scans, stored_files, zip_of  # noqa: F401

pytestmark = pytest.mark.django_db


def _upload_left_behind(client: Client, archive: bytes, capture: Any) -> int:
    """An upload whose work never ran: its commit's callbacks (the start, the tasks) are lost,
    as when the process dies right after the commit."""
    with capture(execute=False):
        answer = client.post(
            UPLOADS, {"archive": SimpleUploadedFile("flotte.zip", archive, "application/zip")}, HTTP_HOST=HOST
        )
    assert answer.status_code == 201, answer.content
    return int(answer.json()["id"])


def _rollback(client: Client, upload_id: int, capture: Any) -> Any:
    with capture(execute=True):
        return client.post(f"{UPLOADS}{upload_id}/rollback/", HTTP_HOST=HOST)


def test_a_stuck_upload_is_resumed_and_can_be_rolled_back(
    autohaus: Partner,
    admin: Client,
    scans: dict[str, bytes],  # noqa: F811
    settings: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    upload_id = _upload_left_behind(
        admin, zip_of({"a.jpg": scans["first"]}), django_capture_on_commit_callbacks
    )
    assert BulkUploadItem.objects.get(upload_id=upload_id).status == "pending"
    # not yet stale: the sweep leaves it alone
    bulk_uploads_sweep_all()
    assert BulkUploadItem.objects.get(upload_id=upload_id).status == "pending"
    refused = _rollback(admin, upload_id, django_capture_on_commit_callbacks)
    assert refused.status_code == 409 and refused.json()["error_code"] == "BULK040"

    BulkUpload.objects.filter(pk=upload_id).update(created_at=timezone.now() - timedelta(minutes=20))
    with django_capture_on_commit_callbacks(execute=True):
        bulk_uploads_sweep_all()

    upload = BulkUpload.objects.get(pk=upload_id)
    item = BulkUploadItem.objects.get(upload_id=upload_id)
    assert item.status == "accepted" and item.registration_id is not None
    assert upload.status == BulkUpload.Status.CREATED
    rolled = _rollback(admin, upload_id, django_capture_on_commit_callbacks)
    assert rolled.status_code == 200, rolled.content
    assert stored_files(Path(settings.MEDIA_ROOT)) == []


def test_an_upload_stuck_too_long_is_finished_and_its_files_deleted(
    autohaus: Partner,
    admin: Client,
    scans: dict[str, bytes],  # noqa: F811
    settings: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    upload_id = _upload_left_behind(
        admin, zip_of({"a.jpg": scans["first"], "b.pdf": scans["second"]}), django_capture_on_commit_callbacks
    )
    BulkUpload.objects.filter(pk=upload_id).update(
        status=BulkUpload.Status.IN_PROGRESS, created_at=timezone.now() - timedelta(hours=3)
    )
    assert len(stored_files(Path(settings.MEDIA_ROOT))) == 2  # the raw files wait

    with django_capture_on_commit_callbacks(execute=True):
        bulk_uploads_sweep_all()

    items = list(BulkUploadItem.objects.filter(upload_id=upload_id))
    assert {(item.status, item.error_code) for item in items} == {("refused", "BULK031")}
    assert BulkUpload.objects.get(pk=upload_id).status == BulkUpload.Status.REJECTED
    assert stored_files(Path(settings.MEDIA_ROOT)) == []
    assert _rollback(admin, upload_id, django_capture_on_commit_callbacks).status_code == 200
