"""No orphans (issue 13, item 9): a worker killed between saving a scan and committing its
row leaves files behind only until the sweep, which deletes exactly those."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.files.storage import default_storage
from django_tenants.utils import schema_context

from accounts.models import User
from registrations import services
from registrations.cleanup import scan_orphans_delete
from registrations.models import BevRegistration
from registrations.tasks import scan_orphans_sweep
from tenants.models import Partner
from tests.conftest import ROOT, database_url
from tests.fixtures.zlb.generate import zlb_document

pytestmark = pytest.mark.django_db


def scans(media: Path) -> set[str]:
    folder = media / "p_autohaus" / "scans"
    return {path.name for path in folder.iterdir()} if folder.exists() else set()


def test_a_worker_killed_before_its_commit_leaves_no_file_after_the_sweep(
    tmp_path: Path, settings: Any
) -> None:
    # given: a worker process writing a scan, killed after the files and before the commit
    settings.MEDIA_ROOT = tmp_path / "media"
    scan = tmp_path / "scan.jpg"
    scan.write_bytes(zlb_document(31)[0])
    worker = subprocess.Popen(
        [sys.executable, "-m", "tests.registrations.orphan_probe", str(scan)],
        # its media straight under VAR_DIR/media, as this test's (no pytest-xdist worker folder)
        env={
            **{key: value for key, value in os.environ.items() if key != "PYTEST_XDIST_WORKER"},
            "DATABASE_URL": database_url(),
            "VAR_DIR": str(tmp_path),
            "HUEY_IMMEDIATE": "1",
        },
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert worker.stdout is not None
        assert worker.stdout.readline().strip() == "written"
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=10)
    assert worker.returncode == -signal.SIGKILL
    orphans = scans(settings.MEDIA_ROOT)
    assert len(orphans) == 3  # the scan, its redacted display copy and small version, no row
    with schema_context("p_autohaus"):
        assert not User.objects.filter(username="orphan-probe@example.de").exists()
        # and a registration that did commit, whose files must stay
        owner = User.objects.create(username="kept@example.de", email="kept@example.de")
        kept = services.registration_create(
            partner=Partner.objects.get(subdomain="autohaus"),
            owner=owner,
            data=zlb_document(32)[0],
            source="B2C-FE",
            registration_years=[],
            skip_classifier=False,
            login="test",
        )

        # when: the sweep runs, within the grace time and after it
        too_early = scan_orphans_delete(schema_name="p_autohaus")
        deleted = scan_orphans_delete(schema_name="p_autohaus", older_than=timedelta(0))

    # then: exactly the killed worker's files are gone
    assert too_early == []
    assert {Path(name).name for name in deleted} == orphans
    kept_files = (kept.zlb_scan, kept.display_scan, kept.resized_image)
    assert scans(settings.MEDIA_ROOT) == {Path(name).name for name in kept_files}
    with schema_context("p_autohaus"):
        assert all(default_storage.exists(name) for name in kept_files)
        assert BevRegistration.objects.filter(pk=kept.pk).exists()


def test_the_periodic_sweep_runs_in_each_partners_schema(tmp_path: Path, settings: Any) -> None:
    settings.MEDIA_ROOT = tmp_path
    settings.SCAN_ORPHAN_GRACE = timedelta(0)
    with schema_context("p_autohaus"):
        default_storage.save("p_autohaus/scans/00000000-0000-4000-8000-000000000000.jpg", _content())

    scan_orphans_sweep("p_autohaus")  # huey runs it immediately in tests

    assert scans(tmp_path) == set()


def _content() -> Any:
    from django.core.files.base import ContentFile

    return ContentFile(b"\xff\xd8\xff orphan")
