"""manage.py partner_backup / partner_restore: one archive per partner (schema, public rows,
media), verified before anything is written; restored into a fresh schema, never over a live
partner unless asked for by name."""

from __future__ import annotations

import io
import json
import shutil
import stat
import tarfile
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context, schema_exists
from PIL import Image

from accounts.models import User
from authority.models import VehicleClaim
from authority.registry import vehicle_claim
from console.backup import BackupError, backup_verify, partner_backup, partner_restore
from quota.models import QuotaApplication, QuotaStatus
from quota.services import quota_application_move
from registrations.models import BevRegistration
from tenants.brand import brand_asset_store
from tenants.models import ConfigVersion, Domain, Partner
from tenants.services import config_draft_save, partner_provision, partner_update
from tests.day_counts import TRIGGERS, live, rolled, schema_triggers
from tests.factories import ApplicationFactory

SOURCE = "backup-src"
SCAN = b"\xff\xd8\xff\xe0 not really a jpeg, but bytes to compare"


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (300, 100), (10, 80, 160)).save(out, format="PNG")
    return out.getvalue()


def _drop(subdomain: str) -> None:
    schema = "p_" + subdomain.replace("-", "_")
    with connection.cursor() as cursor:
        cursor.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    Partner.objects.filter(subdomain=subdomain).delete()
    shutil.rmtree(Path(default_storage.location) / schema, ignore_errors=True)  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def archive(django_db_setup: None, django_db_blocker: Any, tmp_path_factory: Any) -> Iterator[Path]:
    """A committed partner with owners, applications, scans, a logo, a draft, a custom domain
    and registry claims, backed up once (pg_dump sees committed rows only)."""
    with django_db_blocker.unblock():
        partner = partner_provision(
            subdomain=SOURCE,
            name="Backup GmbH",
            config={"page_title": "Gesichert"},
            custom_domain="thg.backup.example",
            custom_domain_verified=True,
        )
        logo = brand_asset_store(partner=partner, kind="logo", data=_png())
        partner_update(partner=partner, config={**partner.config, "logo": logo.url}, note="Logo")
        config_draft_save(partner=partner, config={**partner.config, "page_title": "Entwurf"}, author=None)
        with schema_context(partner.schema_name):
            for index in range(3):
                application = ApplicationFactory.create(registration__vin=f"WBACKUP0000000{index:03d}")
                default_storage.save(application.registration.zlb_scan, ContentFile(SCAN + bytes([index])))
                vehicle_claim(
                    vin=application.registration.vin,
                    legislation_year=application.legislation_year,
                    application_id=application.pk,
                )
        path = tmp_path_factory.mktemp("backups") / f"{SOURCE}.tar"
        partner_backup(partner=partner, path=path)
        yield path
        for subdomain in (SOURCE, "backup-copy", "backup-again"):
            _drop(subdomain)


def _rows(schema: str) -> dict[str, Any]:
    with schema_context(schema):
        return {
            "users": sorted(User.objects.values_list("email", flat=True)),
            "vins": sorted(BevRegistration.objects.values_list("vin", flat=True)),
            "applications": sorted(QuotaApplication.objects.values_list("pk", "status", "legislation_year")),
            "scans": sorted(BevRegistration.objects.values_list("zlb_scan", flat=True)),
        }


@pytest.mark.django_db
def test_the_archive_holds_schema_public_rows_and_media_with_checksums(archive: Path) -> None:
    manifest = backup_verify(archive)

    assert manifest["subdomain"] == SOURCE and manifest["schema_name"] == "p_backup_src"
    assert manifest["counts"]["quota_quotaapplication"] == 3
    assert manifest["counts"]["accounts_user"] == 3
    members = set(manifest["members"])
    assert {"schema.dump", "public.json"} <= members
    assert sum(name.startswith("media/scans/") for name in members) == 3
    assert any(name.startswith("media/brand/logo-") for name in members)
    with tarfile.open(archive) as tar:
        public = json.loads(tar.extractfile("public.json").read())  # type: ignore[union-attr]
    assert {row["domain"] for row in public["domains"]} == {"backup-src.localhost", "thg.backup.example"}
    assert [row["number"] for row in public["config_versions"]] == [1, 2, None]  # None: the draft
    assert len(public["vehicle_claims"]) == 3


