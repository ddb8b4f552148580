"""The console's writes in its own audit log (public schema): who, what, before/after, when;
visible read-only in the platform admin, on the public host only; kept after a purge."""

from __future__ import annotations

import html
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client
from PIL import Image

from accounts.models import User
from tenants.models import ConsoleAuditEntry, Partner
from tenants.services import partner_archive, partner_provision
from tests.staff_login import client_staff_login
from tests.tenancy.console_form import partner_form

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client: Client) -> Client:
    User.objects.create_superuser("onboarding", "onboarding@example.com", "S3cure-Passw0rd!")
    client_staff_login(client, host="localhost", username="onboarding", password="S3cure-Passw0rd!")
    return client


def entries(subdomain: str) -> list[ConsoleAuditEntry]:
    return list(ConsoleAuditEntry.objects.filter(partner_label=subdomain).order_by("pk"))


def test_every_console_write_is_logged_with_actor_and_before_after(staff: Client) -> None:
    # create in the console
    created = staff.post(
        "/admin/tenants/partner/add/",
        {
            "subdomain": "protokoll",
            "name": "Protokoll GmbH",
            "kind": "standard",
            "frontend_active": "on",
            "config": json.dumps({"page_title": "Erst"}),
            "config_import": "",
            "custom_domain": "",
            "note": "",
        },
        HTTP_HOST="localhost",
    )
    assert created.status_code == 302
    partner = Partner.objects.get(subdomain="protokoll")
    url = f"/admin/tenants/partner/{partner.pk}"
    # rename and a draft of the configuration in one save
    staff.post(
        f"{url}/change/", partner_form(partner, {**partner.config, "page_title": "Zweit"}, name="Protokoll AG"),
        HTTP_HOST="localhost",
    )  # fmt: skip
    staff.post(f"{url}/publish/", HTTP_HOST="localhost")
    staff.post(f"{url}/versions/1/rollback/", HTTP_HOST="localhost")
    partner.refresh_from_db()
    # a custom domain added on the change page
    staff.post(
        f"{url}/change/",
        partner_form(
            partner, partner.config,
            **{"domains-TOTAL_FORMS": "1", "domains-0-domain": "thg.protokoll.example", "domains-0-is_primary": ""},
        ),
        HTTP_HOST="localhost",
    )  # fmt: skip
    logo = io.BytesIO()
    Image.new("RGB", (200, 80), (0, 60, 120)).save(logo, format="PNG")
    logo.seek(0)
    logo.name = "logo.png"
    staff.post(f"{url}/brand/", {"logo": logo}, HTTP_HOST="localhost")
    staff.post(
        f"{url}/invite/", {"name": "Erika Admin", "email": "erika@protokoll.example"}, HTTP_HOST="localhost"
    )
    staff.post(f"{url}/delete/", {"post": "yes"}, HTTP_HOST="localhost")

    log = entries("protokoll")
    assert [entry.action for entry in log] == [
        "create", "change", "draft", "publish", "rollback", "domain_add", "asset", "invite", "archive",
    ]  # fmt: skip
    assert {entry.actor.username for entry in log if entry.actor} == {"onboarding"}
    assert all(entry.actor_label == "onboarding <onboarding@example.com>" for entry in log)
    create, change, draft, publish, rollback, domain, asset, invite, archive = log
    assert create.before is None and create.after["domains"] == ["protokoll.localhost"]
    assert (change.before, change.after) == ({"name": "Protokoll GmbH"}, {"name": "Protokoll AG"})
    assert (draft.before["page_title"], draft.after["page_title"]) == ("Erst", "Zweit")
    assert publish.before["published_version"] == 1 and publish.after["published_version"] == 2
    assert publish.after["page_title"] == "Zweit"
    assert rollback.after == {"published_version": 3, "page_title": "Erst"}
    assert domain.after == {"domain": "thg.protokoll.example", "is_primary": False}
    assert asset.after["logo"].startswith("/brand/logo-")
    assert invite.after == {
        "email": "erika@protokoll.example",
        "name": "Erika Admin",
        "role": "partner_admin",
    }
    assert archive.before["archived_at"] is None and archive.after["archived_at"] is not None
    assert all(entry.created_at is not None for entry in log)

    # each entry's page shows before and after as people read them: per section of the form,
    # German titles, values in words; no configuration key and no JSON
    def shown(entry: ConsoleAuditEntry) -> str:
        page = staff.get(f"/admin/tenants/consoleauditentry/{entry.pk}/change/", HTTP_HOST="localhost")
        assert page.status_code == 200
        text = html.unescape(page.content.decode())
        assert "<pre>" not in text
        table = text[text.index('id="audit-changes"') :]
        table = table[table.index(">") + 1 : table.index("</table>")]
        assert not re.findall(
            r"\b[a-z]+_[a-z_]+\b|\b(?:null|true|false|None)\b|[{}\"]", re.sub(r"<[^>]+>", " ", table)
        ), entry.action
        return table

    assert re.search(r">Marke</h3>.*>Titel der Website</th><td>Erst</td><td>Zweit<", shown(draft), re.S)
    assert re.search(r">Allgemein</h3>.*>Veröffentlichte Version</th><td>1</td><td>2<", shown(publish), re.S)
    created_page = shown(create)
    assert ">Nachher</th>" in created_page and ">Vorher</th>" not in created_page
    assert ">Art des Partners</th><td>Standard (Autohaus, Flotte, Händler)<" in created_page
    assert ">Website aktiv</th><td>nein<" in created_page
    assert ">Domains</th><td>protokoll.localhost<" in created_page
    assert re.search(r">Marke</h3>.*>Titel der Website</th><td>Erst<", created_page, re.S)
    assert ">Name</th><td>Protokoll GmbH</td><td>Protokoll AG<" in shown(change)
    assert ">Hauptdomain</th><td>nein<" in shown(domain)
    assert ">Rolle</th><td>Partner-Admin<" in shown(invite)
    assert re.search(r">Archiviert am</th><td>–</td><td>\d\d\.\d\d\.\d{4} \d\d:\d\d<", shown(archive))
    assert ">Logo (URL)</th><td>–</td><td>/brand/logo-" in shown(asset)
    listing = html.unescape(
        staff.get("/admin/tenants/consoleauditentry/", HTTP_HOST="localhost").content.decode()
    )
    assert "Domain hinzugefügt" in listing and "Entwurf gespeichert" in listing
    assert "domain_add" not in re.sub(r"<[^>]+>", " ", listing)


