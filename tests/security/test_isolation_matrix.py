"""Issue 13, Proof: the cross-tenant isolation matrix.

Every authenticated API call x every way of aiming partner A's credentials at somewhere that is
not A's own host x {owner token of A, staff session of A}: never a 2xx, never a byte of A's data.
The admin pages likewise: A's staff session is nobody on any other host.

One test per cell (`pytest --collect-only -q tests/security/test_isolation_matrix.py`);
`test_the_matrix_is_complete` prints the count. A new authenticated operation without a row here
fails that test.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django_tenants.utils import schema_context

from accounts.models import User
from accounts.tokens import tokens_issue
from config.api import api
from console.management.commands.seed_demo import DEMO_STAFF_PASSWORD
from tenants.models import Partner
from tests.factories import ApplicationFactory
from tests.security.staff_login import admin_login

pytestmark = pytest.mark.django_db

HOST_A = "autohaus.localhost"
SCHEMA_A = "p_autohaus"
OWNER_EMAIL = "isolation-owner-a@example.de"
VIN = "WVWZZZ1KZISOLATE1"
LAST_NAME = "Isolationstest"


@dataclass(frozen=True)
class Target:
    """Where a request of A's is aimed: a host and the X-SUBDOMAIN it carries."""

    host: str
    subdomain: str | None = None

    def headers(self) -> dict[str, str]:
        return {"X-Subdomain": self.subdomain} if self.subdomain else {}


TARGETS = {
    "host-B": Target("stadtwerk.localhost"),
    "host-A+X-SUBDOMAIN-B": Target(HOST_A, "stadtwerk"),
    "public-host+X-SUBDOMAIN-B": Target("localhost", "stadtwerk"),
    "unknown-host": Target("attacker.example"),
    # Not asked for by the issue, and the worst case of the old rule: the header picked A.
    "unknown-host+X-SUBDOMAIN-A": Target("attacker.example", "autohaus"),
}


@dataclass
class DataA:
    owner: User
    registration_id: int
    client_id: int
    application_id: int
    access: str


Request = Callable[[Client, DataA, Target, dict[str, str]], Any]


def _json(method: str, path: str, body: Callable[[DataA], dict[str, Any]] | None = None) -> Request:
    def send(client: Client, data: DataA, target: Target, headers: dict[str, str]) -> Any:
        payload = body(data) if body else None
        call = getattr(client, method.lower())
        kwargs: dict[str, Any] = {"HTTP_HOST": target.host, "headers": {**target.headers(), **headers}}
        if payload is not None:
            kwargs.update(data=payload, content_type="application/json")
        return call(path.format(d=data), **kwargs)

    return send


def _form(path: str, body: dict[str, str]) -> Request:
    def send(client: Client, data: DataA, target: Target, headers: dict[str, str]) -> Any:
        return client.post(path, body, HTTP_HOST=target.host, headers={**target.headers(), **headers})

    return send


# Every operation of the API that takes a bearer token, with a request that A's owner may make
# on A's own host (checked: there it is not refused for want of authentication).
OPERATIONS: dict[tuple[str, str], Request] = {
    ("GET", "/api/auth/user/profile/end-user-portal/"): _json(
        "GET", "/api/auth/user/profile/end-user-portal/"
    ),
    ("POST", "/api/end_user_portal/create_account/"): _json(
        "POST",
        "/api/end_user_portal/create_account/",
        lambda d: {
            "password": "Neu-Geheim-2026!",
            "password_again": "Neu-Geheim-2026!",
            "subdomain": "autohaus",
        },
    ),
    ("POST", "/api/bev_registrations/"): _form("/api/bev_registrations/", {"legislation_years": "2026"}),
    ("POST", "/api/bev_registrations/{registration_id}/lock/"): _json(
        "POST", "/api/bev_registrations/{d.registration_id}/lock/"
    ),
    ("POST", "/api/fe_user_agent_data/"): _json(
        "POST",
        "/api/fe_user_agent_data/",
        lambda d: {"registration": d.registration_id, "device_type": "mobile"},
    ),
    ("POST", "/api/clients/"): _json(
        "POST", "/api/clients/", lambda d: {"registration": d.registration_id, "first_name": "Max"}
    ),
    ("GET", "/api/clients/previous/"): _json("GET", "/api/clients/previous/"),
    ("POST", "/api/clients/{client_id}/lock/"): _json("POST", "/api/clients/{d.client_id}/lock/"),
    ("POST", "/api/clients/validate_vat_number/"): _form(
        "/api/clients/validate_vat_number/", {"vat_number": "DE136695976"}
    ),
    ("GET", "/api/end_user_portal/quota_applications/"): _json(
        "GET", "/api/end_user_portal/quota_applications/"
    ),
    ("GET", "/api/end_user_portal/quota_applications/status_and_period_for_filters/"): _json(
        "GET", "/api/end_user_portal/quota_applications/status_and_period_for_filters/"
    ),
    ("PUT", "/api/end_user_portal/quota_applications/{application_id}/duplicate_for_new_period/"): _json(
        "PUT", "/api/end_user_portal/quota_applications/{d.application_id}/duplicate_for_new_period/"
    ),
    ("POST", "/api/end_user_portal/advertisement_count/"): _json(
        "POST", "/api/end_user_portal/advertisement_count/", lambda d: {"partner_advertisement": 1}
    ),
    ("POST", "/api/end_user_portal/data_export/"): _json("POST", "/api/end_user_portal/data_export/"),
    ("POST", "/api/end_user_portal/erasure/"): _json("POST", "/api/end_user_portal/erasure/"),
    ("POST", "/api/end_user_portal/erasure/confirm/"): _json(
        "POST", "/api/end_user_portal/erasure/confirm/", lambda d: {"code": "000000"}
    ),
    ("POST", "/api/end_user_portal/self_billing/"): _json(
        "POST", "/api/end_user_portal/self_billing/", lambda d: {"objected": False}
    ),
    ("PUT", "/api/end_user_portal/payout_account/"): _json(
        "PUT", "/api/end_user_portal/payout_account/", lambda d: {"account_iban": "DE89370400440532013000"}
    ),
}
# Reads that answer A's owner with A's data on A's host: the control proves the leak check sees it.
READS_WITH_DATA = {
    ("GET", "/api/auth/user/profile/end-user-portal/"),
    ("GET", "/api/end_user_portal/quota_applications/"),
}
ADMIN_PAGES = ["/admin/", "/admin/quota/quotaapplication/"]
CREDENTIALS = ["owner-token", "staff-session"]


