"""Safe defaults: no published key signs a token the server accepts, production needs its
own SECRET_KEY, JWT keys rotate, and no response carries Django's debug pages."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import jwt
import pytest
from django.conf import settings
from django.test import Client
from django.test.utils import override_settings
from django.utils import timezone
from django_tenants.utils import schema_context

from accounts.models import User
from accounts.tokens import tokens_issue
from tenants.models import Partner

ROOT = Path(__file__).resolve().parents[2]
PROFILE = "/api/auth/user/profile/end-user-portal/"
PUBLISHED_KEY = "dev-only-insecure-key-change-me-in-production"


@pytest.fixture
def owner(db: None) -> Iterator[User]:
    # The test body reads and writes the schema its requests go to.
    with schema_context("p_autohaus"):
        yield User.objects.create_user(
            username="keys@example.de", email="keys@example.de", password="Pw-12345!"
        )


def forged_access(user: User, key: str) -> str:
    """An access token as ninja-jwt would make it, signed with the given key."""
    now = timezone.now()
    payload = {
        "token_type": "access",
        "exp": int((now + timedelta(minutes=5)).timestamp()),
        "iat": int(now.timestamp()),
        "jti": "f" * 32,
        "user_id": user.pk,
        "aud": "p_autohaus",
    }
    return jwt.encode(payload, key, algorithm="HS256")


def profile_status(client: Client, token: str) -> int:
    response = client.get(
        PROFILE, HTTP_HOST="autohaus.localhost", headers={"Authorization": f"Bearer {token}"}
    )
    return response.status_code


def settings_import(
    env: dict[str, str], code: str = "from django.conf import settings; settings.SECRET_KEY"
) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"SECRET_KEY", "DEBUG", "DEBUG_PAGES", "JWT_SIGNING_KEY"}
    }
    return subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        cwd=ROOT,
        env={
            **clean,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "PYTHONPATH": f"{ROOT}:{ROOT / 'platform'}",
            **env,
        },
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_token_signed_with_the_published_default_key_is_refused(client: Client, owner: User) -> None:
    assert (
        profile_status(client, forged_access(owner, settings.JWT_SIGNING_KEY)) == 200
    )  # the forgery is faithful

    assert profile_status(client, forged_access(owner, PUBLISHED_KEY)) == 401
    # nor does the session secret sign tokens: JWTs have a key of their own
    assert settings.JWT_SIGNING_KEY != settings.SECRET_KEY
    assert profile_status(client, forged_access(owner, settings.SECRET_KEY)) == 401


def test_a_token_of_the_previous_jwt_key_works_only_while_that_key_is_configured(
    client: Client, owner: User
) -> None:
    # given tokens signed before the key was rotated
    partner = Partner.objects.get(subdomain="autohaus")
    with override_settings(JWT_SIGNING_KEY="old-jwt-key-" + "x" * 40, JWT_PREVIOUS_SIGNING_KEYS=[]):
        old = tokens_issue(user=owner, partner=partner)
    new_key = "new-jwt-key-" + "y" * 40

    with override_settings(JWT_SIGNING_KEY=new_key, JWT_PREVIOUS_SIGNING_KEYS=["old-jwt-key-" + "x" * 40]):
        assert profile_status(client, old["access"]) == 200
        refreshed = client.post(
            "/api/auth/user/token/refresh/",
            {"refresh": old["refresh"]},
            content_type="application/json",
            HTTP_HOST="autohaus.localhost",
        )
        assert refreshed.status_code == 200, refreshed.content
        # the refreshed tokens are signed with the new key
        jwt.decode(refreshed.json()["access"], new_key, algorithms=["HS256"], audience="p_autohaus")

    with override_settings(JWT_SIGNING_KEY=new_key, JWT_PREVIOUS_SIGNING_KEYS=[]):
        assert profile_status(client, old["access"]) == 401
        assert profile_status(client, refreshed.json()["access"]) == 200


def test_production_settings_refuse_to_start_without_a_secret_key() -> None:
    refused = settings_import({"DEBUG": "0"})
    published = settings_import({"DEBUG": "0", "SECRET_KEY": PUBLISHED_KEY})
    given = settings_import({"DEBUG": "0", "SECRET_KEY": "a-real-random-value-" + "z" * 40})

    assert refused.returncode != 0 and "SECRET_KEY must be set" in refused.stderr
    assert published.returncode != 0 and "published" in published.stderr
    assert given.returncode == 0, given.stderr[-2000:]


def test_the_development_key_is_random_private_and_kept_across_restarts(tmp_path: Path) -> None:
    show = "from django.conf import settings; print(settings.SECRET_KEY, settings.DEBUG)"
    first = settings_import({"VAR_DIR": str(tmp_path)}, show)
    second = settings_import({"VAR_DIR": str(tmp_path)}, show)
    other = settings_import({"VAR_DIR": str(tmp_path / "other")}, show)

    assert first.returncode == 0, first.stderr[-2000:]
    key, debug = first.stdout.split()
    assert len(key) >= 50 and key != PUBLISHED_KEY
    assert second.stdout.split()[0] == key
    assert other.stdout.split()[0] != key
    assert stat.S_IMODE((tmp_path / "secret_key").stat().st_mode) == 0o600
    # the development defaults do not turn Django's debug pages on; DEBUG_PAGES=1 does
    assert debug == "False"
    pages = settings_import({"VAR_DIR": str(tmp_path), "DEBUG_PAGES": "1"}, show)
    assert pages.stdout.split()[1] == "True"
    assert (
        settings_import(
            {"VAR_DIR": str(tmp_path), "DEBUG": "0", "DEBUG_PAGES": "1", "SECRET_KEY": "k" * 50}, show
        ).stdout.split()[1]
        == "False"
    )
