"""Logging staff into the Django admin the way a person does: password, then a TOTP code.

- `staff_device(user)`: the user's confirmed authenticator (created with a random key if none).
- `totp_code(device)`: a code that device accepts now (django_otp.oath.totp with its key).
- `client_staff_login(client, host=..., username=..., password=...)`: Django's test Client,
  through every middleware; reads the device in the host's schema (test database access).
- `http_staff_login(session, base_url=..., username=..., password=..., code=...)`: a
  `requests.Session` against a running server (gunicorn); `code()` returns the TOTP code
  (set `session.headers["Host"]` for a partner host when base_url is http://127.0.0.1:port).
- `page_staff_login(page, base_url=..., username=..., password=..., code=...)`: Playwright.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django.test import Client
from django_otp.plugins.otp_totp.models import TOTPDevice
from django_tenants.utils import schema_context

from accounts.models import User
from staff.services import TOTP_DEVICE_NAME, totp_code_now
from tenants.directory import directory

LOGIN = "/admin/login/"
CODE = "/admin/login/code/"


def staff_device(user: User) -> TOTPDevice:
    """The user's authenticator (inside the user's schema); a new confirmed one if none."""
    device = TOTPDevice.objects.filter(user=user, confirmed=True).first()
    return device or TOTPDevice.objects.create(user=user, name=TOTP_DEVICE_NAME, confirmed=True)


def totp_code(device: TOTPDevice) -> str:
    return totp_code_now(device)


def _schema_for(host: str) -> str:
    partner = directory.by_host(host.split(":")[0])
    return partner.schema_name if partner is not None else "public"


def client_staff_login(client: Client, *, host: str, username: str, password: str) -> None:
    """Password step and code step over the test Client; fails the test if either is refused."""
    # As a browser does: the page first (its CSRF cookie and token), so a client that enforces
    # CSRF checks logs in too.
    page = client.get(LOGIN, HTTP_HOST=host)
    password_step = client.post(
        LOGIN,
        {"username": username, "password": password, "csrfmiddlewaretoken": _csrf(page.content.decode())},
        HTTP_HOST=host,
    )
    assert password_step.status_code == 302, f"password step refused ({password_step.status_code})"
    location = password_step["Location"]
    with schema_context(_schema_for(host)):
        user = User.objects.get(username=username)
        device = staff_device(user)
        code = totp_code(device)
    if "/enrol/" in location:  # a device was created just now: the code step takes it
        location = location.replace("/enrol/", "/code/")
    code_page = client.get(location, HTTP_HOST=host)
    code_step = client.post(
        location,
        {"otp_token": code, "csrfmiddlewaretoken": _csrf(code_page.content.decode())},
        HTTP_HOST=host,
    )
    assert code_step.status_code == 302 and "/login/" not in code_step["Location"], "code step refused"


def _csrf(html: str) -> str:
    match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert match, "no CSRF token on the page"
    return match.group(1)


def http_staff_login(
    session: Any, *, base_url: str, username: str, password: str, code: Callable[[], str]
) -> None:
    """Against a running server with a `requests.Session` (keeps the session cookie)."""
    page = session.get(base_url + LOGIN)
    password_step = session.post(
        base_url + LOGIN,
        data={"username": username, "password": password, "csrfmiddlewaretoken": _csrf(page.text)},
        headers={"Referer": base_url + LOGIN},
        allow_redirects=False,
    )
    assert password_step.status_code == 302, f"password step refused ({password_step.status_code})"
    location = password_step.headers["Location"]
    form = session.get(base_url + location)
    code_step = session.post(
        base_url + location,
        data={"otp_token": code(), "csrfmiddlewaretoken": _csrf(form.text)},
        headers={"Referer": base_url + location},
        allow_redirects=False,
    )
    assert code_step.status_code == 302 and "/login/" not in code_step.headers["Location"], (
        "code step refused"
    )


def page_staff_login(
    page: Any, *, base_url: str, username: str, password: str, code: Callable[[], str]
) -> None:
    """In Chromium: the admin's login form, then the code form."""
    page.goto(base_url + LOGIN)
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("input[type=submit]")
    page.wait_for_url(re.compile(r"/admin/login/code/"))
    page.fill("#id_otp_token", code())
    page.click("input[type=submit]")
    page.wait_for_url(re.compile(r"/admin/(?!login/)"))
