"""The SEPA file of a batch (issue 46): built once from the open bank items whose application is
in the batch's state, and kept: the same bytes, MsgId and PmtInfId on every download, a warning
when a paid batch's file is downloaded again; a batch with a file is not changed any more.
Marking paid is idempotent."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest
from django.test import Client

from operations.models import SettlementBatch
from quota.models import QuotaApplication, QuotaStatus, StatusChange
from staff.models import AuditEntry
from tenants.models import Partner
from tests.factories import ApplicationFactory
from tests.operations.conftest import API, HOST

pytestmark = pytest.mark.django_db
BATCHES = API + "settlement_batches/"
NS = {"p": "urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"}


def post(client: Client, path: str, body: dict[str, Any] | None = None) -> Any:
    return client.post(path, body or {}, content_type="application/json", HTTP_HOST=HOST)


def batch_of(admin: Client, *applications: QuotaApplication) -> dict[str, Any]:
    response = post(admin, BATCHES, {"ids": [a.pk for a in applications]})
    assert response.status_code == 201, response.content
    return response.json()  # type: ignore[no-any-return]


def ids(xml: bytes) -> tuple[str, str]:
    root = ET.fromstring(xml)  # noqa: S314 - our own server's file
    return root.find(".//p:GrpHdr/p:MsgId", NS).text or "", root.find(".//p:PmtInf/p:PmtInfId", NS).text or ""  # type: ignore[union-attr]


def test_every_download_serves_the_same_file_with_the_same_ids(autohaus: Partner, admin: Client) -> None:
    # given
    batch = batch_of(admin, *(ApplicationFactory.create(status=QuotaStatus.TO_PAY) for _ in range(2)))
    sepa = f"{BATCHES}{batch['id']}/sepa.xml"

    # when: downloaded three times, once asking for another version
    first = admin.get(sepa, HTTP_HOST=HOST)
    second = admin.get(sepa, {"version": "09"}, HTTP_HOST=HOST)
    other_version = admin.get(sepa, {"version": "03"}, HTTP_HOST=HOST)
    detail = admin.get(f"{BATCHES}{batch['id']}/", HTTP_HOST=HOST).json()

    # then: byte for byte the same; MsgId the batch's reference, PmtInfId its payment block
    assert first.status_code == 200 and second.status_code == 200
    assert first.content == second.content
    assert ids(first.content) == (batch["reference"], f"{batch['reference']}-P1")
    assert first["X-Sepa-Msg-Id"] == batch["reference"] and "X-Sepa-Warning" not in first
    assert other_version.status_code == 400 and other_version.json()["error_code"] == "SETTLE016"
    assert "Version 09" in other_version.json()["detail"]
    assert detail["sepa_file"]["msg_id"] == batch["reference"] and detail["sepa_file"]["downloads"] == 2
    assert detail["sepa_file"]["warning"] is None
    assert AuditEntry.objects.filter(action="settlement_batch.sepa_download").count() == 2


def test_a_paid_batchs_file_comes_again_with_a_warning_and_none_is_built_after_paid(
    autohaus: Partner, admin: Client
) -> None:
    downloaded = batch_of(admin, ApplicationFactory.create(status=QuotaStatus.TO_PAY))
    never = batch_of(admin, ApplicationFactory.create(status=QuotaStatus.TO_PAY))
    first = admin.get(f"{BATCHES}{downloaded['id']}/sepa.xml", HTTP_HOST=HOST)
    for batch in (downloaded, never):
        assert post(admin, f"{BATCHES}{batch['id']}/mark_paid/").status_code == 200

    again = admin.get(f"{BATCHES}{downloaded['id']}/sepa.xml", HTTP_HOST=HOST)
    late = admin.get(f"{BATCHES}{never['id']}/sepa.xml", HTTP_HOST=HOST)
    detail = admin.get(f"{BATCHES}{downloaded['id']}/", HTTP_HOST=HOST).json()

    assert again.status_code == 200 and again.content == first.content
    assert again["X-Sepa-Warning"] == "SETTLE018"
    assert detail["sepa_file"]["warning"].startswith("Achtung: Dieser Lauf ist bereits bezahlt")
    assert late.status_code == 400 and late.json()["error_code"] == "SETTLE017"
    entry = AuditEntry.objects.filter(action="settlement_batch.sepa_download").latest("pk")
    assert entry.after is not None
    assert entry.after["paid_again"] is True and entry.after["built"] is False


def test_the_file_pays_only_open_items_in_the_batchs_state_and_freezes_the_batch(
    autohaus: Partner, admin: Client
) -> None:
    # given: three in a batch; one failed, one put back to qa_to_pay behind the batch's back
    paid, failed, strayed = (ApplicationFactory.create(status=QuotaStatus.TO_PAY) for _ in range(3))
    batch = batch_of(admin, paid, failed, strayed)
    items = {i["application"]["id"]: i["id"] for i in batch["items"]}
    assert (
        post(admin, f"{BATCHES}{batch['id']}/items/{items[failed.pk]}/fail/", {"reason": "AC04"}).status_code
        == 200
    )
    QuotaApplication.objects.filter(pk=strayed.pk).update(status=QuotaStatus.TO_PAY)

    # when
    response = admin.get(f"{BATCHES}{batch['id']}/sepa.xml", HTTP_HOST=HOST)
    removed = post(admin, f"{BATCHES}{batch['id']}/items/{items[paid.pk]}/remove/")

    # then: one transfer, the one in qa_to_settle; the batch is no longer changed
    assert response.status_code == 200
    root = ET.fromstring(response.content)  # noqa: S314 - our own server's file
    transactions = root.findall(".//p:CdtTrfTxInf", NS)
    assert len(transactions) == 1
    remittance = transactions[0].find("p:RmtInf/p:Ustrd", NS).text or ""  # type: ignore[union-attr]
    assert f"{paid.registration.sequence}/{paid.legislation_year}" in remittance
    assert removed.status_code == 400 and removed.json()["error_code"] == "SETTLE015"


def test_mark_paid_twice_changes_nothing_the_second_time(autohaus: Partner, admin: Client) -> None:
    application = ApplicationFactory.create(status=QuotaStatus.TO_PAY)
    batch = batch_of(admin, application)

    first = post(admin, f"{BATCHES}{batch['id']}/mark_paid/")
    history = StatusChange.objects.filter(application=application).count()
    paid_at = SettlementBatch.objects.get(pk=batch["id"]).paid_at
    second = post(admin, f"{BATCHES}{batch['id']}/mark_paid/")

    assert first.status_code == 200 and second.status_code == 200
    assert second.json() == first.json()
    assert StatusChange.objects.filter(application=application).count() == history
    assert SettlementBatch.objects.get(pk=batch["id"]).paid_at == paid_at
    assert AuditEntry.objects.filter(action="settlement_batch.mark_paid").count() == 1
