"""Eligibility where the document is read (registrations.eligibility, issue 48): a vehicle the
reader is sure is not battery-electric, or of an exempt or other class, is refused at the upload
in the spec's error shape with nothing stored; a field it could not read goes to the review, never
to a refusal. The holder on the document against the billing name: a mismatch is flagged for the
review, the applications are made all the same."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context
from freezegun import freeze_time

# The API's schemas are built when the URL conf is first imported: before any frozen clock
# (pydantic cannot build a schema of freezegun's date class).
import config.urls_public  # noqa: F401
import config.urls_tenant  # noqa: F401
from accounts.models import User
from accounts.tokens import tokens_issue
from billing.models import Client as BillingClient
from quota.models import QuotaApplication
from registrations import eligibility
from registrations.models import BevRegistration
from registrations.reader import Reading
from registrations.services import registration_field_correct
from tenants.models import Partner
from tests.fixtures.zlb.generate import photo
from tests.fixtures.zlb.real import documents, render, values
from tests.registrations.test_api import upload

pytestmark = pytest.mark.django_db
HOST = "autohaus.localhost"


@pytest.fixture(autouse=True)
def _in_autohaus(tmp_path: Any, settings: Any) -> Any:
    settings.MEDIA_ROOT = tmp_path
    with schema_context("p_autohaus"):
        yield


def bearer(owner: User) -> dict[str, str]:
    tokens = tokens_issue(user=owner, partner=Partner.objects.get(subdomain="autohaus"))
    return {"Authorization": f"Bearer {tokens['access']}"}


def reading(**fields: Any) -> Reading:
    base: dict[str, Any] = {"is_zlb": True, "readable": True, "score": 9, "kind": "zb1"}
    return Reading(**{**base, **fields})


def scan(seed: int, *, energy: str = "0004", klass: str | None = None) -> tuple[bytes, dict[str, str]]:
    """A flatbed scan of a real-layout ZB I (tests/fixtures/zlb/real), its class printed as
    `klass` where given."""
    rng = random.Random(f"zb1-real-{seed}")
    document = values.document_values(rng, energy=energy)
    if klass is not None:
        document = dataclasses.replace(
            document, values={**document.values, "J": klass}, expected={**document.expected, "J": klass}
        )
    variant = documents.variant_for(seed, "liberation", rng)
    face = render.face(rng, document, variant)
    data, _ = documents.apply_condition(random.Random(f"eligibility-{seed}"), face, "scan")
    return data, document.expected


# ---------------------------------------------------------------------------- the rule


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"energy_code": "0001", "fuel": "Benzin", "vehicle_class": "M1"}, "IMGC008"),
        ({"energy_code": "0031", "fuel": "Hybr. Benzin/E", "vehicle_class": "M1"}, "IMGC008"),
        ({"energy_code": "0004", "fuel": "Elektro", "vehicle_class": "L1e"}, "IMGC009"),
        ({"energy_code": "0004", "vehicle_class": "L2e"}, "IMGC009"),
        ({"energy_code": "0004", "vehicle_class": "L6e"}, "IMGC009"),
        ({"energy_code": "0004", "vehicle_class": "M2"}, "IMGC010"),
        ({"energy_code": "0004", "vehicle_class": "O2"}, "IMGC010"),
    ],
)
def test_a_vehicle_read_surely_as_not_eligible_is_refused_with_its_code(
    fields: dict[str, Any], code: str
) -> None:
    refusal = eligibility.eligibility_refusal(reading(**fields))

    assert refusal is not None and refusal.code == code


@pytest.mark.parametrize(
    "fields",
    [
        {"energy_code": "0004", "vehicle_class": klass}
        for klass in ("M1", "M1G", "M3", "N1", "N2", "N3", "N3G", "L3e", "L4e", "L5e", "L7e")
    ]
    + [
        # not sure: code 10 or J left unread, or read but contradicted by P.3
        {"energy_code": None, "fuel": "Benzin", "vehicle_class": "M1", "unread": ("10",)},
        {"energy_code": "0001", "vehicle_class": "M1", "unread": ("10",)},
        {"energy_code": "0001", "fuel": "Elektro", "vehicle_class": "M1"},
        # a majority of disagreeing reads, below the review's confidence
        {"energy_code": "0001", "vehicle_class": "M1", "confidence": {"10": 0.67, "J": 1.0}},
        {"energy_code": "0004", "vehicle_class": "L1e", "confidence": {"10": 1.0, "J": 0.75}},
        {"energy_code": "0004", "vehicle_class": "L1e", "unread": ("J",)},
        {"energy_code": "0004", "vehicle_class": None, "unread": ("J",)},
    ],
)
def test_an_eligible_or_unsure_reading_is_not_refused(fields: dict[str, Any]) -> None:
    assert eligibility.eligibility_refusal(reading(**fields)) is None


def test_the_holder_is_compared_by_its_words_not_its_spelling() -> None:
    def matches(holder: str, first_names: str, **client: str) -> bool | None:
        registration = BevRegistration(holder_name=holder, holder_first_names=first_names)
        billing = BillingClient(
            first_name=client.get("first", ""),
            last_name=client.get("last", ""),
            name_of_business=client.get("business", ""),
            vehicle_owner_type="business" if client.get("business") else "private",
            source=client.get("source", ""),
        )
        return eligibility.holder_matches(registration, billing)

    assert matches("MÜLLER", "ANNA MARIA", first="Anna", last="Mueller") is True
    assert matches("SCHÄFER-LÜDENSCHEIDT", "JÜRGEN", first="Jürgen", last="Schäfer-Lüdenscheidt") is True
    assert matches("ELEKTRO BAUER GMBH & CO. KG", "", business="Elektro Bauer GmbH") is True
    assert matches("MÜLLER", "ANNA", first="Bernd", last="Müller") is False
    assert matches("ALD AUTOLEASING D GMBH", "", first="Anna", last="Müller") is False  # leasing
    assert matches("", "", first="Anna", last="Müller") is None  # the reader did not read C.1.1
    # the B2B flow's placeholder client has no billing name to compare (spec section 3)
    assert matches("MÜLLER", "ANNA", first="registration", last="b2b2c", source="b2b_fe") is None


# ---------------------------------------------------------------------------- over HTTP


def test_a_combustion_car_is_refused_at_the_upload_in_the_spec_shape_and_nothing_is_stored(
    client: Client, tmp_path: Path
) -> None:
    owner = User.objects.create(username="ben@example.de", email="ben@example.de")
    data, expected = scan(5, energy="0001")

    response = upload(client, bearer(owner), data)

    assert response.status_code == 400, response.content
    assert response.json() == {
        "zlb_scan": {"error_code": "IMGC008", "details": {"energy_code": "0001", "fuel": expected["P.3"]}}
    }
    assert not BevRegistration.objects.exists()
    assert not [path for path in tmp_path.rglob("*") if path.is_file()]


def test_skipping_the_classifier_does_not_skip_the_eligibility(client: Client) -> None:
    """The flow's third attempt skips the classifier (spec section 6) once it refused a scan in this
    login: the eligibility is no classifier and still refuses."""
    owner = User.objects.create(username="kai@example.de", email="kai@example.de")
    auth = bearer(owner)
    refused = upload(client, auth, photo(5))
    assert refused.json()["zlb_scan"]["error_code"] in ("IMGC002", "IMGC003")

    again = upload(client, auth, scan(5, energy="0001")[0], skip_classifier="True")

    assert again.status_code == 400 and again.json()["zlb_scan"]["error_code"] == "IMGC008"
    assert not BevRegistration.objects.exists()


def test_a_registration_exempt_moped_is_refused_with_its_reason(client: Client) -> None:
    owner = User.objects.create(username="lea@example.de", email="lea@example.de")
    data, _ = scan(6, klass="L1e")

    response = upload(client, bearer(owner), data)

    assert response.status_code == 400, response.content
    assert response.json()["zlb_scan"] == {"error_code": "IMGC009", "details": {"vehicle_class": "L1e"}}
    assert not BevRegistration.objects.exists()
    # the flow shows the bundle's German text for the code (spec section 8: the shared lookup)
    config = client.get("/api/configs/autohaus/", HTTP_HOST=HOST).json()
    assert "L1e, L2e und L6e" in config["theme"]["texts"]["de"]["error.IMGC009"]


def test_an_electric_car_of_an_eligible_class_is_taken(client: Client) -> None:
    owner = User.objects.create(username="ina@example.de", email="ina@example.de")
    data, expected = scan(7, klass="N2")

    response = upload(client, bearer(owner), data)

    assert response.status_code == 201, response.content
    registration = BevRegistration.objects.get()
    assert registration.is_electric is True and registration.vehicle_class == "N2"


@freeze_time("2026-06-15 10:00:00")
def test_a_holder_other_than_the_billing_name_is_flagged_for_review_not_refused(client: Client) -> None:
    owner = User.objects.create(username="anna@example.de", email="anna@example.de")
    registration = BevRegistration.objects.create(
        owner=owner, sequence=990001, registration_years=[2026], zlb_scan="p_autohaus/scans/x.jpg",
        resized_image="p_autohaus/scans/x-resized.jpg", original_content_type="image/jpeg", width=2000,
        height=1400, locked_at=timezone.now(), vin="WVWZZZE1ZMP000001", vehicle_class="M1",
        energy_code="0004", is_electric=True, holder_name="ALD AUTOLEASING D GMBH",
    )  # fmt: skip
    auth = bearer(owner)
    billing = {
        "gender": "woman", "first_name": "Anna", "last_name": "Müller", "account_iban": "DE89370400440532013000",
        "account_name": "Anna Mueller", "charge_card": "", "account_bic": "", "partner_variable": "",
        "street_name": "Hauptstraße", "street_number": "1", "postal_code": "10115", "city": "Berlin",
        "campaign": "", "free_text": "", "full_url_variable_string": "", "vehicle_owner_type": "private",
        "is_vat_mandatory": None, "name_of_business": "", "vat_number": "", "email_promotion_opt_in": False,
    }  # fmt: skip

    created = client.post(
        "/api/clients/", billing, content_type="application/json", HTTP_HOST=HOST, headers=auth
    )
    assert created.status_code == 201, created.content
    locked = client.post(f"/api/clients/{created.json()['id']}/lock/", HTTP_HOST=HOST, headers=auth)

    assert locked.status_code == 200, locked.content
    assert QuotaApplication.objects.filter(registration=registration, legislation_year=2026).exists()
    registration.refresh_from_db()
    assert registration.holder_mismatch is True and registration.needs_review is True
    # a correction of another field does not take the registration out of the review
    registration_field_correct(
        registration=registration, code="D.1", value="VOLKSWAGEN", actor=None, actor_name="QA"
    )
    registration.refresh_from_db()
    assert registration.needs_review is True


@freeze_time("2026-06-15 10:00:00")
def test_the_same_holder_is_not_flagged(client: Client) -> None:
    owner = User.objects.create(username="jonas@example.de", email="jonas@example.de")
    registration = BevRegistration.objects.create(
        owner=owner, sequence=990002, registration_years=[2026], zlb_scan="p_autohaus/scans/y.jpg",
        resized_image="p_autohaus/scans/y-resized.jpg", original_content_type="image/jpeg", width=2000,
        height=1400, locked_at=timezone.now(), vin="WVWZZZE1ZMP000002", vehicle_class="M1",
        energy_code="0004", is_electric=True, holder_name="SCHÄFER", holder_first_names="JONAS PETER",
    )  # fmt: skip
    auth = bearer(owner)
    billing = {
        "gender": "man", "first_name": "Jonas", "last_name": "Schaefer", "account_iban": "DE89370400440532013000",
        "account_name": "Jonas Schaefer", "charge_card": "", "account_bic": "", "partner_variable": "",
        "street_name": "Hauptstraße", "street_number": "1", "postal_code": "10115", "city": "Berlin",
        "campaign": "", "free_text": "", "full_url_variable_string": "", "vehicle_owner_type": "private",
        "is_vat_mandatory": None, "name_of_business": "", "vat_number": "", "email_promotion_opt_in": False,
    }  # fmt: skip

    created = client.post(
        "/api/clients/", billing, content_type="application/json", HTTP_HOST=HOST, headers=auth
    )
    assert created.status_code == 201, created.content
    locked = client.post(f"/api/clients/{created.json()['id']}/lock/", HTTP_HOST=HOST, headers=auth)

    assert locked.status_code == 200, locked.content
    registration.refresh_from_db()
    assert registration.holder_mismatch is False and registration.needs_review is False