def test_the_log_is_read_only_in_the_platform_admin_and_absent_on_a_partner_host(staff: Client) -> None:
    partner = partner_provision(subdomain="protokoll", name="Protokoll GmbH")
    staff.get(f"/admin/tenants/partner/{partner.pk}/preview/", HTTP_HOST="localhost")
    entry = ConsoleAuditEntry.objects.get(partner_label="protokoll", action="preview")

    listing = staff.get("/admin/tenants/consoleauditentry/", HTTP_HOST="localhost")
    detail = staff.get(f"/admin/tenants/consoleauditentry/{entry.pk}/change/", HTTP_HOST="localhost")

    assert listing.status_code == 200 and "Vorschau-Link erzeugt" in listing.content.decode()
    assert detail.status_code == 200 and 'name="_save"' not in detail.content.decode()
    assert staff.get("/admin/tenants/consoleauditentry/add/", HTTP_HOST="localhost").status_code == 403
    deleted = staff.post(
        f"/admin/tenants/consoleauditentry/{entry.pk}/delete/", {"post": "yes"}, HTTP_HOST="localhost"
    )
    assert deleted.status_code == 403 and ConsoleAuditEntry.objects.filter(pk=entry.pk).exists()
    assert staff.get("/admin/tenants/consoleauditentry/", HTTP_HOST="autohaus.localhost").status_code in {
        302,
        403,
        404,
    }


@pytest.fixture(scope="module")
def committed(django_db_setup: None, django_db_blocker: Any) -> Iterator[Partner]:
    """Committed: pg_dump (backup, purge) runs in its own connection and sees only that."""
    with django_db_blocker.unblock():
        partner = partner_provision(subdomain="protokoll-cmd", name="Protokoll GmbH")
        yield partner
        with connection.cursor() as cursor:
            cursor.execute('DROP SCHEMA IF EXISTS "p_protokoll_cmd" CASCADE')
        Partner.objects.filter(subdomain="protokoll-cmd").delete()
        ConsoleAuditEntry.objects.filter(partner_label="protokoll-cmd").delete()


def test_commands_are_logged_and_the_log_outlives_a_purge(committed: Partner, tmp_path: Path) -> None:
    call_command("partner_backup", "protokoll-cmd", output=tmp_path / "p.tar", stdout=io.StringIO())
    partner_archive(partner=committed)

    call_command(
        "partner_purge", "protokoll-cmd", confirm="protokoll-cmd", dump_dir=tmp_path, stdout=io.StringIO()
    )

    log = entries("protokoll-cmd")
    assert [entry.action for entry in log] == ["backup", "purge"]
    assert all(entry.actor is None and entry.actor_label.startswith("manage.py") for entry in log)
    assert log[0].after["path"] == str(tmp_path / "p.tar")
    assert log[1].partner is None and log[1].after["dump"].startswith(str(tmp_path))
    assert not Partner.objects.filter(subdomain="protokoll-cmd").exists()
