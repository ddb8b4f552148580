"""Every accounts error carries its code of accounts.errors beside the message, as gunicorn
serves it: `{"detail": ..., "error_code": ...}`, the error shape of the specs (the portal reads
`error_code`, e.g. EMAIL001), never a null code."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django_tenants.utils import schema_context

from accounts.errors import MESSAGES, MESSAGES_EN, NO_PORTAL_ACCOUNT
from accounts.models import User
from accounts.tokens import tokens_issue
from config.api import api
from tenants.models import Partner
from tests.api.live import request

PROFILE = "/api/auth/user/profile/end-user-portal/"
REFRESH = "/api/auth/user/token/refresh/"
VERIFY = "/api/auth/registration/otp/verify/"


@pytest.fixture(scope="module")
def no_account_token(django_db_setup: None, django_db_blocker: Any) -> str:
    """An owner who verified an e-mail in the flow but has no portal account (no password),
    committed so the server process sees it."""
    email = "no-portal-account@example.org"
    with django_db_blocker.unblock():
        partner = Partner.objects.get(subdomain="autohaus")
        with schema_context(partner.schema_name):
            user, _ = User.objects.get_or_create(username=email, defaults={"email": email})
            user.set_unusable_password()
            user.save(update_fields=["password"])
            return tokens_issue(user=user, partner=partner)["access"]


def test_a_verified_email_without_portal_account_is_portal001(
    live_server_port: int, no_account_token: str
) -> None:
    # when the portal asks for the profile, in German and in English
    german = request(live_server_port, "GET", PROFILE, token=no_account_token)
    english = request(live_server_port, "GET", PROFILE, token=no_account_token, extra="Accept-Language: en")

    # then it is a 403 (the portal shows signup) with the message and its code
    assert german.status == 403, german.body
    assert german.json() == {"detail": MESSAGES[NO_PORTAL_ACCOUNT], "error_code": "PORTAL001"}
    assert english.status == 403
    assert english.json() == {"detail": MESSAGES_EN[NO_PORTAL_ACCOUNT], "error_code": "PORTAL001"}


def test_a_wrong_refresh_token_is_token001(live_server_port: int) -> None:
    body = json.dumps({"refresh": "not-a-token"}).encode()

    answer = request(live_server_port, "POST", REFRESH, body, content_type="application/json")

    assert answer.status == 401, answer.body
    assert answer.json()["error_code"] == "TOKEN001" and answer.json()["detail"]


def test_a_wrong_code_is_otp001(live_server_port: int) -> None:
    body = json.dumps({"email": "nobody-asked@example.org", "otp_code": "123456"}).encode()

    answer = request(live_server_port, "POST", VERIFY, body, content_type="application/json")

    assert answer.status == 400, answer.body
    assert answer.json() == {"detail": MESSAGES["OTP001"], "error_code": "OTP001"}


def test_the_api_document_declares_the_code_required() -> None:
    error = api.get_openapi_schema()["components"]["schemas"]["ErrorOut"]

    assert sorted(error["required"]) == ["detail", "error_code"]
    assert error["properties"]["error_code"]["type"] == "string"
