"""Issue 16: the partner area's isolation matrix, built from the OpenAPI schema so that every
staff call (of this app and of the partner-area routers added later) is in it without a row.

For every operation under /api/partner/ that needs a staff session:
- a staff session of partner A replayed on every host that is not A's: never a 2xx, never A's data;
- an owner's bearer token of A on A's own host: 401, alone and next to a valid staff session;
- control: the same session at home is past authentication (neither 401 nor 403).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django_tenants.utils import schema_context

from accounts.models import User
from accounts.tokens import tokens_issue
from config.api import api
from staff.models import StaffMember
from tenants.models import Partner
from tests.partner_staff import partner_session, staff_member

pytestmark = pytest.mark.django_db

HOST_A = "autohaus.localhost"
SCHEMA_A = "p_autohaus"
ADMIN_EMAIL = "isolation-admin@autohaus.example"
ELSEWHERE = {
    "host-B": (HOST_A.replace("autohaus", "stadtwerk"), {}),
    "host-A+X-SUBDOMAIN-B": (HOST_A, {"X-Subdomain": "stadtwerk"}),
    "public-host": ("localhost", {}),
    "public-host+X-SUBDOMAIN-A": ("localhost", {"X-Subdomain": "autohaus"}),
    "unknown-host": ("attacker.example", {}),
}


def staff_operations() -> list[tuple[str, str]]:
    schema = api.get_openapi_schema(path_prefix="/api/")
    return sorted(
        (method.upper(), path)
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if path.startswith("/api/partner/") and operation.get("security")
    )


OPERATIONS = staff_operations()


def concrete(path: str) -> str:
    """Path parameters filled in: an id that may or may not exist is enough (auth runs first)."""
    return re.sub(r"\{[^}]+\}", "1", path)


@pytest.fixture(scope="module")
def session_a(django_db_setup: None, django_db_blocker: Any) -> Iterator[tuple[str, str]]:
    """A partner admin of A, signed in over HTTP once (committed, removed afterwards)."""
    with django_db_blocker.unblock():
        partner = Partner.objects.get(subdomain="autohaus")
        member, password = staff_member(partner, "partner_admin", email=ADMIN_EMAIL)
        client = partner_session(Client(enforce_csrf_checks=True), HOST_A, member, password)
        with schema_context(SCHEMA_A):
            owner = User.objects.create_user(
                username="isolation-owner@example.de", email="isolation-owner@example.de"
            )
            access = tokens_issue(user=owner, partner=partner)["access"]
    yield client.cookies[settings.SESSION_COOKIE_NAME].value, access
    with django_db_blocker.unblock(), schema_context(SCHEMA_A):
        StaffMember.objects.filter(user__email=ADMIN_EMAIL).delete()
        User.objects.filter(email__in=[ADMIN_EMAIL, "isolation-owner@example.de"]).delete()


def send(client: Client, method: str, path: str, host: str, headers: dict[str, str]) -> Any:
    kwargs: dict[str, Any] = {"HTTP_HOST": host, "headers": headers}
    if method in {"POST", "PUT", "PATCH", "DELETE"}:
        kwargs.update(data={}, content_type="application/json")
    return getattr(client, method.lower())(concrete(path), **kwargs)


def with_session(session: str, csrf: bool = False) -> tuple[Client, dict[str, str]]:
    client = Client(enforce_csrf_checks=True)
    client.cookies[settings.SESSION_COOKIE_NAME] = session
    headers: dict[str, str] = {}
    if csrf:
        client.cookies["csrftoken"] = "a" * 32
        headers["X-CSRFToken"] = "a" * 32
    return client, headers


@pytest.mark.parametrize("target", list(ELSEWHERE))
@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda op: f"{op[0]} {op[1]}")
def test_a_staff_session_of_a_is_nobody_elsewhere(
    operation: tuple[str, str], target: str, session_a: tuple[str, str]
) -> None:
    method, path = operation
    host, extra = ELSEWHERE[target]
    client, headers = with_session(session_a[0], csrf=True)

    response = send(client, method, path, host, {**headers, **extra})

    assert response.status_code in (400, 401, 404), (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json")
    assert ADMIN_EMAIL.encode() not in response.content
    assert b"Autohaus Sonnenschein" not in response.content


@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda op: f"{op[0]} {op[1]}")
def test_an_owner_token_never_reaches_a_staff_call(
    operation: tuple[str, str], session_a: tuple[str, str]
) -> None:
    method, path = operation
    session, access = session_a
    bearer = {"Authorization": f"Bearer {access}"}

    alone = send(Client(), method, path, HOST_A, bearer)
    client, headers = with_session(session, csrf=True)
    beside_a_session = send(client, method, path, HOST_A, {**headers, **bearer})
    control_client, control_headers = with_session(session, csrf=True)
    control = send(control_client, method, path, HOST_A, control_headers)

    assert alone.status_code == 401 and alone.json()["detail"] == "Bitte melden Sie sich an."
    assert beside_a_session.status_code == 401
    assert control.status_code not in (401, 403), (control.status_code, control.content[:300])


def test_the_matrix_covers_the_partner_area(capsys: pytest.CaptureFixture[str]) -> None:
    assert ("GET", "/api/partner/me/") in OPERATIONS
    assert ("PATCH", "/api/partner/staff/{member_id}/") in OPERATIONS
    with capsys.disabled():
        print(
            f"\npartner isolation matrix: {len(OPERATIONS)} staff operations x {len(ELSEWHERE)} hosts "
            f"+ {len(OPERATIONS)} x 3 bearer/control cells"
        )
