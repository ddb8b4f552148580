"""Tokens bound to their partner; refresh rotation, revocation and the 30-day chain."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context
from freezegun import freeze_time

from accounts.models import LoginCode, User
from accounts.services import _digest, login_code_verify
from accounts.tokens import tokens_issue
from tenants.models import Partner

Post = Callable[..., Any]
PROFILE = "/api/auth/user/profile/end-user-portal/"


@pytest.fixture
def owner(db: None) -> User:
    user = User.objects.create_user(
        username="owner@example.de",
        email="owner@example.de",
        password="Geheim-123!",
        first_name="Olga",
        last_name="Owner",
    )
    return user


@pytest.fixture
def autohaus(db: None) -> Partner:
    return Partner.objects.get(subdomain="autohaus")


def profile(client: Client, access: str, host: str = "autohaus.localhost") -> Any:
    return client.get(PROFILE, HTTP_HOST=host, headers={"Authorization": f"Bearer {access}"})


def test_an_access_token_opens_its_partners_calls(client: Client, owner: User, autohaus: Partner) -> None:
    tokens = tokens_issue(user=owner, partner=autohaus)

    response = profile(client, tokens["access"])

    assert response.status_code == 200
    assert response.json() == [
        {
            "email": "owner@example.de",
            "first_name": "Olga",
            "last_name": "Owner",
            "username": "owner@example.de",
            "partner": {"subdomain": "autohaus", "name": "Autohaus Sonnenschein", "is_eon_partner": False},
        }
    ]


def test_a_token_of_partner_a_is_401_on_partner_b(client: Client, owner: User, autohaus: Partner) -> None:
    tokens = tokens_issue(user=owner, partner=autohaus)
    with schema_context("p_stadtwerk"):
        # Same user id in the other schema: the audience, not the id, must refuse it.
        twin = User.objects.create_user(
            username="twin@example.de", email="twin@example.de", password="x", id=owner.id
        )
        assert twin.id == owner.id

    elsewhere = profile(client, tokens["access"], host="stadtwerk.localhost")
    by_header = client.get(
        PROFILE,
        HTTP_HOST="localhost",
        headers={"Authorization": f"Bearer {tokens['access']}", "X-Subdomain": "stadtwerk"},
    )
    refresh = client.post(
        "/api/auth/user/token/refresh/",
        {"refresh": tokens["refresh"]},
        content_type="application/json",
        HTTP_HOST="stadtwerk.localhost",
    )

    assert elsewhere.status_code == 401
    assert by_header.status_code == 400  # the header never selects a partner on the public host
    assert refresh.status_code == 401


@pytest.mark.parametrize("header", ["Bearer nonsense", "Bearer ", "Token abc", ""])
def test_missing_or_broken_tokens_are_401(client: Client, header: str, db: None) -> None:
    response = client.get(
        PROFILE, HTTP_HOST="autohaus.localhost", headers={"Authorization": header} if header else {}
    )

    assert response.status_code == 401


def test_an_access_token_lasts_five_minutes(client: Client, owner: User, autohaus: Partner) -> None:
    tokens = tokens_issue(user=owner, partner=autohaus)

    with freeze_time(timezone.now() + timedelta(minutes=5, seconds=1)):
        assert profile(client, tokens["access"]).status_code == 401


def test_refresh_rotates_and_revokes_the_old_token(client: Client, owner: User, autohaus: Partner) -> None:
    tokens = tokens_issue(user=owner, partner=autohaus)

    def refresh(token: str) -> Any:
        return client.post(
            "/api/auth/user/token/refresh/",
            {"refresh": token},
            content_type="application/json",
            HTTP_HOST="autohaus.localhost",
        )

    first = refresh(tokens["refresh"])
    second = refresh(first.json()["refresh"])
    # A replay now also ends the login (reuse detection, see the test below), so it comes last.
    replay = refresh(tokens["refresh"])

    assert first.status_code == 200
    assert first.json()["refresh"] != tokens["refresh"]
    assert profile(client, first.json()["access"]).status_code == 200
    assert replay.status_code == 401
    assert replay.json()["error_code"] == "TOKEN001"
    assert second.status_code == 200


def test_a_replayed_refresh_token_ends_its_whole_login(
    client: Client, owner: User, autohaus: Partner
) -> None:
    def refresh(token: str) -> Any:
        return client.post(
            "/api/auth/user/token/refresh/",
            {"refresh": token},
            content_type="application/json",
            HTTP_HOST="autohaus.localhost",
        )

    # given a login rotated twice, and a second login of the same owner (another browser)
    stolen = tokens_issue(user=owner, partner=autohaus)["refresh"]
    other_browser = tokens_issue(user=owner, partner=autohaus)["refresh"]
    first = refresh(stolen).json()["refresh"]
    latest = refresh(first).json()["refresh"]

    # when the already rotated token is presented again (a thief, or the owner after a thief)
    replay = refresh(stolen)

    # then it is refused, and the newest token of that login is dead too
    assert replay.status_code == 401 and replay.json()["error_code"] == "TOKEN001"
    assert refresh(latest).status_code == 401
    # while the other login goes on
    assert refresh(other_browser).status_code == 200


def test_a_forged_or_foreign_refresh_token_revokes_nothing(
    client: Client, owner: User, autohaus: Partner
) -> None:
    tokens = tokens_issue(user=owner, partner=autohaus)
    rotated = client.post(
        "/api/auth/user/token/refresh/",
        {"refresh": tokens["refresh"]},
        content_type="application/json",
        HTTP_HOST="autohaus.localhost",
    ).json()
    header, payload, _ = tokens["refresh"].split(".")
    # the spent token with a broken signature, and the spent token on another partner
    for token, host in (
        (f"{header}.{payload}.AAAA", "autohaus.localhost"),
        (tokens["refresh"], "stadtwerk.localhost"),
    ):
        response = client.post(
            "/api/auth/user/token/refresh/",
            {"refresh": token},
            content_type="application/json",
            HTTP_HOST=host,
        )
        assert response.status_code == 401
    assert (
        client.post(
            "/api/auth/user/token/refresh/",
            {"refresh": rotated["refresh"]},
            content_type="application/json",
            HTTP_HOST="autohaus.localhost",
        ).status_code
        == 200
    )


def test_a_login_ends_30_days_after_it_began_however_often_it_is_refreshed(
    client: Client, owner: User, autohaus: Partner
) -> None:
    start = timezone.now()
    with freeze_time(start):
        tokens = tokens_issue(user=owner, partner=autohaus)
    for day in (10, 20, 29):
        with freeze_time(start + timedelta(days=day)):
            response = client.post(
                "/api/auth/user/token/refresh/",
                {"refresh": tokens["refresh"]},
                content_type="application/json",
                HTTP_HOST="autohaus.localhost",
            )
            assert response.status_code == 200, day
            tokens = response.json()

    with freeze_time(start + timedelta(days=30, seconds=1)):
        late = client.post(
            "/api/auth/user/token/refresh/",
            {"refresh": tokens["refresh"]},
            content_type="application/json",
            HTTP_HOST="autohaus.localhost",
        )

    assert late.status_code == 401


def test_logout_revokes_the_refresh_token(client: Client, owner: User, autohaus: Partner) -> None:
    tokens = tokens_issue(user=owner, partner=autohaus)

    out = client.post(
        "/api/auth/user/logout/",
        {"refresh": tokens["refresh"]},
        content_type="application/json",
        HTTP_HOST="autohaus.localhost",
    )
    after = client.post(
        "/api/auth/user/token/refresh/",
        {"refresh": tokens["refresh"]},
        content_type="application/json",
        HTTP_HOST="autohaus.localhost",
    )

    assert out.status_code == 200
    # the spec's shape: a message, no error code (not even a null one)
    assert out.json() == {"detail": "Abgemeldet."}
    assert after.status_code == 401


def test_a_verified_email_without_portal_account_gets_403(client: Client, autohaus: Partner) -> None:
    user = User.objects.create(username="nopass@example.de", email="nopass@example.de")
    user.set_unusable_password()
    user.save()

    response = profile(client, tokens_issue(user=user, partner=autohaus)["access"])

    assert response.status_code == 403


def test_the_same_code_sent_by_ten_concurrent_requests_succeeds_exactly_once(
    django_db_blocker: Any, django_db_setup: None
) -> None:
    # Committed rows and one connection per thread: the race is real.
    email = "race@example.de"
    with django_db_blocker.unblock(), schema_context("p_autohaus"):
        autohaus = Partner.objects.get(subdomain="autohaus")
        LoginCode.objects.create(
            email=email,
            code_hash=_digest(f"{email}:424242"),
            expires_at=timezone.now() + timedelta(minutes=10),
        )
    barrier = threading.Barrier(10)
    outcomes: list[str] = []

    def attempt() -> None:
        with django_db_blocker.unblock():
            try:
                with schema_context("p_autohaus"):
                    barrier.wait()
                    login_code_verify(partner=autohaus, email=email, code="424242")
                outcomes.append("ok")
            except Exception as exc:
                outcomes.append(type(exc).__name__)
            finally:
                connection.close()

    threads = [threading.Thread(target=attempt) for _ in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    try:
        assert outcomes.count("ok") == 1, outcomes
        assert outcomes.count("AccountError") == 9, outcomes
        with django_db_blocker.unblock(), schema_context("p_autohaus"):
            assert User.objects.filter(email=email).count() == 1
    finally:
        with django_db_blocker.unblock(), schema_context("p_autohaus"):
            LoginCode.objects.filter(email=email).delete()
            from ninja_jwt.token_blacklist.models import OutstandingToken

            OutstandingToken.objects.filter(user__email=email).delete()
            User.objects.filter(email=email).delete()
