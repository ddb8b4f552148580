"""Bulk uploads that cost more than they bring are refused cheaply (issue 47, item 5): the
expansion is measured on the whole archive, not per member; the central directory's entry count
and size are read from the end record before the archive is parsed. Through HTTP; each case
measures the bytes written to storage and the Python memory the request took (tracemalloc)."""

from __future__ import annotations

import io
import struct
import time
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from operations.archive import end_record
from operations.models import BulkUpload
from tenants.models import Partner
from tests.operations.conftest import API, HOST, OTHER_HOST

pytestmark = pytest.mark.django_db
UPLOADS = API + "bulk_uploads/"
MB = 1024 * 1024


def _written(root: Path) -> int:
    return sum(path.stat().st_size for path in root.rglob("*") if path.is_file())


def _measured(call: Callable[[], Any]) -> tuple[Any, int, float]:
    """The call's answer, the peak of Python memory it allocated, and its seconds."""
    tracemalloc.start()
    started = time.perf_counter()
    try:
        answer = call()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return answer, peak, time.perf_counter() - started


def _send(client: Client, archive: bytes, host: str = HOST) -> Any:
    upload = SimpleUploadedFile("flotte.zip", archive, "application/zip")
    return client.post(UPLOADS, {"archive": upload}, HTTP_HOST=host)


def zero_filled(members: int = 190) -> bytes:
    """190 members of 1 MB (a JPEG's first bytes, then zeros), each under the per-member floor."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for index in range(members):
            archive.writestr(f"scan-{index:03d}.jpg", b"\xff\xd8\xff" + bytes(MB - 3))
    return buffer.getvalue()


def million_entries(entries: int = 1_000_000) -> bytes:
    """A ZIP64 central directory of `entries` empty members (no local headers: a parser reads
    the directory alone), then the ZIP64 end record, its locator and the end record."""
    header = struct.Struct("<4s6H3L5H2L")
    rows = [
        header.pack(b"PK\x01\x02", 20, 20, 0, 0, 0, 0, 0, 0, 0, 11, 0, 0, 0, 0, 0, 0) + b"%07d.jpg" % index
        for index in range(entries)
    ]
    directory = b"".join(rows)
    end64_at = len(directory)
    end64 = struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, entries, entries, len(directory), 0)
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, end64_at, 1)
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    return directory + end64 + locator + end


def test_many_small_members_that_inflate_together_are_a_bomb(
    autohaus: Partner, admin: Client, settings: Any
) -> None:
    archive = zero_filled()
    assert len(archive) < 400 * 1024  # 190 MB packed into a few hundred KB

    answer, peak, seconds = _measured(lambda: _send(admin, archive))

    assert answer.status_code == 400, answer.content
    assert answer.json()["archive"]["error_code"] == "BULK004"
    written = _written(Path(settings.MEDIA_ROOT))
    print(
        f"\nzero-filled: archive {len(archive)} B, written {written} B, peak {peak / MB:.1f} MB, {seconds:.2f} s"
    )
    assert written == 0 and not BulkUpload.objects.exists()
    # nothing was inflated: the declared sizes alone refused it
    assert peak < 20 * MB


def test_a_million_entries_are_refused_from_the_end_record(
    autohaus: Partner, admin: Client, settings: Any
) -> None:
    archive = million_entries()
    assert end_record(io.BytesIO(archive)) == (1_000_000, 57_000_000)

    answer, peak, seconds = _measured(lambda: _send(admin, archive))

    assert answer.status_code == 400, answer.content
    assert answer.json()["archive"]["error_code"] == "BULK002"
    written = _written(Path(settings.MEDIA_ROOT))
    print(
        f"\nmillion entries: archive {len(archive) / MB:.1f} MB, written {written} B, "
        f"peak {peak / MB:.1f} MB, {seconds:.2f} s"
    )
    assert written == 0 and not BulkUpload.objects.exists()
    # the request holds the body (the test client's multipart copy and the upload's), never
    # one object per entry: parsing the directory took 500 MB and 10 s before
    assert peak < 4 * len(archive) + 20 * MB
    assert seconds < 5


def test_a_central_directory_too_large_for_its_entries_is_refused_unread(
    autohaus: Partner, admin: Client
) -> None:
    # three entries, claimed to take 50 MB of directory
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 3, 3, 50 * MB, 0, 0)
    answer = _send(admin, b"\x00" * 100 + end)
    assert answer.status_code == 400 and answer.json()["archive"]["error_code"] == "BULK002"


def test_an_ordinary_archive_still_passes_the_end_record() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for index in range(3):
            archive.writestr(f"ordner/scan-{index}.jpg", b"\xff\xd8\xff" + bytes(10))
    entries, directory = end_record(io.BytesIO(buffer.getvalue()))
    assert entries == 3 and 0 < directory < 400


def test_bulk_uploads_are_limited_per_partner(
    autohaus: Partner, admin: Client, session: Callable[..., Client], settings: Any
) -> None:
    settings.BULK_UPLOADS_PER_WINDOW = 2
    # every attempt counts, a refused archive too: each costs its check
    assert [_send(admin, b"kein zip").status_code for _ in range(2)] == [400, 400]

    refused = _send(session("back_office"), zero_filled(2))

    assert refused.status_code == 429
    assert refused.json()["error_code"] == "BULK060"
    wait = int(refused["Retry-After"])
    assert 0 < wait <= settings.BULK_UPLOAD_WINDOW + 1
    assert (
        refused.json()["detail"]
        == f"Zu viele Uploads in kurzer Zeit. Bitte versuchen Sie es in {wait} Sekunden erneut."
    )
    # another partner has its own budget
    other = Partner.objects.get(subdomain="stadtwerk")
    assert _send(session(partner=other, host=OTHER_HOST), b"kein zip", OTHER_HOST).status_code == 400
