"""Partner-area sign-in (docs/partner-api.md, "Sessions and roles", "Auth"): password, then a
TOTP or backup code; first login enrols an authenticator; a session counts only after the second
factor, only for an active member, only on its own partner, never with a bearer token, and every
unsafe call needs the CSRF header. Through HTTP with the real middleware."""

from __future__ import annotations

import base64
from datetime import timedelta
from types import SimpleNamespace
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone
from django_otp.oath import totp
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice
from django_tenants.utils import schema_context

from accounts.models import User
from accounts.tokens import tokens_issue
from staff.models import StaffMember
from tenants.models import Partner
from tests.partner_staff import csrf_refresh, partner_session, staff_member, totp_code_for
from tools.demo_totp import demo_code

pytestmark = pytest.mark.django_db
HOST = "autohaus.localhost"
HOST_B = "stadtwerk.localhost"
SCHEMA = "p_autohaus"
API = "/api/partner/"


@pytest.fixture
def autohaus() -> Partner:
    return Partner.objects.get(subdomain="autohaus")


@pytest.fixture
def admin(autohaus: Partner) -> tuple[StaffMember, str]:
    return staff_member(autohaus, "partner_admin", email="chefin@autohaus.example")


def browser() -> Client:
    """A client that enforces CSRF like a browser's server does, with the csrftoken cookie."""
    client = Client(enforce_csrf_checks=True)
    assert client.get(API + "auth/csrf/", HTTP_HOST=HOST).status_code == 204
    csrf_refresh(client)
    return client


def post(
    client: Client, path: str, body: dict[str, Any] | None = None, host: str = HOST, **extra: Any
) -> Any:
    return client.post(API + path, body or {}, content_type="application/json", HTTP_HOST=host, **extra)


def login(client: Client, username: str, password: str, **extra: Any) -> Any:
    return post(client, "auth/login/", {"username": username, "password": password}, **extra)


def me(client: Client, host: str = HOST, **extra: Any) -> Any:
    return client.get(API + "me/", HTTP_HOST=host, **extra)


# --- CSRF cookie ----------------------------------------------------------------------------------


def test_the_csrf_call_sets_the_cookie() -> None:
    client = Client(enforce_csrf_checks=True)
    response = client.get(API + "auth/csrf/", HTTP_HOST=HOST)
    assert response.status_code == 204
    assert client.cookies["csrftoken"].value
    assert response["Cache-Control"] == "no-store"


def test_the_partner_area_is_not_on_the_public_host() -> None:
    assert Client().get(API + "auth/csrf/", HTTP_HOST="localhost").status_code == 404
    assert Client().get(API + "me/", HTTP_HOST="localhost").status_code == 404


# --- Password, then code ------------------------------------------------------------------------


def test_password_then_code_signs_in(admin: tuple[StaffMember, str]) -> None:
    member, password = admin
    client = browser()

    step = login(client, "chefin@autohaus.example", password)
    assert step.status_code == 200 and step.json() == {"step": "otp", "enrolment": None}
    # a password alone is nobody yet
    assert "_auth_user_id" not in client.session
    assert me(client).status_code == 401

    done = post(client, "auth/otp/", {"token": totp_code_for(SCHEMA, member.user_id)})

    assert done.status_code == 200
    assert done.json() == {
        "id": member.pk,
        "email": "chefin@autohaus.example",
        "name": "chefin",
        "role": "partner_admin",
        "language": "de",
        "digest_enabled": True,  # the daily mail digest (issue 49): on unless switched off
    }
    session_cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    assert session_cookie["httponly"] and session_cookie["samesite"] == "Lax"
    assert me(client).json()["id"] == member.pk


def test_the_username_works_as_well_as_the_email(admin: tuple[StaffMember, str]) -> None:
    member, password = admin
    with schema_context(SCHEMA):
        user = User.objects.get(pk=member.user_id)
        user.username = "Chefin"
        user.save()
    assert login(browser(), "CHEFIN", password).json()["step"] == "otp"


