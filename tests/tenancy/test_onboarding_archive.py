"""Delete archives (site off, data kept); partner_purge is separate, confirmed and dumps first;
django-tenants' own create/delete/clone commands are refused."""

import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test import Client
from django_tenants.utils import schema_context, schema_exists

from accounts.models import User
from tenants.cloning import pg_dump_binary
from tenants.models import ConfigVersion, Domain, Partner
from tenants.services import partner_archive, partner_provision
from tests.staff_login import client_staff_login


@pytest.fixture
def staff(client: Client) -> Client:
    User.objects.create_superuser("onboarding", "onboarding@example.com", "S3cure-Passw0rd!")
    client_staff_login(client, host="localhost", username="onboarding", password="S3cure-Passw0rd!")
    return client


@pytest.mark.django_db
def test_delete_in_the_console_archives(staff: Client) -> None:
    partner = partner_provision(subdomain="archiv", name="Archiv GmbH")
    with schema_context(partner.schema_name):
        get_user_model().objects.create_user(username="owner@example.org", email="owner@example.org")

    confirm = staff.get(
        f"/admin/tenants/partner/{partner.pk}/delete/", HTTP_HOST="localhost"
    ).content.decode()
    response = staff.post(
        f"/admin/tenants/partner/{partner.pk}/delete/", {"post": "yes"}, HTTP_HOST="localhost"
    )

    assert "wird archiviert" in confirm
    assert response.status_code == 302
    partner.refresh_from_db()
    assert partner.archived_at is not None and partner.frontend_active is False
    assert schema_exists(partner.schema_name)
    with schema_context(partner.schema_name):
        assert get_user_model().objects.filter(username="owner@example.org").exists()
    assert Domain.objects.filter(tenant=partner).exists()
    assert ConfigVersion.objects.filter(partner=partner).exists()
    listing = staff.get("/admin/tenants/partner/?status=archived", HTTP_HOST="localhost").content.decode()
    assert "Archiv GmbH" in listing and "archiviert" in listing


@pytest.mark.django_db
def test_the_bulk_delete_action_archives_too_and_unarchive_brings_it_back(staff: Client) -> None:
    partner = partner_provision(subdomain="archiv", name="Archiv GmbH")
    data = {"action": "delete_selected", "_selected_action": [partner.pk], "post": "yes"}

    staff.post("/admin/tenants/partner/", data, HTTP_HOST="localhost")
    partner.refresh_from_db()
    assert partner.archived_at is not None and schema_exists(partner.schema_name)

    staff.post(
        "/admin/tenants/partner/",
        {"action": "unarchive", "_selected_action": [partner.pk]},
        HTTP_HOST="localhost",
    )
    partner.refresh_from_db()
    assert partner.archived_at is None and partner.frontend_active is False


@pytest.mark.django_db
@pytest.mark.parametrize(
    "command",
    [
        "create_tenant",
        "delete_tenant",
        "clone_tenant",
        "create_domain",
        "delete_domain",
        "rename_schema",
        "create_missing_schemas",
        "create_tenant_superuser",
    ],
)
def test_django_tenants_own_commands_are_refused(command: str) -> None:
    with pytest.raises(CommandError, match="refused"):
        call_command(command)
    assert schema_exists("p_autohaus")


@pytest.fixture(scope="module")
def committed_partner(django_db_setup: None, django_db_blocker: Any) -> Iterator[Partner]:
    """A partner committed for real: pg_dump runs in its own connection and sees only that."""
    with django_db_blocker.unblock():
        partner = partner_provision(subdomain="purge-me", name="Purge GmbH")
        with schema_context(partner.schema_name):
            get_user_model().objects.create_user(username="kept@example.org", email="kept@example.org")
        yield partner
        with connection.cursor() as cursor:
            cursor.execute('DROP SCHEMA IF EXISTS "p_purge_me" CASCADE')
        Partner.objects.filter(subdomain="purge-me").delete()


@pytest.mark.django_db
def test_purge_refuses_a_partner_that_is_not_archived(committed_partner: Partner, tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="not archived"):
        call_command("partner_purge", "purge-me", confirm="purge-me", dump_dir=tmp_path)
    assert schema_exists(committed_partner.schema_name)


@pytest.mark.django_db
def test_purge_needs_the_subdomain_as_confirmation(committed_partner: Partner, tmp_path: Path) -> None:
    partner_archive(partner=Partner.objects.get(pk=committed_partner.pk))

    with pytest.raises(CommandError, match="does not match"):
        call_command("partner_purge", "purge-me", confirm="autohaus", dump_dir=tmp_path)
    with pytest.raises(CommandError, match="without confirmation"):
        call_command("partner_purge", "purge-me", dump_dir=tmp_path)

    assert schema_exists(committed_partner.schema_name)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.django_db
def test_purge_refuses_a_partner_with_authority_submissions(
    committed_partner: Partner, tmp_path: Path
) -> None:
    from authority.models import AuthoritySubmission, AuthoritySubmissionItem

    partner = Partner.objects.get(pk=committed_partner.pk)
    partner_archive(partner=partner)
    submission = AuthoritySubmission.objects.create(legislation_year=2026)
    AuthoritySubmissionItem.objects.create(
        submission=submission, partner=partner, application_id=1, application_number="1", vin_hash="x"
    )

    with pytest.raises(CommandError, match="UBA-Einreichungen"):
        call_command("partner_purge", "purge-me", confirm="purge-me", dump_dir=tmp_path)

    assert schema_exists(partner.schema_name) and list(tmp_path.iterdir()) == []


@pytest.mark.django_db
def test_purge_writes_a_dump_then_drops_schema_media_and_rows(
    committed_partner: Partner, tmp_path: Path
) -> None:
    partner = Partner.objects.get(pk=committed_partner.pk)
    partner_archive(partner=partner)
    with schema_context(partner.schema_name):
        default_storage.save(f"{partner.schema_name}/scans/x.jpg", ContentFile(b"scan"))
    assert default_storage.exists(f"{partner.schema_name}/scans/x.jpg")

    call_command("partner_purge", "purge-me", confirm="purge-me", dump_dir=tmp_path)

    (dump,) = tmp_path.iterdir()
    listing = subprocess.run(
        [pg_dump_binary().replace("pg_dump", "pg_restore"), "--list", str(dump)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "p_purge_me accounts_user" in listing  # the data is in the dump ...
    assert stat.S_IMODE(dump.stat().st_mode) == 0o600  # ... for the platform's user alone
    assert not schema_exists("p_purge_me")  # ... and gone from the database
    assert not Partner.objects.filter(subdomain="purge-me").exists()
    assert not Domain.objects.filter(domain="purge-me.localhost").exists()
    assert not default_storage.exists("p_purge_me/scans/x.jpg")
