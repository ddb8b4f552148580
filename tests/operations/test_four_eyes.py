"""Four eyes on large settlement batches (issue 46): above the partner's threshold a batch needs
a second partner admin's approval, never its creator's, before its SEPA file can be downloaded
or it is marked paid; the approval is in the audit log."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from quota.models import QuotaStatus
from staff.models import AuditEntry
from tenants.models import Partner
from tests.factories import ApplicationFactory
from tests.operations.conftest import API, HOST, SessionFactory, member_of

pytestmark = pytest.mark.django_db
BATCHES = API + "settlement_batches/"
SETTINGS = API + "settlement_settings/"


def post(client: Client, path: str, body: dict[str, Any] | None = None) -> Any:
    return client.post(path, body or {}, content_type="application/json", HTTP_HOST=HOST)


def put(client: Client, path: str, body: dict[str, Any]) -> Any:
    return client.put(path, body, content_type="application/json", HTTP_HOST=HOST)


def batch_of(admin: Client, count: int) -> dict[str, Any]:
    applications = [ApplicationFactory.create(status=QuotaStatus.TO_PAY) for _ in range(count)]
    response = post(admin, BATCHES, {"ids": [a.pk for a in applications]})
    assert response.status_code == 201, response.content
    return response.json()  # type: ignore[no-any-return]


def test_the_threshold_is_the_partners_with_a_default_and_checked(
    autohaus: Partner, admin: Client, session: SessionFactory
) -> None:
    default = admin.get(SETTINGS, HTTP_HOST=HOST)
    refused = [put(admin, SETTINGS, {"approval_threshold": value}) for value in ("-1", "abc", "10.001")]
    changed = put(admin, SETTINGS, {"approval_threshold": "100.00"})
    by_back_office = put(session("back_office"), SETTINGS, {"approval_threshold": "1"})

    assert default.status_code == 200 and default.json() == {"approval_threshold": "10000.00"}
    for response in refused:
        assert response.status_code == 400
        assert response.json()["approval_threshold"]["error_code"] == "SETTLE022", response.content
    assert changed.status_code == 200 and changed.json() == {"approval_threshold": "100.00"}
    assert by_back_office.status_code == 403
    entry = AuditEntry.objects.get(action="settlement_settings.update")
    assert entry.before == {"approval_threshold": "10000.00"} and entry.after == {
        "approval_threshold": "100.00"
    }


def test_a_batch_above_the_threshold_waits_for_a_second_admin(
    autohaus: Partner, admin: Client, session: SessionFactory
) -> None:
    # given: a threshold of 100 EUR and a batch of 170 EUR made by one admin
    assert put(admin, SETTINGS, {"approval_threshold": "100"}).status_code == 200
    batch = batch_of(admin, 2)
    base = f"{BATCHES}{batch['id']}/"
    second = session("partner_admin")

    # when: the creator downloads, pays and approves; the back office approves; then the
    # second admin approves, twice
    early_download = admin.get(base + "sepa.xml", HTTP_HOST=HOST)
    early_paid = post(admin, base + "mark_paid/")
    by_creator = post(admin, base + "approve/")
    by_back_office = post(session("back_office"), base + "approve/")
    approved = post(second, base + "approve/")
    again = post(second, base + "approve/")
    download = admin.get(base + "sepa.xml", HTTP_HOST=HOST)

    # then
    assert batch["approval"]["required"] is True and batch["approval"]["approved"] is False
    assert early_download.status_code == 400 and early_download.json()["error_code"] == "SETTLE019"
    assert early_paid.status_code == 400 and early_paid.json()["error_code"] == "SETTLE019"
    assert by_creator.status_code == 400 and by_creator.json()["error_code"] == "SETTLE020"
    assert by_back_office.status_code == 403
    assert approved.status_code == 200, approved.content
    approval = approved.json()["approval"]
    assert approval["approved"] is True and approval["approved_by"] == member_of(second).user.email
    assert again.status_code == 200
    assert download.status_code == 200
    entries = AuditEntry.objects.filter(action="settlement_batch.approve", object_id=str(batch["id"]))
    assert entries.count() == 1
    assert entries.get().actor_id == member_of(second).user_id
    after = entries.get().after
    assert after is not None and after["total_gross"] == "170.00"
    assert post(admin, base + "mark_paid/").status_code == 200


def test_a_batch_at_or_below_the_threshold_needs_no_approval(autohaus: Partner, admin: Client) -> None:
    assert put(admin, SETTINGS, {"approval_threshold": "85.00"}).status_code == 200
    batch = batch_of(admin, 1)

    approve = post(admin, f"{BATCHES}{batch['id']}/approve/")
    download = admin.get(f"{BATCHES}{batch['id']}/sepa.xml", HTTP_HOST=HOST)

    assert batch["approval"]["required"] is False
    assert approve.status_code == 400 and approve.json()["error_code"] == "SETTLE021"
    assert download.status_code == 200