@pytest.mark.django_db
def test_restore_as_a_new_subdomain_brings_back_rows_files_and_the_config_call(
    archive: Path, client: Client
) -> None:
    source = Partner.objects.get(subdomain=SOURCE)

    summary = partner_restore(path=archive, subdomain="backup-copy")

    copy = summary.partner
    assert copy.schema_name == "p_backup_copy" and schema_exists("p_backup_copy")
    assert summary.counts == backup_verify(archive)["counts"]
    before, after = _rows("p_backup_src"), _rows("p_backup_copy")
    assert after["users"] == before["users"] and after["vins"] == before["vins"]
    assert after["applications"] == before["applications"]
    # stored names follow the schema, and the files are there with the same bytes
    assert after["scans"] == [name.replace("p_backup_src/", "p_backup_copy/") for name in before["scans"]]
    with schema_context("p_backup_copy"):
        for index, name in enumerate(after["scans"]):
            with default_storage.open(name) as handle:
                assert handle.read() == SCAN + bytes([index])
    # the configuration history, draft included
    assert list(
        ConfigVersion.objects.filter(partner=copy).order_by("pk").values_list("number", "config__page_title")
    ) == [(1, "Gesichert"), (2, "Gesichert"), (None, "Entwurf")]
    # the custom domain stays with the original; the registry's claims too (held there)
    assert set(Domain.objects.filter(tenant=copy).values_list("domain", flat=True)) == {
        "backup-copy.localhost"
    }
    assert any("thg.backup.example" in line for line in summary.skipped)
    assert any("3 registry claims" in line for line in summary.skipped)
    assert VehicleClaim.objects.filter(partner=source).count() == 3
    assert copy.domain_token != source.domain_token

    response = client.get("/api/configs/backup-copy/", HTTP_HOST="backup-copy.localhost")
    assert response.status_code == 200
    body = response.json()
    assert body["page_title"] == "Gesichert" and body["name"] == "Backup GmbH"
    logo = client.get(body["theme"]["assets"]["logo"], HTTP_HOST="backup-copy.localhost")
    assert logo.status_code == 200 and logo["Content-Type"] == "image/png"
    # the dashboard's rollup came along, and its triggers write the copy's own (quota 0005)
    with schema_context("p_backup_copy"):
        assert rolled() == live() and sum(live().values()) == 3
        moved = QuotaApplication.objects.order_by("pk").first()
        assert moved is not None
        quota_application_move(application=moved, status=QuotaStatus.ENTERED, actor=None)
        QuotaApplication.objects.exclude(pk=moved.pk).update(created_at=timezone.now() - timedelta(days=3))
        assert rolled() == live()
    assert schema_triggers("p_backup_copy") == TRIGGERS
    with schema_context("p_backup_src"):
        assert rolled() == live()


@pytest.mark.django_db
def test_restore_refuses_an_existing_partner_unless_it_is_named(archive: Path) -> None:
    with pytest.raises(BackupError, match="exists"):
        partner_restore(path=archive)
    with pytest.raises(CommandError, match="exists"):
        call_command("partner_restore", str(archive))
    with pytest.raises(CommandError, match="does not name"):
        call_command("partner_restore", str(archive), replace="autohaus")
    assert Partner.objects.get(subdomain=SOURCE).archived_at is None


