"""Staff login over HTTP through the Django admin's login form: the one place that knows how.

The admin is about to require a second factor (django-otp, issue 13 item 3); its extra step
belongs here, so every test that needs a staff session keeps working.
"""

from __future__ import annotations

import re

from django.conf import settings
from django.test import Client


def admin_login(client: Client, *, host: str, username: str, password: str) -> str:
    """Log `client` in to the admin on `host` as a user would (login page, CSRF token, form
    post); returns the session cookie's value. Fails loudly when the login did not happen."""
    page = client.get("/admin/login/", HTTP_HOST=host)
    assert page.status_code == 200, page.status_code
    match = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page.content)
    assert match, "the admin login page has no CSRF token"
    response = client.post(
        "/admin/login/?next=/admin/",
        {"username": username, "password": password, "csrfmiddlewaretoken": match.group(1).decode()},
        HTTP_HOST=host,
    )
    assert response.status_code == 302 and response["Location"] == "/admin/", (
        response.status_code,
        response.content[:500],
    )
    home = client.get("/admin/", HTTP_HOST=host)
    assert home.status_code == 200, home.status_code
    return client.cookies[settings.SESSION_COOKIE_NAME].value
