"""What field encryption costs (issue 19): the billing submit, the owner's portal list, and
10,000 applications read with all their billing data (an export) and with a list's columns
only, each encrypted and plain in the same run, alternating rounds. The list is measured twice:
decrypting the IBAN for its last four characters (before), and reading the stored masked
column (billing.masking), which lists use.

The plain baseline is the same code with common.crypto's encrypt/decrypt swapped for the
identity (and its own rows, written plain): same requests through the same middleware, the
same queries, only the Fernet work missing."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import connection
from django.test import Client as HttpClient
from django.utils import timezone
from django_tenants.utils import schema_context

import common.crypto as crypto
from accounts.models import User
from accounts.tokens import tokens_issue
from billing.models import Client
from quota.models import QuotaApplication
from registrations.models import BevRegistration
from tenants.models import Partner
from tests.bench.conftest import record
from tests.billing.test_clients import VALID

pytestmark = pytest.mark.django_db
HOST = "autohaus.localhost"
ROWS = 10_000
LIST_ROWS = 100
ROUNDS = 5

_ENCRYPT, _DECRYPT = crypto.field_encrypt, crypto.field_decrypt


@contextmanager
def plain(on: bool) -> Iterator[None]:
    if on:
        crypto.field_encrypt = lambda value: value  # type: ignore[assignment]
        crypto.field_decrypt = lambda token, where="": token  # type: ignore[assignment,misc]
    try:
        yield
    finally:
        crypto.field_encrypt, crypto.field_decrypt = _ENCRYPT, _DECRYPT  # type: ignore[assignment]


def _registration(owner: User, sequence: int) -> BevRegistration:
    return BevRegistration(
        owner=owner, sequence=sequence, registration_years=[2026], zlb_scan="x", resized_image="x",
        original_content_type="image/jpeg", width=2000, height=1400, vin=f"WVWZZZ1KZ{sequence:08d}",
        locked_at=timezone.now(),
    )  # fmt: skip


def _client(owner: User) -> Client:
    return Client(
        owner=owner, gender="woman", first_name="Erika", last_name="Mustermann", street_name="Hauptstraße",
        street_number="12a", postal_code="10115", city="Berlin", account_name="Erika Mustermann",
        account_iban="DE89370400440532013000", account_bic="COBADEFFXXX", vat_number="DE136695976",
        locked_at=timezone.now(),
    )  # fmt: skip


def _owner_with(email: str, count: int, first_sequence: int) -> User:
    """An owner with `count` applications, each with its own registration and billing data
    (written in the current mode: tokens or plain)."""
    owner = User.objects.create(username=email, email=email)
    for start in range(0, count, 1000):
        size = min(1000, count - start)
        registrations = BevRegistration.objects.bulk_create(
            [_registration(owner, first_sequence + start + i) for i in range(size)]
        )
        clients = Client.objects.bulk_create([_client(owner) for _ in range(size)])
        QuotaApplication.objects.bulk_create(
            [
                QuotaApplication(registration=r, client=c, legislation_year=2026, status="qa_entered")
                for r, c in zip(registrations, clients, strict=True)
            ]
        )
    return owner


def _median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 2)


def _compare(name: str, rounds: int, run: Callable[[bool], list[float]], extra: dict[str, Any]) -> None:
    times: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(rounds):
        for mode in (True, False):  # alternating: drift hits both sides alike
            with plain(mode):
                times[mode] += run(mode)
    encrypted, baseline = _median_ms(times[False]), _median_ms(times[True])
    record(
        name,
        {
            "encrypted_median_ms": encrypted,
            "plain_median_ms": baseline,
            "ratio": round(encrypted / baseline, 3),
            "samples_per_side": len(times[False]),
            **extra,
            "target": "ratio <= 1.2",
        },
    )


def test_field_encryption_overhead() -> None:
    partner = Partner.objects.get(subdomain="autohaus")
    with schema_context("p_autohaus"):
        owners: dict[bool, dict[str, User]] = {}
        for mode in (True, False):
            with plain(mode):
                tag = "plain" if mode else "enc"
                owners[mode] = {
                    "submit": User.objects.create(
                        username=f"submit-{tag}@example.de", email=f"submit-{tag}@example.de"
                    ),
                    "list": _owner_with(f"list-{tag}@example.de", LIST_ROWS, 700_000 if mode else 710_000),
                    "bulk": _owner_with(f"bulk-{tag}@example.de", ROWS, 800_000 if mode else 900_000),
                }
                BevRegistration.objects.bulk_create(
                    [_registration(owners[mode]["submit"], 600_000 + int(mode))]
                )
        # the raw rows of the encrypted side hold tokens, of the plain side the IBAN
        with connection.cursor() as cursor:
            stored = {}
            for mode in (True, False):
                cursor.execute(
                    "SELECT account_iban FROM billing_client WHERE owner_id = %s LIMIT 1",
                    [owners[mode]["bulk"].pk],
                )
                stored[mode] = cursor.fetchone()[0]
        assert stored[True] == "DE89370400440532013000" and stored[False].startswith("gAAAA")

        http = HttpClient()
        headers = {
            mode: {
                k: {"Authorization": "Bearer " + tokens_issue(user=u, partner=partner)["access"]}
                for k, u in owners[mode].items()
            }
            for mode in (True, False)
        }

        def submit(mode: bool) -> list[float]:
            samples = []
            for _ in range(20):
                start = time.perf_counter()
                response = http.post(
                    "/api/clients/",
                    VALID,
                    content_type="application/json",
                    HTTP_HOST=HOST,
                    headers=headers[mode]["submit"],
                )
                samples.append(time.perf_counter() - start)
                assert response.status_code == 201, response.content
            return samples

        def portal_list(mode: bool) -> list[float]:
            samples = []
            for _ in range(5):
                start = time.perf_counter()
                response = http.get(
                    f"/api/end_user_portal/quota_applications/?page_size={LIST_ROWS}",
                    HTTP_HOST=HOST,
                    headers=headers[mode]["list"],
                )
                samples.append(time.perf_counter() - start)
                assert response.status_code == 200 and len(response.json()["results"]) == LIST_ROWS
            return samples

        def partner_read(mode: bool) -> list[float]:
            start = time.perf_counter()
            rows = [
                (a.registration.sequence, a.client.last_name, a.client.street_name, a.client.account_iban)
                for a in QuotaApplication.objects.filter(client__owner=owners[mode]["bulk"])
                .select_related("registration", "client")
                .iterator(chunk_size=2000)
            ]
            elapsed = time.perf_counter() - start
            assert len(rows) == ROWS and rows[0][3] == "DE89370400440532013000"
            return [elapsed]

        def partner_list_decrypting(mode: bool) -> list[float]:
            # before the masked column: the list decrypted every IBAN to show four characters
            start = time.perf_counter()
            rows = [
                (a.registration.sequence, a.status, a.client.last_name, a.client.account_iban[-4:])
                for a in QuotaApplication.objects.filter(client__owner=owners[mode]["bulk"])
                .select_related("registration", "client")
                .only("status", "registration__sequence", "client__last_name", "client__account_iban")
                .iterator(chunk_size=2000)
            ]
            elapsed = time.perf_counter() - start
            assert len(rows) == ROWS and rows[0][3] == "3000"
            return [elapsed]

        def partner_list(mode: bool) -> list[float]:
            # what a list screen needs: names, status, the IBAN masked, from its stored masked
            # column (billing.masking): no encrypted column is loaded
            start = time.perf_counter()
            rows = [
                (a.registration.sequence, a.status, a.client.last_name, a.client.account_iban_masked)
                for a in QuotaApplication.objects.filter(client__owner=owners[mode]["bulk"])
                .select_related("registration", "client")
                .only("status", "registration__sequence", "client__last_name", "client__account_iban_masked")
                .iterator(chunk_size=2000)
            ]
            elapsed = time.perf_counter() - start
            assert len(rows) == ROWS and rows[0][3] == "DE89 **** **** **** **30 00"
            return [elapsed]

        _compare(
            "field_encryption_billing_submit",
            ROUNDS,
            submit,
            {"call": "POST /api/clients/ (update of the unlocked client)"},
        )
        _compare(
            "field_encryption_portal_list",
            ROUNDS,
            portal_list,
            {"call": f"GET portal list, {LIST_ROWS} cards"},
        )
        _compare(
            "field_encryption_partner_read_10000",
            ROUNDS,
            partner_read,
            {"call": f"{ROWS} applications with billing data, decrypted (street, IBAN)"},
        )
        _compare(
            "field_encryption_partner_list_10000_decrypting_iban",
            ROUNDS,
            partner_list_decrypting,
            {"call": f"{ROWS} applications, list columns, the IBAN decrypted for its last four (before)"},
        )
        _compare(
            "field_encryption_partner_list_10000",
            ROUNDS,
            partner_list,
            {"call": f"{ROWS} applications, list columns, the stored masked IBAN (nothing decrypted)"},
        )
