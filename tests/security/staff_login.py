"""Staff login over HTTP through the Django admin's login form, with its second factor: the one
place the isolation matrix learns how (tests/staff_login.py does the password and code steps)."""

from __future__ import annotations

from django.conf import settings
from django.test import Client

from tests.staff_login import client_staff_login


def admin_login(client: Client, *, host: str, username: str, password: str) -> str:
    """Log `client` in to the admin on `host` as a user would (password, then the code of the
    user's authenticator); returns the session cookie's value. Fails loudly otherwise."""
    client_staff_login(client, host=host, username=username, password=password)
    home = client.get("/admin/", HTTP_HOST=host)
    assert home.status_code == 200, home.status_code
    return client.cookies[settings.SESSION_COOKIE_NAME].value
