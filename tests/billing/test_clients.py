"""Billing submit, lock and VAT check (spec/registration-flow.md sections 3, 5, 7, 8)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client as HttpClient
from django.utils import timezone
from django_tenants.utils import schema_context

from accounts.models import User
from accounts.tokens import tokens_issue
from billing.models import Client
from quota.models import QuotaApplication, StatusChange
from registrations.models import BevRegistration
from tenants.models import Partner
from tenants.services import partner_update

pytestmark = pytest.mark.django_db
HOST = "autohaus.localhost"
YEAR = timezone.localdate().year

VALID = {
    "gender": "woman",
    "first_name": "Erika",
    "last_name": "Mustermann",
    "account_iban": "DE89 3704 0044 0532 0130 00",
    "account_name": "Erika Mustermann",
    "charge_card": "",
    "account_bic": "",
    "partner_variable": "",
    "street_name": "Hauptstraße",
    "street_number": "12a",
    "postal_code": "10115",
    "city": "Berlin",
    "campaign": "herbst",
    "free_text": "",
    "full_url_variable_string": "campaign=herbst",
    "vehicle_owner_type": "private",
    "is_vat_mandatory": None,
    "name_of_business": "",
    "vat_number": "",
    "email_promotion_opt_in": True,
}


@pytest.fixture(autouse=True)
def _in_autohaus() -> Any:
    with schema_context("p_autohaus"):
        yield


@pytest.fixture
def owner() -> User:
    return User.objects.create(username="erika@example.de", email="erika@example.de")


@pytest.fixture
def auth(owner: User) -> dict[str, str]:
    tokens = tokens_issue(user=owner, partner=Partner.objects.get(subdomain="autohaus"))
    return {"Authorization": f"Bearer {tokens['access']}"}


def registration(
    owner: User, *, years: list[int] | None = None, locked: bool = True, sequence: int = 100001
) -> BevRegistration:
    return BevRegistration.objects.create(
        owner=owner, sequence=sequence, registration_years=years if years is not None else [YEAR],
        zlb_scan="p_autohaus/scans/x.jpg", resized_image="p_autohaus/scans/x-resized.jpg",
        original_content_type="image/jpeg", width=2000, height=1400,
        locked_at=timezone.now() if locked else None,
    )  # fmt: skip


def submit(client: HttpClient, auth: dict[str, str], payload: dict[str, Any]) -> Any:
    return client.post(
        "/api/clients/", payload, content_type="application/json", HTTP_HOST=HOST, headers=auth
    )


def test_a_valid_client_is_created_with_the_iban_compacted(
    client: HttpClient, auth: dict[str, str], owner: User
) -> None:
    response = submit(client, auth, VALID)

    assert response.status_code == 201
    saved = Client.objects.get()
    assert response.json() == {"id": saved.pk, "email": "erika@example.de"}
    assert saved.account_iban == "DE89370400440532013000"
    assert saved.owner == owner


@pytest.mark.parametrize(
    ("change", "field", "error"),
    [
        ({"first_name": ""}, "first_name", ["Eingabe erforderlich."]),
        ({"last_name": "  "}, "last_name", ["Eingabe erforderlich."]),
        ({"city": None}, "city", ["Eingabe erforderlich."]),
        ({"postal_code": ""}, "postal_code", ["Eingabe erforderlich."]),
        ({"street_number": ""}, "street_number", ["Eingabe erforderlich."]),
        ({"street_name": "Ab"}, "street_name", ["Straße name ungultig"]),
        ({"gender": None}, "gender", ["Eingabe erforderlich."]),
        ({"gender": "diverse"}, "gender", ["Diese Auswahl wird nicht angeboten."]),
        ({"account_name": "E"}, "account_name", ["Name von kontoinhaber ungultig"]),
        (
            {"account_name": "Jürgen Müller"},
            "account_name",
            ["Bitte geben Sie Ihren Namen ohne Sonderzeichen und ohne Umlaute ein."],
        ),
        ({"account_name": ""}, "account_name", ["Eingabe erforderlich."]),
        ({"account_iban": ""}, "account_iban", ["Eingabe erforderlich."]),
        ({"account_iban": "DE89370400440532013001"}, "account_iban", {"error_code": "IBAN001"}),
        ({"account_iban": "XX89370400440532013000"}, "account_iban", {"error_code": "IBAN001"}),
        ({"account_iban": "BR1500000000000010932840814P2"}, "account_iban", {"error_code": "IBAN002"}),
        ({"account_iban": "DE89🙂370400440532013000"}, "account_iban", ["Bitte keine Emojis verwenden"]),
        ({"city": "Berlin 🚗"}, "city", ["Bitte keine Emojis verwenden"]),
        ({"first_name": 42}, "first_name", ["Bitte geben Sie einen Text ein."]),
        ({"vehicle_owner_type": "company"}, "vehicle_owner_type", ["Diese Auswahl wird nicht angeboten."]),
    ],
)
def test_each_billing_rule_gives_its_message_and_saves_nothing(
    client: HttpClient, auth: dict[str, str], change: dict[str, Any], field: str, error: Any
) -> None:
    response = submit(client, auth, {**VALID, **change})

    assert response.status_code == 400
    assert response.json()[field] == error
    assert not Client.objects.exists()


@pytest.fixture
def business_partner() -> None:
    partner = Partner.objects.get(subdomain="autohaus")
    assert partner.config["enable_private_business_registration"] is True


@pytest.mark.parametrize(
    ("change", "field", "error"),
    [
        ({"is_vat_mandatory": None}, "is_vat_mandatory", ["Auswahl treffen."]),
        ({"name_of_business": ""}, "name_of_business", ["Eingabe erforderlich."]),
        ({"vat_number": ""}, "vat_number", ["Eingabe erforderlich."]),
        (
            {"vat_number": "DE12345678"},
            "vat_number",
            ["Bitte überprüfen Sie das Format: Ust.-ID (DE…) mit 9 Ziffern, oder ihre Steuernummer."],
        ),
        (
            {"vat_number": "123456789"},
            "vat_number",
            ["Bitte überprüfen Sie das Format: Ust.-ID (DE…) mit 9 Ziffern, oder ihre Steuernummer."],
        ),
        (
            {"vat_number": "1234156789012"},
            "vat_number",
            ["Bitte überprüfen Sie das Format: Ust.-ID (DE…) mit 9 Ziffern, oder ihre Steuernummer."],
        ),
        ({"vat_number": "DE136695977"}, "vat_number", {"error_code": "VAT001"}),
    ],
)
def test_business_owner_rules(
    client: HttpClient,
    auth: dict[str, str],
    business_partner: None,
    change: dict[str, Any],
    field: str,
    error: Any,
) -> None:
    business = {
        **VALID,
        "vehicle_owner_type": "business",
        "is_vat_mandatory": True,
        "name_of_business": "Muster GmbH",
        "vat_number": "DE136695976",
    }

    response = submit(client, auth, {**business, **change})

    assert response.status_code == 400, response.json()
    assert response.json()[field] == error


@pytest.mark.parametrize("number", ["DE136695976", "de 136695976", "DE-136695976", "1234012345678"])
def test_business_owner_with_a_valid_vat_id_or_tax_number(
    client: HttpClient, auth: dict[str, str], number: str
) -> None:
    response = submit(
        client,
        auth,
        {
            **VALID,
            "vehicle_owner_type": "business",
            "is_vat_mandatory": True,
            "name_of_business": "Muster GmbH",
            "vat_number": number,
        },
    )

    assert response.status_code == 201, response.json()


def test_payment_options_follow_the_configuration(
    client: HttpClient, auth: dict[str, str], django_capture_on_commit_callbacks: Any
) -> None:
    partner = Partner.objects.get(subdomain="autohaus")
    config = partner.config

    def with_option(option: str) -> None:
        with django_capture_on_commit_callbacks(execute=True):
            partner_update(
                partner=partner,
                config={
                    **config,
                    "pages": {
                        **config["pages"],
                        "payment": {**config["pages"]["payment"], "payment_option": option},
                    },
                },
            )

    with_option("CHARGECARD")
    card_missing = submit(client, auth, {**VALID, "account_iban": "", "account_name": ""})
    with_option("BANKORCHARGECARD")
    card_only = submit(
        client, auth, {**VALID, "account_iban": "", "account_name": "", "charge_card": "LK-123"}
    )
    with_option("NONE")
    no_payment = submit(client, auth, {**VALID, "account_iban": "", "account_name": ""})

    assert card_missing.status_code == 400
    assert card_missing.json() == {"charge_card": ["Eingabe erforderlich."]}
    assert card_only.status_code == 201
    assert no_payment.status_code == 201
    assert Client.objects.get().account_iban == ""


def test_lock_creates_one_quota_application_per_year_once(
    client: HttpClient, auth: dict[str, str], owner: User
) -> None:
    registration(owner, years=[YEAR, YEAR + 1])
    client_id = submit(client, auth, VALID).json()["id"]

    first = client.post(f"/api/clients/{client_id}/lock/", HTTP_HOST=HOST, headers=auth)
    second = client.post(f"/api/clients/{client_id}/lock/", HTTP_HOST=HOST, headers=auth)
    resubmit = submit(client, auth, VALID)

    assert first.status_code == 200 and second.status_code == 200
    applications = QuotaApplication.objects.order_by("legislation_year")
    assert [(a.legislation_year, a.status) for a in applications] == [
        (YEAR, "qa_created"),
        (YEAR + 1, "qa_created"),
    ]
    assert StatusChange.objects.filter(status="qa_created").count() == 2
    assert Client.objects.get(pk=client_id).locked_at is not None
    # The portal greets the owner with the billing name.
    owner.refresh_from_db()
    assert (owner.first_name, owner.last_name) == ("Erika", "Mustermann")
    # A later submit starts a new client; the locked one is not changed.
    assert resubmit.status_code == 201 and resubmit.json()["id"] != client_id


def test_a_second_submit_before_lock_updates_the_same_client(
    client: HttpClient, auth: dict[str, str]
) -> None:
    first = submit(client, auth, VALID)
    second = submit(client, auth, {**VALID, "city": "Hamburg"})

    assert first.json()["id"] == second.json()["id"]
    assert Client.objects.get().city == "Hamburg"


def test_lock_without_a_completed_registration_is_refused(
    client: HttpClient, auth: dict[str, str], owner: User
) -> None:
    registration(owner, locked=False)
    client_id = submit(client, auth, VALID).json()["id"]

    response = client.post(f"/api/clients/{client_id}/lock/", HTTP_HOST=HOST, headers=auth)

    assert response.status_code == 400
    assert response.json()["error_code"] == "CLIENT002"
    assert not QuotaApplication.objects.exists()


def test_another_users_client_cannot_be_locked(client: HttpClient, auth: dict[str, str]) -> None:
    stranger = User.objects.create(username="x@example.de", email="x@example.de")
    foreign = Client.objects.create(
        owner=stranger,
        first_name="X",
        last_name="Y",
        street_name="Weg",
        street_number="1",
        postal_code="1",
        city="Z",
    )

    response = client.post(f"/api/clients/{foreign.pk}/lock/", HTTP_HOST=HOST, headers=auth)

    assert response.status_code == 404


def test_the_b2b_placeholder_client(client: HttpClient, auth: dict[str, str], owner: User) -> None:
    registration(owner, years=[])
    response = submit(
        client,
        auth,
        {
            "first_name": "registration",
            "last_name": "b2b2c",
            "free_text": "",
            "charge_card": "",
            "campaign": "",
            "full_url_variable_string": "",
            "source": "b2b_fe",
        },
    )
    lock = client.post(f"/api/clients/{response.json()['id']}/lock/", HTTP_HOST=HOST, headers=auth)

    assert response.status_code == 201
    assert lock.status_code == 200
    assert list(QuotaApplication.objects.values_list("legislation_year", flat=True)) == [YEAR]


def test_billing_calls_need_a_token(client: HttpClient) -> None:
    assert (
        client.post("/api/clients/", VALID, content_type="application/json", HTTP_HOST=HOST).status_code
        == 401
    )


@pytest.mark.parametrize(
    ("number", "status", "body"),
    [
        ("DE136695976", 200, {"status": "valid"}),
        ("DE136695977", 400, {"error_code": "VAT001"}),
        ("", 400, {"error_code": "VAT001"}),
        ("hallo", 400, {"error_code": "VAT001"}),
    ],
)
def test_validate_vat_number(
    client: HttpClient, auth: dict[str, str], number: str, status: int, body: dict[str, str]
) -> None:
    response = client.post(
        "/api/clients/validate_vat_number/", {"vat_number": number}, HTTP_HOST=HOST, headers=auth
    )

    assert response.status_code == status
    assert response.json() == body
