"""Staff's authenticator apps in the admin, in German (issue 49): django_otp's own admin says
"TOTP device", "Created at" and "The user that this device belongs to."; ours shows the same
rows under German names, with German labels and help texts."""

import html
import importlib
from types import SimpleNamespace

import pytest
from django.contrib.auth.models import Group, Permission
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from accounts.models import Authenticator, User
from tests.staff_login import client_staff_login, staff_device

pytestmark = pytest.mark.django_db

ENGLISH = (
    "TOTP device",
    "Created at",
    "Last used at",
    "belongs to",
    "Throttling",
    "Identity",
)


@pytest.fixture
def staff(client: Client) -> Client:
    User.objects.create_superuser("operator", "operator@example.com", "S3cure-Passw0rd!")
    client_staff_login(client, host="localhost", username="operator", password="S3cure-Passw0rd!")
    return client


def test_the_authenticator_apps_are_listed_and_shown_in_german(staff: Client) -> None:
    device = Authenticator.objects.get(user__username="operator")

    listing = html.unescape(
        staff.get("/admin/accounts/authenticator/", HTTP_HOST="localhost").content.decode()
    )
    change = html.unescape(
        staff.get(
            f"/admin/accounts/authenticator/{device.pk}/change/", HTTP_HOST="localhost"
        ).content.decode()
    )
    add = html.unescape(
        staff.get("/admin/accounts/authenticator/add/", HTTP_HOST="localhost").content.decode()
    )

    assert "Authenticator-App" in listing and ">Bestätigt<" in listing and ">ja<" in listing
    assert "icon-yes.svg" not in listing  # words, not the boolean icon with its alt text "True"
    for label in ("Benutzer", "Zeitschritt (Sekunden)", "Fehlversuche in Folge", "Sperre nach Fehlversuchen"):
        assert label in change, label
    assert "Wem die App gehört." in add and "Geheimer Schlüssel" in add
    for page in (listing, change, add):
        assert not [word for word in ENGLISH if word in page]
    # the library's own pages are gone: one admin of the devices
    assert staff.get("/admin/otp_totp/totpdevice/", HTTP_HOST="localhost").status_code == 404


def _grant_as_the_migration_does() -> None:
    """accounts' migration 0008 on the migration state of its own step, in this schema."""
    migration = importlib.import_module("accounts.migrations.0008_authenticator_permissions")
    state = MigrationExecutor(connection).loader.project_state(("accounts", "0008_authenticator_permissions"))
    migration.authenticator_permissions_grant(state.apps, SimpleNamespace(connection=connection))


def test_staff_who_could_manage_totp_devices_keep_the_authenticator_pages(client: Client) -> None:
    # given: staff who are no superusers, given django_otp's device permissions before the
    # German proxy model: one through a group (view and change), one directly (view only)
    helpdesk = Group.objects.create(name="Helpdesk")
    helpdesk.permissions.set(
        Permission.objects.filter(
            content_type__app_label="otp_totp", codename__in=["view_totpdevice", "change_totpdevice"]
        )
    )
    password = "S3cure-Passw0rd!"
    member = User.objects.create_user("helpdesk", "helpdesk@example.com", password, is_staff=True)
    member.groups.add(helpdesk)
    reader = User.objects.create_user("revision", "revision@example.com", password, is_staff=True)
    reader.user_permissions.add(Permission.objects.get(codename="view_totpdevice"))
    nobody = User.objects.create_user("niemand", "niemand@example.com", password, is_staff=True)
    device = staff_device(member)
    sessions = {}
    for user in (member, reader, nobody):
        sessions[user.username] = Client()
        client_staff_login(
            sessions[user.username], host="localhost", username=user.username, password=password
        )
    listing = "/admin/accounts/authenticator/"
    change = f"/admin/accounts/authenticator/{device.pk}/change/"
    assert sessions["helpdesk"].get(listing, HTTP_HOST="localhost").status_code == 403

    # when
    _grant_as_the_migration_does()

    # then: over HTTP, the group's members see and change, the reader only sees, others nothing
    page = sessions["helpdesk"].get(listing, HTTP_HOST="localhost")
    assert page.status_code == 200 and "helpdesk" in page.content.decode()
    form = sessions["helpdesk"].get(change, HTTP_HOST="localhost").content.decode()
    assert 'name="_save"' in form and "Zeitschritt (Sekunden)" in html.unescape(form)
    assert sessions["revision"].get(listing, HTTP_HOST="localhost").status_code == 200
    shown = sessions["revision"].get(change, HTTP_HOST="localhost")
    assert shown.status_code == 200 and 'name="_save"' not in shown.content.decode()
    assert sessions["niemand"].get(listing, HTTP_HOST="localhost").status_code == 403
    # granted once: a second run adds nothing twice and grants nobody else
    _grant_as_the_migration_does()
    assert set(helpdesk.permissions.values_list("codename", flat=True)) == {
        "view_totpdevice", "change_totpdevice", "view_authenticator", "change_authenticator",
    }  # fmt: skip
    assert not nobody.user_permissions.exists() and not nobody.groups.exists()
