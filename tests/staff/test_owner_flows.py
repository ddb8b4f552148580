"""Staff accounts are not end users: the owner flows (e-mail code, e-mail link, password reset,
signup, portal password login, create_account) neither log staff in nor change them, and answer
for a staff e-mail as they answer for an address nobody uses."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django_tenants.utils import schema_context

from accounts import services
from accounts.mails import mail_secret_open
from accounts.models import LoginCode, LoginLink, User
from accounts.tokens import PartnerResetTokens, tokens_issue
from quota.services import back_office_staff_ensure
from tenants.models import Partner
from tests.accounts.conftest import solve_bot_check

pytestmark = pytest.mark.django_db
HOST = "autohaus.localhost"
STAFF_EMAIL = "anna@autohaus.example"
STAFF_PASSWORD = "Staff_2026!"
VERIFY_URL = "http://autohaus.localhost:8000/verify-email"
SIGNUP_URL = "http://autohaus.localhost:8000/portal/auth/signup"


@pytest.fixture(autouse=True)
def _in_autohaus() -> Iterator[None]:
    with schema_context("p_autohaus"):
        yield


@pytest.fixture
def anna() -> User:
    return back_office_staff_ensure(username="anna", email=STAFF_EMAIL, password=STAFF_PASSWORD)


@pytest.fixture
def post(client: Client, django_capture_on_commit_callbacks: Any) -> Callable[..., Any]:
    """POST JSON to the partner's API; mails go out when the call commits, as in the server."""

    def call(path: str, payload: dict[str, Any], **headers: str) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(
                path, payload, content_type="application/json", HTTP_HOST=HOST, headers=headers
            )

    return call


def test_code_login_mails_no_code_to_staff_and_takes_none(post: Callable[..., Any], anna: User) -> None:
    # when: a code is asked for the staff address and for an address nobody uses
    staff = post(
        "/api/auth/registration/otp/", {"email": STAFF_EMAIL, "partner": "autohaus", "verify_email_url": ""}
    )
    stranger = post(
        "/api/auth/registration/otp/",
        {"email": "neu@example.de", "partner": "autohaus", "verify_email_url": ""},
    )
    # then: the same answer, but no mail to staff
    assert staff.status_code == stranger.status_code == 200
    assert [m.to for m in mail.outbox] == [["neu@example.de"]]
    # and: even a right code for that address logs no staff in
    LoginCode.objects.filter(email=STAFF_EMAIL).delete()
    row = services._code_issue(email=STAFF_EMAIL, purpose=LoginCode.Purpose.REGISTRATION)
    code = mail_secret_open(row.sealed)
    refused = post("/api/auth/registration/otp/verify/", {"email": STAFF_EMAIL, "otp_code": code})
    assert refused.status_code == 400 and refused.json()["error_code"] == "OTP001"
    assert "access" not in refused.json()


def test_link_login_mails_no_link_to_staff_and_takes_none(post: Callable[..., Any], anna: User) -> None:
    sent = post(
        "/api/auth/registration/email/",
        {"email": STAFF_EMAIL, "partner": "autohaus", "verify_email_url": VERIFY_URL},
    )
    assert sent.status_code == 200 and not mail.outbox
    key = secrets.token_urlsafe(32)
    LoginLink.objects.filter(email=STAFF_EMAIL).delete()
    services._link_issue(
        email=STAFF_EMAIL,
        key=key,
        link="https://autohaus.localhost/x",
        purpose=LoginLink.Purpose.REGISTRATION,
    )
    refused = post("/api/auth/registration/email/verify/", {"key": key})
    assert refused.status_code == 400 and refused.json()["error_code"] == "LINK001"


def test_password_reset_treats_a_staff_address_as_unknown(post: Callable[..., Any], anna: User) -> None:
    staff = post("/api/auth/user/password-reset/verify-email/", {"email": STAFF_EMAIL})
    stranger = post("/api/auth/user/password-reset/verify-email/", {"email": "fremd@example.de"})
    assert staff.status_code == stranger.status_code == 400
    assert staff.json() == stranger.json()
    assert not mail.outbox
    # a reset token made for staff (by whatever means) changes nothing
    partner = Partner.objects.get(subdomain="autohaus")
    token = PartnerResetTokens(partner).make_token(anna)
    with pytest.raises(services.AccountError):
        services.password_reset_user(
            partner=partner, token=token, uidb64=urlsafe_base64_encode(force_bytes(anna.pk))
        )


def test_signup_treats_a_staff_address_as_unknown(post: Callable[..., Any], anna: User) -> None:
    staff = post(
        "/api/end_user_portal/email_register/",
        {"email": STAFF_EMAIL, "partner": "autohaus", "verify_email_url": SIGNUP_URL},
    )
    assert staff.status_code == 400 and staff.json()["error_code"] == "EMAIL002"
    assert not mail.outbox
    key = secrets.token_urlsafe(32)
    services._link_issue(
        email=STAFF_EMAIL, key=key, link="https://autohaus.localhost/x", purpose=LoginLink.Purpose.SIGNUP
    )
    assert post("/api/end_user_portal/verify_token/", {"key": key}).json()["error_code"] == "LINK001"


def test_the_portal_login_refuses_staff_like_a_wrong_password(
    client: Client, post: Callable[..., Any], anna: User
) -> None:
    body = {"username": "anna", "password": STAFF_PASSWORD, "recaptcha": solve_bot_check(client, HOST)}
    staff = post("/api/auth/user/login/", body)
    wrong = post(
        "/api/auth/user/login/", {**body, "password": "falsch", "recaptcha": solve_bot_check(client, HOST)}
    )
    assert staff.status_code == wrong.status_code == 401
    assert staff.json() == wrong.json()
    assert not mail.outbox


def _create_account(client: Client, user: User, **extra: str) -> Any:
    tokens = tokens_issue(user=user, partner=Partner.objects.get(subdomain="autohaus"))
    body = {
        "password": "Neues_Passwort1!",
        "subdomain": "autohaus",
        "recaptcha": solve_bot_check(client, HOST),
        **extra,
    }
    return client.post(
        "/api/end_user_portal/create_account/",
        body,
        content_type="application/json",
        HTTP_HOST=HOST,
        HTTP_AUTHORIZATION=f"Bearer {tokens['access']}",
    )


def test_create_account_does_not_overwrite_a_password_without_the_current_one(client: Client) -> None:
    owner = User.objects.create_user(
        username="o@example.de", email="o@example.de", password="Altes_Passwort1!"
    )

    missing = _create_account(client, owner)
    wrong = _create_account(client, owner, current_password="Falsch_123!")

    for response in (missing, wrong):
        assert response.status_code == 400 and list(response.json()) == ["current_password"]
    owner.refresh_from_db()
    assert owner.check_password("Altes_Passwort1!")
    right = _create_account(client, owner, current_password="Altes_Passwort1!")
    assert right.status_code == 201
    owner.refresh_from_db()
    assert owner.check_password("Neues_Passwort1!")


def test_create_account_of_an_owner_without_a_password_keeps_the_specs_payload(client: Client) -> None:
    owner = User.objects.create_user(username="flow@example.de", email="flow@example.de")
    assert _create_account(client, owner).status_code == 201
    owner.refresh_from_db()
    assert owner.check_password("Neues_Passwort1!")


def test_create_account_never_touches_staff(client: Client, anna: User) -> None:
    response = _create_account(client, anna, current_password=STAFF_PASSWORD)
    assert response.status_code == 401
    anna.refresh_from_db()
    assert anna.check_password(STAFF_PASSWORD)
