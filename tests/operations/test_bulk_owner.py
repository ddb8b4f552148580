"""Owner data for a bulk upload without CSV, per accepted scan (POST bulk_uploads/{id}/items/
{item}/owner/): checked like a CSV row, it makes the owner's account, the locked billing data
and the applications; rollback takes it back; refusals, roles, audit and partners."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from billing.models import Client as BillingClient
from operations.models import BulkUpload
from quota.models import QuotaApplication, QuotaStatus
from registrations.models import BevRegistration
from staff.models import AuditEntry
from tenants.models import Partner
from tests.operations.conftest import HOST, OTHER_HOST, SessionFactory
from tests.operations.test_bulk_upload import (  # noqa: F401 - fixtures shared with it
    HEADER,
    UPLOADS,
    Upload,
    csv_row,
    scans,
    stored_files,
    upload,
    zip_of,
)

pytestmark = pytest.mark.django_db

OWNER = {
    "email": "Fahrerin@Flotte.example",
    "gender": "woman",
    "first_name": "Jördis",
    "last_name": "Weiß",
    "street_name": "Hauptstraße",
    "street_number": "1",
    "postal_code": "10115",
    "city": "Berlin",
    "account_iban": "DE89 3704 0044 0532 0130 00",
    "vehicle_owner_type": "private",
}


def owner_path(upload_id: int, item_id: int) -> str:
    return f"{UPLOADS}{upload_id}/items/{item_id}/owner/"


def post(client: Client, path: str, body: dict[str, Any], host: str = HOST) -> Any:
    return client.post(path, body, content_type="application/json", HTTP_HOST=host)


@pytest.fixture
def fleet(autohaus: Partner, admin: Client, upload: Upload, scans: dict[str, bytes]) -> dict[str, Any]:  # noqa: F811
    created = upload(admin, zip_of({"a.jpg": scans["first"], "urlaub.jpg": scans["photo"]}))
    assert created.status_code == 201, created.content
    progress = admin.get(f"{UPLOADS}{created.json()['id']}/", HTTP_HOST=HOST).json()
    return {"upload": progress, "items": {item["file_name"]: item for item in progress["items"]}}


def test_owner_data_for_a_scan_makes_account_billing_data_and_applications(
    autohaus: Partner, admin: Client, fleet: dict[str, Any]
) -> None:
    item = fleet["items"]["a.jpg"]
    assert item["has_owner"] is False and item["applications"] == []

    response = post(admin, owner_path(fleet["upload"]["id"], item["id"]), OWNER)

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["has_owner"] is True
    [application] = QuotaApplication.objects.filter(registration_id=item["registration"]["id"])
    assert body["applications"] == [
        {"id": application.pk, "legislation_year": application.legislation_year, "status": "qa_created"}
    ]
    owner = User.objects.get(email="fahrerin@flotte.example")
    assert BevRegistration.objects.get(pk=item["registration"]["id"]).owner_id == owner.pk
    client = BillingClient.objects.get(owner=owner)
    # the flow's billing rules cleaned it: IBAN without spaces, holder defaulted and transliterated
    assert (client.account_iban, client.account_name, client.locked_at is not None) == (
        "DE89370400440532013000",
        "Jordis Weiss",
        True,
    )
    assert application.status == QuotaStatus.CREATED and application.client_id == client.pk
    entry = AuditEntry.objects.get(action="bulk_upload.owner")
    assert entry.after == {"item": item["id"], "applications": [application.pk]}
    assert "Weiß" not in str(entry.after) and "DE89" not in str(entry.after)
    # a second time is refused: the scan has its owner
    again = post(admin, owner_path(fleet["upload"]["id"], item["id"]), {**OWNER, "email": "x@y.example"})
    assert again.status_code == 409 and again.json()["error_code"] == "BULK052"


def test_invalid_owner_data_gets_the_flows_field_errors_and_changes_nothing(
    autohaus: Partner, admin: Client, fleet: dict[str, Any]
) -> None:
    item = fleet["items"]["a.jpg"]

    response = post(
        admin,
        owner_path(fleet["upload"]["id"], item["id"]),
        {**OWNER, "email": "kein-at", "account_iban": "DE00123", "street_name": "A", "first_name": ""},
    )
    business = post(
        admin,
        owner_path(fleet["upload"]["id"], item["id"]),
        {**OWNER, "vehicle_owner_type": "business", "is_vat_mandatory": None},
    )
    wrong_type = post(admin, owner_path(fleet["upload"]["id"], item["id"]), {**OWNER, "postal_code": 10115})

    assert response.status_code == 400
    errors = response.json()
    assert set(errors) == {"email", "account_iban", "street_name", "first_name"}
    assert errors["account_iban"] == {"error_code": "IBAN001"} or "error_code" in str(errors["account_iban"])
    assert business.status_code == 400 and "is_vat_mandatory" in business.json()
    assert wrong_type.status_code == 400 and "postal_code" in wrong_type.json()
    assert not BillingClient.objects.exists() and not QuotaApplication.objects.exists()
    assert not User.objects.filter(email="fahrerin@flotte.example").exists()


def test_only_accepted_scans_of_uploads_without_csv_take_owner_data(
    autohaus: Partner,
    admin: Client,
    fleet: dict[str, Any],
    upload: Upload,  # noqa: F811
    scans: dict[str, bytes],  # noqa: F811
) -> None:
    refused = fleet["items"]["urlaub.jpg"]
    with_csv = upload(
        admin,
        zip_of({"b.pdf": scans["second"]}),
        f"{HEADER}\r\n{csv_row('b.pdf', 'ben@flotte.example')}\r\n".encode(),
    ).json()
    csv_item = admin.get(f"{UPLOADS}{with_csv['id']}/", HTTP_HOST=HOST).json()["items"][0]
    staff = post(admin, owner_path(fleet["upload"]["id"], fleet["items"]["a.jpg"]["id"]), {
        **OWNER, "email": User.objects.filter(is_staff=True).values_list("email", flat=True).first() or "x",
    })  # fmt: skip

    assert (
        post(admin, owner_path(fleet["upload"]["id"], refused["id"]), OWNER).json()["error_code"] == "BULK051"
    )
    assert post(admin, owner_path(with_csv["id"], csv_item["id"]), OWNER).json()["error_code"] == "BULK050"
    # an item of another upload under this upload's path is not found
    assert post(admin, owner_path(fleet["upload"]["id"], csv_item["id"]), OWNER).status_code == 404
    assert staff.status_code == 400 and "email" in staff.json()
    assert not QuotaApplication.objects.filter(registration_id=fleet["items"]["a.jpg"]["registration"]["id"])


def test_rollback_takes_the_owner_data_back(
    autohaus: Partner,
    admin: Client,
    fleet: dict[str, Any],
    django_capture_on_commit_callbacks: Any,
    settings: Any,
) -> None:
    item = fleet["items"]["a.jpg"]
    assert post(admin, owner_path(fleet["upload"]["id"], item["id"]), OWNER).status_code == 200

    with django_capture_on_commit_callbacks(execute=True):
        rolled = admin.post(f"{UPLOADS}{fleet['upload']['id']}/rollback/", HTTP_HOST=HOST)

    assert rolled.status_code == 200, rolled.content
    assert rolled.json()["removed"] == {"applications": 1, "registrations": 1, "clients": 1, "owners": 2}
    assert not QuotaApplication.objects.exists() and not BillingClient.objects.exists()
    assert not User.objects.filter(email="fahrerin@flotte.example").exists()
    assert not stored_files(Path(settings.MEDIA_ROOT))
    after = post(admin, owner_path(fleet["upload"]["id"], item["id"]), OWNER)
    assert after.status_code == 409 and after.json()["error_code"] == "BULK051"
    assert BulkUpload.objects.get().status == "bevRegistration_bulk_is_rolled_back"


def test_viewers_and_other_partners_cannot_add_owner_data(
    autohaus: Partner, admin: Client, fleet: dict[str, Any], session: SessionFactory
) -> None:
    item = fleet["items"]["a.jpg"]
    path = owner_path(fleet["upload"]["id"], item["id"])
    stadtwerk = Partner.objects.get(subdomain="stadtwerk")
    other = session("partner_admin", host=OTHER_HOST, partner=stadtwerk)

    assert post(session("viewer"), path, OWNER).status_code == 403
    assert post(other, path, OWNER, host=OTHER_HOST).status_code == 404
    assert post(Client(), path, OWNER).status_code == 401
    assert not QuotaApplication.objects.exists()
    assert post(session("back_office"), path, OWNER).status_code == 200
