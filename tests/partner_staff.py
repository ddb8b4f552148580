"""Partner-area staff for tests, signed in the way the web app does it (docs/partner-api.md).

- `staff_member(partner, role="partner_admin", email=None) -> (StaffMember, password)`: a user,
  its member row and a confirmed authenticator in the partner's schema (test database access).
- `partner_session(client, host, member, password) -> Client`: `auth/csrf/`, `auth/login/` and
  `auth/otp/` over HTTP through every middleware; the client keeps the session cookie and sends
  the CSRF header (`client.defaults["HTTP_X_CSRFTOKEN"]`) on every later call. Use a
  `Client(enforce_csrf_checks=True)`: the CSRF check is then the real one.
- `csrf_refresh(client)`: the header again from the `csrftoken` cookie (it rotates at login).
"""

from __future__ import annotations

import secrets

from django.test import Client
from django_otp.plugins.otp_totp.models import TOTPDevice
from django_tenants.utils import schema_context

from accounts.models import User
from staff.models import StaffMember
from staff.services import TOTP_DEVICE_NAME, totp_code_now
from tenants.models import Partner

API = "/api/partner/"


def staff_member(
    partner: Partner, role: str = "partner_admin", email: str | None = None
) -> tuple[StaffMember, str]:
    password = "Staff-" + secrets.token_urlsafe(12)
    email = email or f"{role}-{secrets.token_hex(4)}@{partner.subdomain}.example"
    with schema_context(partner.schema_name):
        user = User(username=email, email=email, is_staff=True)
        user.set_password(password)
        user.save()
        member = StaffMember.objects.create(user=user, role=role, name=email.split("@")[0])
        TOTPDevice.objects.create(user=user, name=TOTP_DEVICE_NAME, confirmed=True)
    return member, password


def totp_code_for(partner_schema: str, user_id: int) -> str:
    """A code the user's authenticator accepts now (each code is accepted once)."""
    with schema_context(partner_schema):
        device = TOTPDevice.objects.get(user_id=user_id, confirmed=True)
        return totp_code_now(device)


def csrf_refresh(client: Client) -> str:
    token = client.cookies["csrftoken"].value
    client.defaults["HTTP_X_CSRFTOKEN"] = token
    return token


def _schema_of(host: str) -> str:
    subdomain = host.split(":")[0].split(".")[0]
    return Partner.objects.get(subdomain=subdomain).schema_name


def partner_session(client: Client, host: str, member: StaffMember, password: str) -> Client:
    """Signs `member` in on `host` (password, then a TOTP code); fails the test if refused."""
    csrf = client.get(API + "auth/csrf/", HTTP_HOST=host)
    assert csrf.status_code == 204, (csrf.status_code, csrf.content[:200])
    csrf_refresh(client)
    with schema_context(_schema_of(host)):
        email = User.objects.get(pk=member.user_id).email
    login = client.post(
        API + "auth/login/",
        {"username": email, "password": password},
        content_type="application/json",
        HTTP_HOST=host,
    )
    assert login.status_code == 200 and login.json()["step"] == "otp", (
        login.status_code,
        login.content[:300],
    )
    otp = client.post(
        API + "auth/otp/",
        {"token": totp_code_for(_schema_of(host), member.user_id)},
        content_type="application/json",
        HTTP_HOST=host,
    )
    assert otp.status_code == 200, (otp.status_code, otp.content[:300])
    csrf_refresh(client)  # Django rotates the CSRF token at login
    return client
