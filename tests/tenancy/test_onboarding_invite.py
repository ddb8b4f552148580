"""The console invites a new partner's first partner_admin through the partner area's invite
(staff.services.staff_invite): mail with a set-password link on the partner's own domain."""

import html
import re
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django_tenants.utils import schema_context

from accounts.models import User
from staff.models import StaffInvite, StaffMember
from staff.services import staff_invite_accept
from tenants.models import Partner
from tenants.services import partner_provision
from tests.staff_login import client_staff_login

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client: Client) -> Client:
    User.objects.create_superuser("onboarding", "onboarding@example.com", "S3cure-Passw0rd!")
    client_staff_login(client, host="localhost", username="onboarding", password="S3cure-Passw0rd!")
    return client


@pytest.fixture
def partner() -> Partner:
    return partner_provision(subdomain="einlad", name="Einlad GmbH")


def page(client: Client, partner: Partner) -> str:
    return html.unescape(
        client.get(f"/admin/tenants/partner/{partner.pk}/change/", HTTP_HOST="localhost").content.decode()
    )


def test_the_console_invites_the_first_partner_admin(
    staff: Client, partner: Partner, django_capture_on_commit_callbacks: Any
) -> None:
    assert "Noch kein Partner-Admin" in page(staff, partner)
    mail.outbox.clear()

    with django_capture_on_commit_callbacks(execute=True):
        response = staff.post(
            f"/admin/tenants/partner/{partner.pk}/invite/",
            {"name": "Paula Partner", "email": "paula@einlad.example"},
            HTTP_HOST="localhost",
        )

    assert response.status_code == 302
    with schema_context(partner.schema_name):
        invite = StaffInvite.objects.get(email="paula@einlad.example")
        assert invite.role == "partner_admin" and invite.invited_by is None
    (message,) = mail.outbox
    assert message.to == ["paula@einlad.example"]
    match = re.search(r"http://einlad\.localhost/partner/invite/([A-Za-z0-9_-]+)", str(message.body))
    assert match, message.body
    assert "paula@einlad.example (eingeladen)" in page(staff, partner)

    # the invited person sets a password (the partner area's step): a partner admin now
    with schema_context(partner.schema_name):
        staff_invite_accept(key=match.group(1), password="Ein-sicheres-Passwort-2026")
        assert StaffMember.objects.get(user__email="paula@einlad.example").role == "partner_admin"
    assert "paula@einlad.example" in page(staff, partner)


def test_an_invalid_address_or_an_owners_address_is_refused(staff: Client, partner: Partner) -> None:
    with schema_context(partner.schema_name):
        User.objects.create_user(username="owner@einlad.example", email="owner@einlad.example")

    bad = staff.post(
        f"/admin/tenants/partner/{partner.pk}/invite/",
        {"name": "X", "email": "kein-at"},
        HTTP_HOST="localhost",
        follow=True,
    )
    owner = staff.post(
        f"/admin/tenants/partner/{partner.pk}/invite/",
        {"name": "Owner", "email": "owner@einlad.example"},
        HTTP_HOST="localhost",
        follow=True,
    )

    assert "Bitte Name und E-Mail-Adresse der Einzuladenden angeben." in html.unescape(bad.content.decode())
    assert "Einladung nicht möglich" in html.unescape(owner.content.decode())
    with schema_context(partner.schema_name):
        assert not StaffInvite.objects.exists()