@pytest.mark.parametrize(
    "language,text",
    [("de", "Benutzername oder Passwort ist falsch."), ("en", "The username or password is incorrect.")],
)
def test_a_wrong_password_is_refused_in_the_requests_language(
    admin: tuple[StaffMember, str], language: str, text: str
) -> None:
    response = login(browser(), "chefin@autohaus.example", "falsch", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 400
    assert response.json() == {"detail": text, "error_code": "LOGIN001"}


def test_an_unknown_name_and_an_owner_are_refused_like_a_wrong_password(autohaus: Partner) -> None:
    with schema_context(SCHEMA):
        User.objects.create_user(
            username="owner@example.de", email="owner@example.de", password="Owner-2026!x"
        )
    for username, password in (("niemand@example.de", "egal"), ("owner@example.de", "Owner-2026!x")):
        response = login(browser(), username, password)
        assert response.status_code == 400 and response.json()["error_code"] == "LOGIN001"


def test_the_login_needs_the_csrf_header(admin: tuple[StaffMember, str]) -> None:
    member, password = admin
    client = browser()
    del client.defaults["HTTP_X_CSRFTOKEN"]

    response = login(client, "chefin@autohaus.example", password)

    assert response.status_code == 403
    assert response.json()["error_code"] == "CSRF001"
    assert "Sicherheitsprüfung" in response.json()["detail"]


def test_a_forged_csrf_header_is_refused(admin: tuple[StaffMember, str]) -> None:
    member, password = admin
    client = browser()
    client.defaults["HTTP_X_CSRFTOKEN"] = "x" * 32
    assert login(client, "chefin@autohaus.example", password).status_code == 403


def test_a_wrong_code_then_djangos_throttle(admin: tuple[StaffMember, str]) -> None:
    member, password = admin
    client = browser()
    login(client, "chefin@autohaus.example", password)

    wrong = post(client, "auth/otp/", {"token": "000000"})
    assert wrong.status_code == 400
    assert wrong.json() == {"token": {"error_code": "OTP001", "message": "Der Code ist falsch."}}
    # django-otp's throttle: right after a wrong code every code waits, even the right one
    throttled = post(client, "auth/otp/", {"token": totp_code_for(SCHEMA, member.user_id)})
    assert throttled.status_code == 429
    assert throttled.json()["wait"] >= 1 and throttled["Retry-After"] == str(throttled.json()["wait"])
    assert me(client).status_code == 401
    # once the delay has passed, the right code signs in
    with schema_context(SCHEMA):
        TOTPDevice.objects.filter(user_id=member.user_id).update(
            throttling_failure_timestamp=timezone.now() - timedelta(seconds=10)
        )
    assert post(client, "auth/otp/", {"token": totp_code_for(SCHEMA, member.user_id)}).status_code == 200


def test_a_backup_code_signs_in_once(admin: tuple[StaffMember, str]) -> None:
    member, password = admin
    with schema_context(SCHEMA):
        device = StaticDevice.objects.create(user_id=member.user_id, name="Backup-Codes", confirmed=True)
        StaticToken.objects.create(device=device, token="abcd2345")
    client = browser()
    login(client, "chefin@autohaus.example", password)
    assert post(client, "auth/otp/", {"token": "abcd 2345"}).status_code == 200

    again = browser()
    login(again, "chefin@autohaus.example", password)
    assert post(again, "auth/otp/", {"token": "abcd2345"}).status_code == 400


def test_the_code_step_needs_a_password_step_first(admin: tuple[StaffMember, str]) -> None:
    member, _ = admin
    response = post(browser(), "auth/otp/", {"token": totp_code_for(SCHEMA, member.user_id)})
    assert response.status_code == 400 and response.json()["error_code"] == "LOGIN003"


def test_the_password_step_expires(admin: tuple[StaffMember, str]) -> None:
    member, password = admin
    client = browser()
    login(client, "chefin@autohaus.example", password)
    with schema_context(SCHEMA):  # the session lives in the partner's schema
        session = client.session
        session["partner_login_pending"]["at"] -= settings.ADMIN_LOGIN_PENDING_SECONDS + 1
        session.save()
    response = post(client, "auth/otp/", {"token": totp_code_for(SCHEMA, member.user_id)})
    assert response.status_code == 400 and response.json()["error_code"] == "LOGIN003"


# --- First login: enrolment -------------------------------------------------------------------------


def test_first_login_enrols_an_authenticator_with_backup_codes(autohaus: Partner) -> None:
    member, password = staff_member(autohaus, "viewer", email="neu@autohaus.example")
    with schema_context(SCHEMA):
        TOTPDevice.objects.filter(user_id=member.user_id).delete()
    client = browser()

    step = login(client, "neu@autohaus.example", password).json()

    assert step["step"] == "enrol"
    enrolment = step["enrolment"]
    assert enrolment["qr_svg"].startswith("data:image/svg+xml;base64,")
    assert b"<svg" in base64.b64decode(enrolment["qr_svg"].split(",", 1)[1])
    uri = urlsplit(enrolment["otpauth_uri"])
    assert uri.scheme == "otpauth" and parse_qs(uri.query)["secret"] == [enrolment["secret"]]
    assert parse_qs(uri.query)["issuer"] == ["THG-Quote Autohaus Sonnenschein"]
    assert me(client).status_code == 401
    # the code step refuses a user without an authenticator
    assert post(client, "auth/otp/", {"token": "123456"}).status_code == 400

    wrong = post(client, "auth/enrol/", {"token": "000000"})
    assert wrong.status_code == 400 and wrong.json()["token"]["error_code"] == "OTP001"
    with schema_context(SCHEMA):
        TOTPDevice.objects.filter(user_id=member.user_id).update(throttling_failure_timestamp=None)
    secret = base64.b32decode(enrolment["secret"] + "=" * (-len(enrolment["secret"]) % 8))
    done = post(client, "auth/enrol/", {"token": f"{totp(secret):06d}"})

    assert done.status_code == 200
    body = done.json()
    assert len(body["backup_codes"]) == 10 and len(set(body["backup_codes"])) == 10
    assert body["me"]["role"] == "viewer"
    assert me(client).status_code == 200


def test_an_enrolled_user_cannot_enrol_again(admin: tuple[StaffMember, str]) -> None:
    member, password = admin
    client = browser()
    login(client, "chefin@autohaus.example", password)
    response = post(client, "auth/enrol/", {"token": "123456"})
    assert response.status_code == 400 and response.json()["error_code"] == "LOGIN003"


# --- Throttle -----------------------------------------------------------------------------------------


def test_wrong_passwords_slow_down_per_username_then_per_address(
    admin: tuple[StaffMember, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    member, password = admin
    # The throttle's clock stands still: the first delay (1 s) must not pass during the test.
    moment = timezone.now()
    monkeypatch.setattr("accounts.throttle.timezone", SimpleNamespace(now=lambda: moment))
    client = browser()
    for _ in range(settings.ADMIN_LOGIN_FREE_FAILURES):
        assert login(client, "chefin@autohaus.example", "falsch").status_code == 400

    throttled = login(client, "chefin@autohaus.example", password)

    assert throttled.status_code == 429
    body = throttled.json()
    assert body["error_code"] == "LOGIN002" and body["wait"] >= 1
    assert f"{body['wait']} Sekunden" in body["detail"]
    assert throttled["Retry-After"] == str(body["wait"])
    # the username waits from any address; the spelling does not matter
    elsewhere = login(browser(), "CHEFIN@autohaus.example", password, REMOTE_ADDR="10.9.8.7")
    assert elsewhere.status_code == 429
    # another member from this address waits too (the address counted the same failures)
    other, other_password = staff_member(Partner.objects.get(subdomain="autohaus"), "viewer")
    assert login(browser(), other.user.email, other_password).status_code == 429
    # and from another address that member goes ahead
    assert login(browser(), other.user.email, other_password, REMOTE_ADDR="10.1.1.1").status_code == 200


# --- Sessions: verified, active, own partner, no bearer, CSRF ------------------------------------


def test_logout_ends_the_session(admin: tuple[StaffMember, str]) -> None:
    member, password = admin
    client = partner_session(Client(enforce_csrf_checks=True), HOST, member, password)
    old_session = client.cookies[settings.SESSION_COOKIE_NAME].value

    no_csrf = Client(enforce_csrf_checks=True)
    no_csrf.cookies[settings.SESSION_COOKIE_NAME] = old_session
    assert post(no_csrf, "auth/logout/").status_code == 403
    assert post(client, "auth/logout/").status_code == 204

    assert me(client).status_code == 401
    replay = Client()
    replay.cookies[settings.SESSION_COOKIE_NAME] = old_session
    assert me(replay).status_code == 401


def test_a_deactivated_member_is_refused_at_once(admin: tuple[StaffMember, str], autohaus: Partner) -> None:
    member, password = admin
    viewer, viewer_password = staff_member(autohaus, "viewer")
    session = partner_session(Client(enforce_csrf_checks=True), HOST, viewer, viewer_password)
    assert me(session).status_code == 200
    chef = partner_session(Client(enforce_csrf_checks=True), HOST, member, password)

    response = chef.patch(
        API + f"staff/{viewer.pk}/", {"is_active": False}, content_type="application/json", HTTP_HOST=HOST
    )
    assert response.status_code == 200 and response.json()["is_active"] is False

    refused = me(session)
    assert refused.status_code == 401
    assert refused.json() == {"detail": "Bitte melden Sie sich an.", "error_code": "STAFF401"}
    assert login(browser(), viewer.user.email, viewer_password).status_code == 400


def test_a_session_of_partner_a_is_nobody_on_partner_b(admin: tuple[StaffMember, str]) -> None:
    member, password = admin
    session = partner_session(Client(enforce_csrf_checks=True), HOST, member, password)
    replay = Client()
    replay.cookies[settings.SESSION_COOKIE_NAME] = session.cookies[settings.SESSION_COOKIE_NAME].value

    response = me(replay, host=HOST_B)

    assert response.status_code == 401
    assert b"chefin" not in response.content
    # A's password means nothing on B either
    client_b = Client(enforce_csrf_checks=True)
    client_b.get(API + "auth/csrf/", HTTP_HOST=HOST_B)
    csrf_refresh(client_b)
    assert login(client_b, "chefin@autohaus.example", password, host=HOST_B).status_code == 400


def test_a_password_only_session_is_refused(admin: tuple[StaffMember, str]) -> None:
    """Even a session with the user logged in by Django but no verified device counts for nothing."""
    member, password = admin
    client = Client()
    with schema_context(SCHEMA):
        client.force_login(User.objects.get(pk=member.user_id))
    assert me(client).status_code == 401


def test_an_owner_token_is_refused(admin: tuple[StaffMember, str], autohaus: Partner) -> None:
    member, password = admin
    with schema_context(SCHEMA):
        owner = User.objects.create_user(username="o@example.de", email="o@example.de")
        access = tokens_issue(user=owner, partner=autohaus)["access"]
    assert me(Client(), HTTP_AUTHORIZATION=f"Bearer {access}").status_code == 401
    # and a bearer header spoils even a valid staff session
    session = partner_session(Client(enforce_csrf_checks=True), HOST, member, password)
    assert me(session, HTTP_AUTHORIZATION=f"Bearer {access}").status_code == 401
    assert me(session).status_code == 200


def test_an_admin_user_without_membership_is_not_staff_of_the_partner_area(autohaus: Partner) -> None:
    member, password = staff_member(autohaus, "viewer", email="nur-admin@autohaus.example")
    with schema_context(SCHEMA):
        StaffMember.objects.filter(pk=member.pk).delete()
    assert login(browser(), "nur-admin@autohaus.example", password).status_code == 400


def test_english_refusal(admin: tuple[StaffMember, str]) -> None:
    response = me(Client(), HTTP_ACCEPT_LANGUAGE="en-GB,en;q=0.9")
    assert response.status_code == 401 and response.json()["detail"] == "Please sign in."


def test_the_demo_back_office_signs_in_to_the_partner_area_with_demo_totp() -> None:
    """README: user `backoffice`, the demo password, and the code of `tools/demo_totp.py SUB`."""
    from console.management.commands.seed_demo import DEMO_STAFF_PASSWORD

    client = browser()
    assert login(client, "backoffice", DEMO_STAFF_PASSWORD).json()["step"] == "otp"
    code = demo_code("autohaus")

    done = post(client, "auth/otp/", {"token": code})

    assert done.status_code == 200, done.content
    assert done.json()["role"] == "partner_admin" and done.json()["name"] == "Demo Backoffice"
