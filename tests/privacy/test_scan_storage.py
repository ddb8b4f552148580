"""Scans at rest (issue 19): private file modes on local storage, server-side encryption on S3."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import boto3
import pytest
from django.core.files.base import ContentFile
from django.test import Client
from django_tenants.utils import schema_context
from moto import mock_aws

from accounts.models import User
from common.storage import PartnerFileSystemStorage, PartnerS3Storage
from registrations.models import BevRegistration
from tests.fixtures.zlb.generate import zlb_document
from tests.registrations.test_api import _in_autohaus as _in_autohaus  # noqa: F401
from tests.registrations.test_api import auth, owner, upload  # noqa: F401

pytestmark = pytest.mark.django_db
HOST = "autohaus.localhost"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_an_uploaded_scan_is_readable_by_the_app_user_only(
    client: Client,
    auth: dict[str, str],  # noqa: F811
    owner: User,  # noqa: F811
    settings: Any,
) -> None:
    data, _ = zlb_document(7)

    response = upload(client, auth, data)

    assert response.status_code == 201, response.json()
    registration = BevRegistration.objects.get()
    root = Path(settings.MEDIA_ROOT)
    for name in (registration.zlb_scan, registration.resized_image):
        path = root / name
        assert mode(path) == 0o600, (name, oct(mode(path)))
        # Every folder the storage made on the way (partner, scans, ...) is private too.
        for folder in path.relative_to(root).parents:
            if str(folder) != ".":
                assert mode(root / folder) == 0o700, (folder, oct(mode(root / folder)))
        # No URL serves the media folder: the scan is not handed out under /media/.
        served = client.get(f"/media/{name}", HTTP_HOST=HOST, headers=auth)
        assert path.read_bytes()[:64] not in served.content


def test_an_explicit_mode_still_wins(tmp_path: Path) -> None:
    storage = PartnerFileSystemStorage(location=tmp_path, file_permissions_mode=0o640)
    with schema_context("p_autohaus"):
        name = storage.save("p_autohaus/scans/a.jpg", ContentFile(b"a"))
    assert mode(tmp_path / name) == 0o640


@mock_aws
def test_s3_objects_are_written_with_server_side_encryption() -> None:
    s3 = boto3.client("s3", region_name="us-east-1")
    s3.create_bucket(Bucket="scans")
    storage = PartnerS3Storage(
        bucket_name="scans", region_name="us-east-1", location="media", default_acl=None
    )

    with schema_context("p_autohaus"):
        name = storage.save("p_autohaus/scans/a.jpg", ContentFile(b"scan"))

    head = s3.head_object(Bucket="scans", Key=f"media/{name}")
    assert head["ServerSideEncryption"] == "AES256"
