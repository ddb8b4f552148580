"""A password change ends the member's other sessions (issue 47, item 4), the way staff change
it: the admin's password page, over HTTP with both factors. The session that changed it goes on;
every other one (the partner area on another device, another admin session) is over at its next
request. On the platform's public host too (platform admins have no member row)."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django_tenants.utils import schema_context

from accounts.models import User
from tenants.models import Partner
from tests.partner_staff import partner_session, staff_member
from tests.staff_login import client_staff_login

pytestmark = pytest.mark.django_db
HOST = "autohaus.localhost"
NEW_PASSWORD = "Ganz-neues-Passwort-47!"


def _change_password(client: Client, host: str, old: str) -> int:
    page = client.get("/admin/password_change/", HTTP_HOST=host)
    assert page.status_code == 200, page.status_code
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode())
    assert token
    done = client.post(
        "/admin/password_change/",
        {
            "old_password": old,
            "new_password1": NEW_PASSWORD,
            "new_password2": NEW_PASSWORD,
            "csrfmiddlewaretoken": token.group(1),
        },
        HTTP_HOST=host,
    )
    return done.status_code


def test_a_members_password_change_ends_its_other_sessions_and_keeps_this_one() -> None:
    partner = Partner.objects.get(subdomain="autohaus")
    member, password = staff_member(partner, "back_office")
    with schema_context(partner.schema_name):
        username = User.objects.get(pk=member.user_id).username
    phone = partner_session(Client(enforce_csrf_checks=True), HOST, member, password)
    other_desk = Client(enforce_csrf_checks=True)
    client_staff_login(other_desk, host=HOST, username=username, password=password)
    desk = Client(enforce_csrf_checks=True)
    client_staff_login(desk, host=HOST, username=username, password=password)
    assert phone.get("/api/partner/me/", HTTP_HOST=HOST).status_code == 200
    assert other_desk.get("/admin/", HTTP_HOST=HOST).status_code == 200

    # when: the member changes its password at the desk
    assert _change_password(desk, HOST, password) == 302

    # then: the desk goes on; the phone's partner area and the other admin session are over
    assert desk.get("/admin/", HTTP_HOST=HOST).status_code == 200
    assert phone.get("/api/partner/me/", HTTP_HOST=HOST).status_code == 401
    assert other_desk.get("/admin/", HTTP_HOST=HOST).status_code == 302
    # the new password opens a new session
    fresh = partner_session(Client(enforce_csrf_checks=True), HOST, member, NEW_PASSWORD)
    assert fresh.get("/api/partner/me/", HTTP_HOST=HOST).status_code == 200


def test_a_platform_admins_password_change_ends_its_other_sessions() -> None:
    User.objects.create_superuser("plattform47", "plattform47@example.com", "Plattform_2026!")
    laptop, desk = Client(), Client()
    client_staff_login(laptop, host="localhost", username="plattform47", password="Plattform_2026!")
    client_staff_login(desk, host="localhost", username="plattform47", password="Plattform_2026!")

    assert _change_password(desk, "localhost", "Plattform_2026!") == 302

    assert desk.get("/admin/", HTTP_HOST="localhost").status_code == 200
    assert laptop.get("/admin/", HTTP_HOST="localhost").status_code == 302