def authenticated_operations() -> set[tuple[str, str]]:
    schema = api.get_openapi_schema(path_prefix="/api/")
    return {
        (method.upper(), path)
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        # The partner area's calls (staff sessions) have a matrix of their own, built from the
        # schema: tests/security/test_partner_isolation.py.
        if operation.get("security") and not path.startswith("/api/partner/")
    }


@pytest.fixture(scope="module")
def staff_session_a(django_db_setup: None, django_db_blocker: Any) -> Iterator[str]:
    """A's back-office session, logged in once over HTTP (the session row is committed, as a
    real login's is, and removed afterwards)."""
    with django_db_blocker.unblock():
        key = admin_login(
            Client(enforce_csrf_checks=True), host=HOST_A, username="backoffice", password=DEMO_STAFF_PASSWORD
        )
    yield key
    with django_db_blocker.unblock(), schema_context(SCHEMA_A):
        from django.contrib.sessions.models import Session

        Session.objects.filter(session_key=key).delete()


@pytest.fixture
def data_a(db: None) -> DataA:
    autohaus = Partner.objects.get(subdomain="autohaus")
    with schema_context(SCHEMA_A):
        application = ApplicationFactory.create(
            registration__owner__email=OWNER_EMAIL,
            registration__owner__username=OWNER_EMAIL,
            registration__vin=VIN,
            client__last_name=LAST_NAME,
        )
        owner = application.registration.owner
        access = tokens_issue(user=owner, partner=autohaus)["access"]
    with schema_context("p_stadtwerk"):
        # B has a user with A's owner's id: only the token's partner binding can tell them apart.
        User.objects.create_user(username="twin@example.de", email="twin@example.de", id=owner.pk)
    return DataA(owner, application.registration_id, application.client_id, application.pk, access)


def leaked(response: Any) -> list[str]:
    body = response.content.decode("utf-8", "replace")
    return [marker for marker in (OWNER_EMAIL, VIN, LAST_NAME, "Autohaus Sonnenschein") if marker in body]


def credential_client(credential: str, data: DataA, session: str) -> tuple[Client, dict[str, str]]:
    client = Client()
    if credential == "staff-session":
        client.cookies[settings.SESSION_COOKIE_NAME] = session
        return client, {}
    return client, {"Authorization": f"Bearer {data.access}"}


@pytest.mark.parametrize("credential", CREDENTIALS)
@pytest.mark.parametrize("target", list(TARGETS))
@pytest.mark.parametrize("operation", list(OPERATIONS), ids=lambda op: f"{op[0]} {op[1]}")
def test_no_cell_of_the_api_leaks(
    operation: tuple[str, str], target: str, credential: str, data_a: DataA, staff_session_a: str
) -> None:
    send = OPERATIONS[operation]
    client, headers = credential_client(credential, data_a, staff_session_a)

    response = send(client, data_a, TARGETS[target], headers)

    assert not 200 <= response.status_code < 300, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    assert not leaked(response)
    if credential == "owner-token":
        # Control: the same request on A's own host is past authentication.
        control = send(Client(), data_a, Target(HOST_A), headers)
        assert control.status_code != 401, (control.status_code, control.content[:300])
        if operation in READS_WITH_DATA:
            assert control.status_code == 200 and leaked(control)


@pytest.mark.parametrize("target", list(TARGETS))
@pytest.mark.parametrize("page", ADMIN_PAGES)
def test_a_staff_session_of_a_is_nobody_elsewhere(
    page: str, target: str, staff_session_a: str, db: None
) -> None:
    client = Client()
    client.cookies[settings.SESSION_COOKIE_NAME] = staff_session_a
    aimed = TARGETS[target]

    response = client.get(page, HTTP_HOST=aimed.host, headers=aimed.headers())
    # A fresh jar: B's answer deletes the cookie it does not know (a browser keeps cookies per
    # host; the test client keeps one jar for all).
    home = Client()
    home.cookies[settings.SESSION_COOKIE_NAME] = staff_session_a
    at_home = home.get(page, HTTP_HOST=HOST_A)

    assert response.status_code != 200
    if response.status_code == 302:
        assert response["Location"].startswith("/admin/login/")
    assert b"Autohaus Sonnenschein" not in response.content
    assert at_home.status_code == 200  # control: the session is A's staff session at home


def test_the_matrix_is_complete(capsys: pytest.CaptureFixture[str]) -> None:
    """A new operation behind a bearer token needs its row above."""
    assert set(OPERATIONS) == authenticated_operations()
    api_cells = len(OPERATIONS) * len(TARGETS) * len(CREDENTIALS)
    admin_cells = len(ADMIN_PAGES) * len(TARGETS)
    with capsys.disabled():
        print(
            f"\nisolation matrix: {len(OPERATIONS)} authenticated operations x {len(TARGETS)} hosts x "
            f"{len(CREDENTIALS)} credentials = {api_cells} API cells, + {admin_cells} admin cells "
            f"= {api_cells + admin_cells} cells"
        )
