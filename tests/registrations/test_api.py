"""The scan upload, lock, device data and system constraints calls (spec section 7)."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.files.storage import default_storage
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context
from PIL import Image

from accounts.models import User
from accounts.tokens import tokens_issue
from registrations.models import BevRegistration, DeviceInfo
from tenants.models import Partner
from tests.fixtures.zlb.generate import letter, zlb_document

pytestmark = pytest.mark.django_db
HOST = "autohaus.localhost"
YEAR = timezone.localdate().year


@pytest.fixture(autouse=True)
def _in_autohaus(tmp_path: Any, settings: Any) -> Any:
    settings.MEDIA_ROOT = tmp_path
    with schema_context("p_autohaus"):
        yield


@pytest.fixture
def owner() -> User:
    return User.objects.create(username="ina@example.de", email="ina@example.de")


@pytest.fixture
def auth(owner: User) -> dict[str, str]:
    return {
        "Authorization": "Bearer "
        + tokens_issue(user=owner, partner=Partner.objects.get(subdomain="autohaus"))["access"]
    }


def upload(
    client: Client, auth: dict[str, str], data: bytes, *, name: str = "scan.jpg", **fields: str
) -> Any:
    form = {
        "partner": "autohaus",
        "source": "",
        "registration_years": str(YEAR),
        "skip_classifier": "False",
        **fields,
    }
    form["zlb_scan"] = io.BytesIO(data)  # type: ignore[assignment]
    form["zlb_scan"].name = name  # type: ignore[attr-defined]
    return client.post("/api/bev_registrations/", form, HTTP_HOST=HOST, headers=auth)


def test_system_constraints(client: Client) -> None:
    response = client.get("/api/system_constraints/", HTTP_HOST=HOST)

    assert response.json() == {
        "bev_registration": {"zlb_scan_constraints": {"min_size": 500, "max_pixels": 25_000_000}}
    }


def test_a_document_is_registered_with_what_was_read(
    client: Client, auth: dict[str, str], owner: User
) -> None:
    data, expected = zlb_document(7)

    response = upload(client, auth, data)

    assert response.status_code == 201, response.json()
    registration = BevRegistration.objects.get()
    assert response.json() == [
        {"id": registration.pk, "sequence": registration.sequence, "uuid": str(registration.uuid)}
    ]
    assert registration.owner == owner
    assert registration.registration_years == [YEAR]
    assert registration.energy_code == expected["10"] and registration.is_electric is True
    assert registration.zlb_scan.startswith("p_autohaus/scans/") and default_storage.exists(
        registration.zlb_scan
    )
    assert default_storage.exists(registration.resized_image)


def test_sequences_count_per_partner(client: Client, auth: dict[str, str], owner: User) -> None:
    first = upload(client, auth, zlb_document(8)[0]).json()[0]["sequence"]
    second = upload(client, auth, zlb_document(9)[0]).json()[0]["sequence"]

    assert second == first + 1
    with schema_context("p_stadtwerk"):
        other = User.objects.create(username="o@example.de", email="o@example.de")
        other_auth = {
            "Authorization": "Bearer "
            + tokens_issue(user=other, partner=Partner.objects.get(subdomain="stadtwerk"))["access"]
        }
    form = {
        "partner": "stadtwerk",
        "registration_years": str(YEAR),
        "zlb_scan": io.BytesIO(zlb_document(10)[0]),
    }
    elsewhere = client.post(
        "/api/bev_registrations/", form, HTTP_HOST="stadtwerk.localhost", headers=other_auth
    )
    assert elsewhere.status_code == 201, elsewhere.json()
    assert elsewhere.json()[0]["sequence"] == 100001


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (letter(1), "IMGC002"),
        (b"this is text pretending to be a jpg", "IMGC004"),
    ],
)
def test_scan_errors_in_the_spec_shape_and_nothing_stored(
    client: Client, auth: dict[str, str], data: bytes, code: str
) -> None:
    response = upload(client, auth, data)

    assert response.status_code == 400
    assert response.json()["zlb_scan"]["error_code"] == code
    assert not BevRegistration.objects.exists()


def test_too_small_answers_imgc001_with_the_given_size(client: Client, auth: dict[str, str]) -> None:
    buffer = io.BytesIO()
    Image.new("RGB", (320, 240), "white").save(buffer, "JPEG")

    response = upload(client, auth, buffer.getvalue())

    assert response.status_code == 400
    assert response.json() == {
        "zlb_scan": {
            "error_code": "IMGC001",
            "details": {"given_width": 320, "given_height": 240, "min_size": 500, "max_pixels": 25_000_000},
        }
    }


def test_skip_classifier_lets_a_page_through_for_the_back_office(
    client: Client, auth: dict[str, str]
) -> None:
    # the web app offers 'upload anyway' only after the classifier refused the page
    assert upload(client, auth, letter(2), name="brief.png").json()["zlb_scan"]["error_code"] == "IMGC002"

    response = upload(client, auth, letter(2), name="brief.png", skip_classifier="True")

    assert response.status_code == 201
    registration = BevRegistration.objects.get()
    assert registration.classifier_skipped and registration.needs_review


def test_an_upload_over_10_mb_is_refused_before_reading(client: Client, auth: dict[str, str]) -> None:
    response = upload(client, auth, b"\xff\xd8\xff" + b"\x00" * (10 * 1024 * 1024 + 200 * 1024))

    assert response.status_code == 413
    assert response.json()["zlb_scan"]["error_code"] == "IMGC005"


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"registration_years": str(YEAR + 5)}, "registration_years"),
        ({"registration_years": "abc"}, "registration_years"),
        ({"registration_years": ""}, "registration_years"),
        ({"partner": "wallbox"}, "partner"),
    ],
)
def test_bad_fields_get_field_errors(
    client: Client, auth: dict[str, str], fields: dict[str, str], field: str
) -> None:
    response = upload(client, auth, zlb_document(11)[0], **fields)

    assert response.status_code == 400
    assert field in response.json()
    assert not BevRegistration.objects.exists()


def test_a_missing_file_is_a_field_error(client: Client, auth: dict[str, str]) -> None:
    response = client.post(
        "/api/bev_registrations/",
        {"partner": "autohaus", "registration_years": str(YEAR)},
        HTTP_HOST=HOST,
        headers=auth,
    )

    assert response.status_code == 400
    assert response.json() == {"zlb_scan": ["Bitte laden Sie ein Bild oder PDF Ihres Fahrzeugscheins hoch."]}


def test_upload_needs_a_token(client: Client) -> None:
    assert upload(client, {}, zlb_document(12)[0]).status_code == 401


def test_lock_is_owner_only_and_idempotent(client: Client, auth: dict[str, str]) -> None:
    registration_id = upload(client, auth, zlb_document(13)[0]).json()[0]["id"]

    first = client.post(
        f"/api/bev_registrations/{registration_id}/lock/?update_related=True", HTTP_HOST=HOST, headers=auth
    )
    second = client.post(
        f"/api/bev_registrations/{registration_id}/lock/?update_related=True", HTTP_HOST=HOST, headers=auth
    )
    stranger = User.objects.create(username="s@example.de", email="s@example.de")
    foreign = client.post(
        f"/api/bev_registrations/{registration_id}/lock/",
        HTTP_HOST=HOST,
        headers={
            "Authorization": "Bearer "
            + tokens_issue(user=stranger, partner=Partner.objects.get(subdomain="autohaus"))["access"]
        },
    )

    assert first.status_code == 200 and second.status_code == 200
    assert first.json()["locked_at"] == second.json()["locked_at"]
    assert foreign.status_code == 404


def test_device_info_is_stored_for_the_owners_registration(client: Client, auth: dict[str, str]) -> None:
    registration_id = upload(client, auth, zlb_document(14)[0]).json()[0]["id"]
    payload = {
        "registration": registration_id,
        "device_type": "mobile",
        "device_name": "iPhone",
        "browser_version": "17",
        "os_name": "iOS",
        "os_version": "17.1",
        "full_user_agent_string": "Mozilla/5.0",
    }

    ok = client.post(
        "/api/fe_user_agent_data/", payload, content_type="application/json", HTTP_HOST=HOST, headers=auth
    )
    bad = client.post(
        "/api/fe_user_agent_data/",
        {**payload, "device_type": "toaster"},
        content_type="application/json",
        HTTP_HOST=HOST,
        headers=auth,
    )

    assert ok.status_code == 201
    assert DeviceInfo.objects.get().device_name == "iPhone"
    assert bad.status_code == 400 and "device_type" in bad.json()