@pytest.mark.django_db
def test_a_damaged_or_foreign_archive_is_refused_before_anything_is_written(
    archive: Path, tmp_path: Path
) -> None:
    # one byte of a scan changed inside the archive
    damaged = tmp_path / "damaged.tar"
    with tarfile.open(archive) as source, tarfile.open(damaged, "w") as target:
        for info in source:
            data = source.extractfile(info).read()  # type: ignore[union-attr]
            if info.name.startswith("media/scans/") and info.name.endswith(".jpg"):
                data = data[:-1] + b"X"
            target.addfile(info, io.BytesIO(data))
    not_a_backup = tmp_path / "other.tar"
    with tarfile.open(not_a_backup, "w") as target:
        info = tarfile.TarInfo("hello.txt")
        info.size = 2
        target.addfile(info, io.BytesIO(b"hi"))

    with pytest.raises(CommandError, match="does not match its checksum"):
        call_command("partner_restore", str(damaged), as_subdomain="backup-again")
    with pytest.raises(CommandError, match="manifest.json is missing"):
        call_command("partner_restore", str(not_a_backup), as_subdomain="backup-again")
    assert not schema_exists("p_backup_again")
    assert not Partner.objects.filter(subdomain="backup-again").exists()


@pytest.mark.django_db
def test_the_command_checks_and_restores(archive: Path) -> None:
    out = io.StringIO()
    call_command("partner_restore", str(archive), check=True, stdout=out)
    assert "is intact" in out.getvalue()

    call_command("partner_restore", str(archive), as_subdomain="backup-again", stdout=out)

    assert "Restored backup-again" in out.getvalue()
    assert _rows("p_backup_again")["vins"] == _rows("p_backup_src")["vins"]


@pytest.mark.django_db
def test_backup_command_writes_an_archive(tmp_path: Path) -> None:
    out = io.StringIO()
    target = tmp_path / "autohaus.tar"

    call_command("partner_backup", "autohaus", output=target, stdout=out)

    assert "Backed up autohaus" in out.getvalue()
    assert backup_verify(target)["subdomain"] == "autohaus"
    # every partner's owners are in it: for the platform's user alone, whatever the umask
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    with pytest.raises(CommandError, match="exists"):
        call_command("partner_backup", "autohaus", output=target)
    with pytest.raises(CommandError, match="No partner"):
        call_command("partner_backup", "nobody")


@pytest.mark.django_db
def test_restore_replaces_the_named_partner_after_backing_it_up(archive: Path, tmp_path: Path) -> None:
    with schema_context("p_backup_src"):
        QuotaApplication.objects.all().delete()  # a mistake the restore undoes

    summary = partner_restore(path=archive, replace=True, safety_dir=tmp_path)

    partner = summary.partner
    assert partner.subdomain == SOURCE and partner.schema_name == "p_backup_src"
    with schema_context("p_backup_src"):
        assert QuotaApplication.objects.count() == 3
    (safety,) = tmp_path.iterdir()
    assert backup_verify(safety)["subdomain"] == SOURCE
    # the same partner: its custom domain (verified) and its registry claims come back
    assert Domain.objects.get(domain="thg.backup.example").tenant == partner
    assert Domain.objects.get(domain="thg.backup.example").verified_at is not None
    assert VehicleClaim.objects.filter(partner=partner).count() == 3


@pytest.mark.django_db
def test_a_partner_with_authority_submissions_is_not_replaced(archive: Path, tmp_path: Path) -> None:
    from authority.models import AuthoritySubmission, AuthoritySubmissionItem

    partner = Partner.objects.get(subdomain=SOURCE)
    submission = AuthoritySubmission.objects.create(legislation_year=2026)
    AuthoritySubmissionItem.objects.create(
        submission=submission, partner=partner, application_id=1, application_number="1", vin_hash="x"
    )

    with pytest.raises(BackupError, match="authority submissions"):
        partner_restore(path=archive, replace=True, safety_dir=tmp_path)

    partner.refresh_from_db()
    assert partner.archived_at is None and schema_exists(partner.schema_name)
    assert list(tmp_path.iterdir()) == []
