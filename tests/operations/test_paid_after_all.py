"""A payout recorded as failed that was paid after all (issue 46): the bank's word or the partner
admin's confirms it through the settlement's call (POST .../items/{id}/paid/), never through the
generic move; qa_payment_failure → qa_paid, the item paid again, idempotent, audited, its one
document kept or issued. Over HTTP."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.test import Client

from operations.document_models import PayoutDocument
from operations.models import SettlementItem
from quota.models import QuotaApplication, QuotaStatus, StatusChange
from staff.models import AuditEntry
from tenants.models import Partner
from tests.operations.conftest import API, HOST, SessionFactory
from tests.operations.test_payout_documents import business, invoicing, paid, to_pay

pytestmark = pytest.mark.django_db
BATCHES = API + "settlement_batches/"
MOVES = API + "quota_applications/moves/"


def post(client: Client, path: str, body: dict[str, Any] | None = None) -> Any:
    return client.post(path, body or {}, content_type="application/json", HTTP_HOST=HOST)


def status_of(application: QuotaApplication) -> str:
    return QuotaApplication.objects.get(pk=application.pk).status


def item_path(batch: dict[str, Any], application: QuotaApplication, action: str) -> str:
    item = SettlementItem.objects.get(batch_id=batch["id"], application=application)
    return f"{BATCHES}{batch['id']}/items/{item.pk}/{action}/"


def test_a_returned_payout_the_bank_paid_after_all_is_confirmed_once(
    autohaus: Partner, admin: Client, session: SessionFactory
) -> None:
    # given: a paid batch whose business owner's transfer the bank reported returned
    invoicing(autohaus)
    company = business()
    batch = paid(admin, company)
    failed = post(admin, item_path(batch, company, "fail"), {"reason": "Rückmeldung der Bank AC04"})
    assert failed.status_code == 200, failed.content
    assert status_of(company) == QuotaStatus.PAYMENT_FAILURE
    history = StatusChange.objects.filter(application=company).count()

    # when: the generic move and the back office try it, then the admin confirms it twice
    generic = post(session("back_office"), MOVES, {"ids": [company.pk], "status": QuotaStatus.PAID})
    back_office = post(session("back_office"), item_path(batch, company, "paid"))
    confirmed = post(admin, item_path(batch, company, "paid"), {"note": "Kontoauszug 12.04."})
    again = post(admin, item_path(batch, company, "paid"), {"note": "noch einmal"})

    # then: only the settlement's call moved it, once
    assert generic.status_code == 400 and generic.json()["error_code"] == "QA005"
    assert back_office.status_code == 403
    assert confirmed.status_code == 200, confirmed.content
    body = confirmed.json()
    assert (body["status"], body["failure_reason"]) == ("paid", "")
    assert body["application"]["status"] == QuotaStatus.PAID
    assert again.status_code == 200 and again.json() == body
    assert status_of(company) == QuotaStatus.PAID
    moves = list(
        StatusChange.objects.filter(application=company)
        .order_by("created_at", "pk")
        .values_list("status", "reason")
    )
    assert len(moves) == history + 1
    assert moves[-1] == (QuotaStatus.PAID, "Doch ausgezahlt: Kontoauszug 12.04.")
    [entry] = AuditEntry.objects.filter(action="settlement_item.paid_confirm")
    assert entry.after == {
        "status": "paid",
        "was": {"status": "failed", "reason": "Rückmeldung der Bank AC04"},
        "note": "Kontoauszug 12.04.",
        "application": company.pk,
    }
    # the one credit note of the first payment stays the only one
    assert list(PayoutDocument.objects.filter(application=company).values_list("number", flat=True)) == [
        "GS-AUTOHAUS-000001"
    ]
    # the batch counts it as paid again
    totals = admin.get(f"{BATCHES}{batch['id']}/", HTTP_HOST=HOST).json()["totals"]
    assert (totals["all"]["count"], totals["failed"]["count"]) == (1, 0)


def test_an_item_failed_before_its_batch_was_paid_gets_its_document_when_confirmed(
    autohaus: Partner, admin: Client
) -> None:
    # given: a NEW batch of two private owners; one transfer is reported failed, the batch is paid
    invoicing(autohaus)
    returned, fine = to_pay(), to_pay()
    created = post(admin, BATCHES, {"ids": [returned.pk, fine.pk]})
    assert created.status_code == 201, created.content
    batch = created.json()
    assert post(admin, item_path(batch, returned, "fail"), {"reason": "AC01"}).status_code == 200
    assert post(admin, f"{BATCHES}{batch['id']}/mark_paid/").status_code == 200
    assert not PayoutDocument.objects.filter(application=returned).exists()

    # when
    confirmed = post(admin, item_path(batch, returned, "paid"))

    # then: paid, with its payout statement numbered after the batch's
    assert confirmed.status_code == 200, confirmed.content
    assert status_of(returned) == QuotaStatus.PAID
    numbers = dict(PayoutDocument.objects.values_list("application_id", "number"))
    assert numbers == {fine.pk: "AB-AUTOHAUS-000001", returned.pk: "AB-AUTOHAUS-000002"}


def test_only_a_failed_payout_still_in_payment_failure_is_confirmed(autohaus: Partner, admin: Client) -> None:
    # given: one open item, and one failed item whose application was queued again
    open_one, requeued = to_pay(), to_pay()
    batch = post(admin, BATCHES, {"ids": [open_one.pk, requeued.pk]}).json()
    assert post(admin, item_path(batch, requeued, "fail"), {"reason": "AC04"}).status_code == 200
    assert post(admin, item_path(batch, requeued, "requeue")).status_code == 200

    # when
    not_failed = post(admin, item_path(batch, open_one, "paid"))
    moved_on = post(admin, item_path(batch, requeued, "paid"))
    unknown = post(admin, f"{BATCHES}{batch['id']}/items/999999/paid/")

    # then: refused in the spec's shape, nothing moved, nothing recorded
    assert not_failed.status_code == 400 and not_failed.json()["error_code"] == "SETTLE006"
    assert moved_on.status_code == 400 and moved_on.json()["error_code"] == "SETTLE023"
    assert "fehlgeschlagener Auszahlung" in moved_on.json()["detail"]
    assert unknown.status_code == 404
    assert (status_of(open_one), status_of(requeued)) == (QuotaStatus.TO_SETTLE, QuotaStatus.TO_PAY)
    assert not AuditEntry.objects.filter(action="settlement_item.paid_confirm").exists()


SETTLED_PAIN002 = """<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.10">
 <CstmrPmtStsRpt>
  <GrpHdr><MsgId>ST-2</MsgId><CreDtTm>2026-11-29T08:00:00</CreDtTm></GrpHdr>
  <OrgnlGrpInfAndSts><OrgnlMsgId>X</OrgnlMsgId><OrgnlMsgNmId>pain.001.001.09</OrgnlMsgNmId></OrgnlGrpInfAndSts>
  <OrgnlPmtInfAndSts><OrgnlPmtInfId>P</OrgnlPmtInfId>
   <TxInfAndSts><OrgnlEndToEndId>{settled}</OrgnlEndToEndId><TxSts>ACSC</TxSts></TxInfAndSts>
   <TxInfAndSts><OrgnlEndToEndId>{accepted}</OrgnlEndToEndId><TxSts>ACCP</TxSts></TxInfAndSts>
  </OrgnlPmtInfAndSts>
 </CstmrPmtStsRpt>
