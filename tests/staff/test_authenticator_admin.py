"""Staff's authenticator apps in the admin, in German (issue 49): django_otp's own admin says
"TOTP device", "Created at" and "The user that this device belongs to."; ours shows the same
rows under German names, with German labels and help texts."""

import html

import pytest
from django.test import Client

from accounts.models import Authenticator, User
from tests.staff_login import client_staff_login

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
