"""Issue 13 item 7: a deactivated partner (demo `inaktiv`) takes no logins, uploads or admin,
but still answers its configuration call so the web app can say 'Diese Website ist nicht aktiv.'
Every request goes through the real middleware with the partner's host."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.core import mail
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context

from accounts.models import User
from accounts.tokens import tokens_issue
from registrations.models import BevRegistration
from tenants.models import Partner
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
HOST = "inaktiv.localhost"
REFUSED = {"detail": "Diese Website ist nicht aktiv.", "error_code": "PARTNER_INACTIVE"}
PASSWORD = "Sommer-Regen-2024!"


@pytest.fixture(autouse=True)
def _in_inaktiv() -> Iterator[None]:
    with schema_context("p_inaktiv"):
        yield


@pytest.fixture
def owner() -> User:
    user = UserFactory.create(email="former@example.de")
    user.set_password(PASSWORD)
    user.save()
    return user


def tokens(user: User) -> dict[str, str]:
    return tokens_issue(user=user, partner=Partner.objects.get(subdomain="inaktiv"))


def post(client: Client, path: str, payload: dict[str, Any], **headers: Any) -> Any:
    return client.post(path, json.dumps(payload), content_type="application/json", HTTP_HOST=HOST, **headers)


def test_the_configuration_call_still_answers(client: Client) -> None:
    response = client.get("/api/configs/inaktiv/", HTTP_HOST=HOST)

    assert response.status_code == 200
    assert response.json()["frontend_active"] is False


def test_the_web_app_is_still_served_to_show_the_deactivated_screen(client: Client) -> None:
    response = client.get("/", HTTP_HOST=HOST)

    # 503 only when the web app is not built in this checkout; never refused.
    assert response.status_code in {200, 503}


@pytest.mark.parametrize(
    ("path", "payload"),
    [
        ("/api/auth/registration/otp/", {"email": "former@example.de", "partner": "inaktiv"}),
        (
            "/api/auth/registration/email/",
            {
                "email": "former@example.de",
                "partner": "inaktiv",
                "verify_email_url": "http://inaktiv.localhost:8000/verify-email",
            },
        ),
        ("/api/auth/registration/otp/verify/", {"email": "former@example.de", "otp_code": "123456"}),
        ("/api/auth/registration/email/verify/", {"key": "some-key"}),
        ("/api/auth/user/password-reset/verify-email/", {"email": "former@example.de"}),
        (
            "/api/end_user_portal/email_register/",
            {
                "email": "former@example.de",
                "partner": "inaktiv",
                "verify_email_url": "http://inaktiv.localhost:8000/portal/verify",
            },
        ),
    ],
)
def test_no_login_code_link_reset_or_signup(client: Client, owner: User, path: str, payload: Any) -> None:
    response = post(client, path, payload)

    assert response.status_code == 403
    assert response.json() == REFUSED
    assert mail.outbox == []


def test_no_portal_password_login(client: Client, owner: User) -> None:
    response = post(client, "/api/auth/user/login/", {"username": owner.email, "password": PASSWORD})

    assert response.status_code == 403
    assert response.json() == REFUSED
    assert "tokens" not in response.json()


def test_no_token_refresh_and_no_call_with_an_earlier_token(client: Client, owner: User) -> None:
    # given: tokens issued while the partner was still active
    issued = tokens(owner)

    refreshed = post(client, "/api/auth/user/token/refresh/", {"refresh": issued["refresh"]})
    listed = client.get(
        "/api/end_user_portal/quota_applications/",
        HTTP_HOST=HOST,
        HTTP_AUTHORIZATION=f"Bearer {issued['access']}",
    )

    assert (refreshed.status_code, refreshed.json()) == (403, REFUSED)
    assert (listed.status_code, listed.json()) == (403, REFUSED)


def test_no_upload(client: Client, owner: User) -> None:
    before = BevRegistration.objects.count()

    response = client.post(
        "/api/bev_registrations/",
        {
            "partner": "inaktiv",
            "registration_years": str(timezone.localdate().year),
            "zlb_scan": SimpleUploadedFile("scan.jpg", b"\xff\xd8" + b"0" * 4000, "image/jpeg"),
        },
        HTTP_HOST=HOST,
        HTTP_AUTHORIZATION=f"Bearer {tokens(owner)['access']}",
    )

    assert (response.status_code, response.json()) == (403, REFUSED)
    assert BevRegistration.objects.count() == before


def test_no_billing(client: Client, owner: User) -> None:
    response = post(
        client,
        "/api/clients/",
        {"first_name": "Erika"},
        HTTP_AUTHORIZATION=f"Bearer {tokens(owner)['access']}",
    )

    assert (response.status_code, response.json()) == (403, REFUSED)


def test_its_staff_cannot_reach_or_log_into_the_admin(client: Client) -> None:
    # given: the demo back-office user of this partner, with its real password
    from console.management.commands.seed_demo import DEMO_STAFF_PASSWORD

    assert User.objects.filter(username="backoffice").exists()

    page = client.get("/admin/", HTTP_HOST=HOST)
    login = client.post(
        "/admin/login/",
        {"username": "backoffice", "password": DEMO_STAFF_PASSWORD, "next": "/admin/"},
        HTTP_HOST=HOST,
    )

    assert page.status_code == 403
    assert login.status_code == 403
    assert "sessionid" not in login.cookies


def test_an_active_partner_is_not_affected(client: Client) -> None:
    # The same calls on an active partner's host are answered by their views.
    with schema_context("p_autohaus"):
        response = client.post(
            "/api/auth/registration/otp/verify/",
            json.dumps({"email": "nobody@example.de", "otp_code": "123456"}),
            content_type="application/json",
            HTTP_HOST="autohaus.localhost",
        )
        admin = client.get("/admin/", HTTP_HOST="autohaus.localhost")

    assert response.status_code == 400
    assert admin.status_code == 302