</Document>"""


def test_the_banks_settled_status_confirms_a_failed_payout_as_paid(autohaus: Partner, admin: Client) -> None:
    # given: a paid batch of two; one transfer recorded as failed, the other failed and requeued
    invoicing(autohaus)
    returned, requeued = to_pay(), to_pay()
    batch = paid(admin, returned, requeued)
    for application in (returned, requeued):
        assert post(admin, item_path(batch, application, "fail"), {"reason": "AC04"}).status_code == 200
    assert post(admin, item_path(batch, requeued, "requeue")).status_code == 200
    ids = {i["application"]["id"]: i["end_to_end_id"] for i in batch["items"]}
    text = SETTLED_PAIN002.format(settled=ids[returned.pk], accepted=ids[requeued.pk])

    def upload() -> Any:
        data = io.BytesIO(text.encode())
        data.name = "status.xml"
        return admin.post(API + "settlement_returns/", {"file": data}, HTTP_HOST=HOST)

    # when: the bank's status report says the first was settled (ACSC), twice
    first, second = upload(), upload()

    # then: the first upload confirmed it paid through the settlement, the second found nothing to do
    assert first.status_code == 200, first.content
    assert [(p["application"], p["code"]) for p in first.json()["paid"]] == [(returned.pk, "ACSC")]
    assert first.json()["failed"] == []
    assert second.status_code == 200 and second.json()["paid"] == []
    assert (status_of(returned), status_of(requeued)) == (QuotaStatus.PAID, QuotaStatus.TO_PAY)
    last = StatusChange.objects.filter(application=returned).order_by("-created_at", "-pk").first()
    assert last is not None and last.reason == "Doch ausgezahlt: Rückmeldung der Bank ACSC"
    # recorded in the return file's audit entry, not as an admin's confirmation
    assert not AuditEntry.objects.filter(action="settlement_item.paid_confirm").exists()
    files = AuditEntry.objects.filter(action="settlement.return_file").order_by("pk")
    assert [e.after["paid"] for e in files if e.after] == [
        [SettlementItem.objects.get(application=returned).pk],
        [],
    ]
