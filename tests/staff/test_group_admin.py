"""The admin's group form in German (issue 49): Django stores permission names in English ("Can
view Antrag") and offers every permission of every installed app, the libraries' plumbing
included; the form names them by German app and model names and a German action, offers those
of the pages the admin shows on the host, and its picker's JavaScript texts are German."""

from __future__ import annotations

import html
import re

import pytest
from django.contrib.auth.models import Group, Permission
from django.test import Client
from django_tenants.utils import schema_context

from accounts.models import User
from tests.staff_login import client_staff_login

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client: Client) -> Client:
    User.objects.create_superuser("operator", "operator@example.com", "S3cure-Passw0rd!")
    client_staff_login(client, host="localhost", username="operator", password="S3cure-Passw0rd!")
    return client


def options(page: str) -> dict[str, str]:
    """The permission picker's options: value -> text."""
    select = page[page.index('name="permissions"') :]
    select = select[: select.index("</select>")]
    return {
        value: html.unescape(text)
        for value, text in re.findall(r'<option value="(\d+)"[^>]*>([^<]*)<', select)
    }


def test_the_group_form_names_permissions_in_german(staff: Client) -> None:
    page = staff.get("/admin/auth/group/add/", HTTP_HOST="localhost").content.decode()
    offered = options(page)

    texts = set(offered.values())
    assert "Benutzerkonten › Authenticator-App: ansehen" in texts
    assert "Partners › Konfigurationsversion: löschen" in texts
    assert "Authentifizierung und Autorisierung › Gruppe: anlegen" in texts
    # the public host's admin shows no partner's applications: nothing to grant on them here
    assert not [text for text in texts if text.startswith("Anträge ›")]
    assert not [text for text in texts if re.search(r"\bCan\b|\b(add|change|delete|view)\b|_", text)]
    # the libraries' plumbing that no admin page shows is not offered
    for app_label in ("otp_static", "otp_totp", "token_blacklist", "sessions", "contenttypes"):
        plumbing = Permission.objects.filter(content_type__app_label=app_label).values_list("pk", flat=True)
        assert not {str(pk) for pk in plumbing} & set(offered), app_label


def test_a_group_keeps_what_it_holds_and_is_saved_with_the_german_picker(staff: Client) -> None:
    # given: a group that holds a permission the picker no longer offers (the library's devices)
    group = Group.objects.create(name="Helpdesk")
    legacy = Permission.objects.get(codename="view_totpdevice")
    group.permissions.add(legacy)
    change = f"/admin/auth/group/{group.pk}/change/"
    offered = options(staff.get(change, HTTP_HOST="localhost").content.decode())
    assert offered[str(legacy.pk)] == "Zweiter Faktor › Authenticator-App (Bibliothek): ansehen"
    view = Permission.objects.get(codename="view_authenticator")

    # when
    saved = staff.post(
        change,
        {"name": "Helpdesk", "permissions": [str(legacy.pk), str(view.pk)]},
        HTTP_HOST="localhost",
    )

    # then
    assert saved.status_code == 302
    assert set(group.permissions.values_list("codename", flat=True)) == {
        "view_totpdevice",
        "view_authenticator",
    }


def test_the_pickers_javascript_texts_are_german(staff: Client) -> None:
    catalogue = staff.get("/admin/jsi18n/", HTTP_HOST="localhost").content.decode()

    # JavaScript's escapes, as the catalogue writes them
    assert '"Choose all": "Alle ausw\\u00e4hlen"' in catalogue
    # the picker's texts Django's German catalogue lacks (staff/locale)
    assert '"Choose all %s": "Alle %s ausw\\u00e4hlen"' in catalogue
    assert '"Remove selected %s": "Markierte %s entfernen"' in catalogue
    assert '"(click to clear)": "(zum Leeren klicken)"' in catalogue
    assert '"Remove all": "Alle entfernen"' in catalogue


def test_a_partner_hosts_group_form_offers_its_own_pages(client: Client) -> None:
    with schema_context("p_autohaus"):
        User.objects.create_superuser("bo-gruppen", "bo-gruppen@example.com", "S3cure-Passw0rd!")
    client_staff_login(client, host="autohaus.localhost", username="bo-gruppen", password="S3cure-Passw0rd!")

    page = client.get("/admin/auth/group/add/", HTTP_HOST="autohaus.localhost")

    texts = set(options(page.content.decode()).values())
    assert page.status_code == 200
    assert "Anträge › Antrag: ändern" in texts
    assert not [text for text in texts if text.startswith("Partners ›")]
    assert not [text for text in texts if re.search(r"\bCan\b|\b(add|change|delete|view)\b|_", text)]
