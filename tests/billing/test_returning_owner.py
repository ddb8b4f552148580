"""A returning owner's billing screen starts from their last billing data; the IBAN stays on
the server (shown masked, kept unless a new one is typed)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client as HttpClient
from django_tenants.utils import schema_context

from accounts.models import User
from billing.models import Client
from tests.billing.test_clients import HOST, VALID, auth, owner, registration, submit  # noqa: F401

pytestmark = pytest.mark.django_db
PREVIOUS = "/api/clients/previous/"


@pytest.fixture(autouse=True)
def _in_autohaus() -> Any:
    with schema_context("p_autohaus"):
        yield


def billed_once(client: HttpClient, auth: dict[str, str], owner: User) -> Client:  # noqa: F811
    registration(owner, sequence=100001)
    created = submit(client, auth, VALID).json()
    assert client.post(f"/api/clients/{created['id']}/lock/", HTTP_HOST=HOST, headers=auth).status_code == 200
    return Client.objects.get(pk=created["id"])


def test_a_first_time_owner_has_nothing_to_prefill(client: HttpClient, auth: dict[str, str]) -> None:  # noqa: F811
    response = client.get(PREVIOUS, HTTP_HOST=HOST, headers=auth)

    assert response.status_code == 404
    assert response.json() == {"detail": "Not found."}


def test_the_last_billing_data_comes_back_with_the_iban_masked(
    client: HttpClient,
    auth: dict[str, str],  # noqa: F811
    owner: User,  # noqa: F811
) -> None:
    billed_once(client, auth, owner)

    response = client.get(PREVIOUS, HTTP_HOST=HOST, headers=auth)

    assert response.status_code == 200
    body = response.json()
    assert body["first_name"] == "Erika" and body["city"] == "Berlin"
    assert body["account_name"] == "Erika Mustermann"
    assert body["has_stored_iban"] is True
    assert "37040044" not in response.content.decode()
    assert body["account_iban_masked"] == "DE89 **** **** **** **30 00"


def test_a_second_vehicle_keeps_the_stored_iban_when_none_is_typed(
    client: HttpClient,
    auth: dict[str, str],  # noqa: F811
    owner: User,  # noqa: F811
) -> None:
    billed_once(client, auth, owner)
    registration(owner, sequence=100002)

    second = submit(client, auth, {**VALID, "account_iban": "", "keep_stored_iban": True})

    assert second.status_code == 201
    assert Client.objects.get(pk=second.json()["id"]).account_iban == "DE89370400440532013000"


def test_a_typed_iban_replaces_the_stored_one(client: HttpClient, auth: dict[str, str], owner: User) -> None:  # noqa: F811
    billed_once(client, auth, owner)
    registration(owner, sequence=100002)

    second = submit(
        client, auth, {**VALID, "account_iban": "DE02 1203 0000 0000 2020 51", "keep_stored_iban": True}
    )

    assert Client.objects.get(pk=second.json()["id"]).account_iban == "DE02120300000000202051"


def test_without_stored_billing_data_keeping_the_iban_is_still_required(
    client: HttpClient,
    auth: dict[str, str],  # noqa: F811
    owner: User,  # noqa: F811
) -> None:
    registration(owner)

    response = submit(client, auth, {**VALID, "account_iban": "", "keep_stored_iban": True})

    assert response.status_code == 400
    assert "account_iban" in response.json()


def test_another_owners_billing_data_is_never_prefilled(
    client: HttpClient,
    auth: dict[str, str],  # noqa: F811
    owner: User,  # noqa: F811
) -> None:
    billed_once(client, auth, owner)
    stranger = User.objects.create(username="max@example.de", email="max@example.de")
    from accounts.tokens import tokens_issue
    from tenants.models import Partner

    tokens = tokens_issue(user=stranger, partner=Partner.objects.get(subdomain="autohaus"))
    headers = {"Authorization": f"Bearer {tokens['access']}"}
    registration(stranger, sequence=100003)

    assert client.get(PREVIOUS, HTTP_HOST=HOST, headers=headers).status_code == 404
    kept = submit(client, headers, {**VALID, "account_iban": "", "keep_stored_iban": True})
    assert kept.status_code == 400
