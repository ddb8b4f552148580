"""Issue 46: the accountant's reports (a batch statement as CSV and PDF, a month's sub-partner
commissions) in German formats and Excel-safe, and the bank's return files (camt.054, pain.002):
the named item fails with the bank's reason, the owner is mailed, corrects the IBAN in the portal,
and the application goes into a later batch. Over HTTP."""

from __future__ import annotations

import io
from decimal import Decimal
from typing import Any

import pypdfium2 as pdfium
import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from operations.document_models import PayoutDocument
from operations.models import SettlementItem, SubPartner
from quota.models import QuotaApplication, QuotaStatus
from tenants.models import Partner
from tests.factories import ApplicationFactory
from tests.operations.conftest import API, HOST
from tests.privacy.conftest import bearer

pytestmark = pytest.mark.django_db
BATCHES = API + "settlement_batches/"
RETURNS = API + "settlement_returns/"


def to_pay(**kwargs: Any) -> QuotaApplication:
    return ApplicationFactory.create(status=QuotaStatus.TO_PAY, **kwargs)


def batch_of(admin: Client, *applications: QuotaApplication, mark_paid: bool = True) -> dict[str, Any]:
    created = admin.post(
        BATCHES, {"ids": [a.pk for a in applications]}, content_type="application/json", HTTP_HOST=HOST
    )
    assert created.status_code == 201, created.content
    batch = created.json()
    if mark_paid:
        marked = admin.post(
            f"{BATCHES}{batch['id']}/mark_paid/", content_type="application/json", HTTP_HOST=HOST
        )
        assert marked.status_code == 200, marked.content
    return batch  # type: ignore[no-any-return]


def csv_lines(data: bytes) -> list[list[str]]:
    assert data.startswith(b"\xef\xbb\xbf")  # UTF-8 BOM: Excel reads the umlauts
    return [line.split(";") for line in data[3:].decode("utf-8").splitlines()]


def pdf_text(data: bytes) -> str:
    document = pdfium.PdfDocument(data)
    try:
        text = " ".join(page.get_textpage().get_text_range() for page in document)
        return " ".join(text.split())
    finally:
        document.close()


def test_the_batch_statement_as_csv_and_pdf_in_german_formats_excel_safe(
    autohaus: Partner, admin: Client
) -> None:
    # given: a business owner (VAT), a private owner whose account holder starts like a formula,
    # and one item that failed
    company = to_pay(
        client__vehicle_owner_type="business",
        client__is_vat_mandatory=True,
        client__name_of_business="Flotte GmbH",
        client__account_name="Flotte GmbH",
    )
    formula = to_pay(client__account_name="=HYPERLINK(evil)")
    returned = to_pay(client__account_name="Max Rueck")
    batch = batch_of(admin, company, formula, returned, mark_paid=False)
    item = next(i for i in batch["items"] if i["application"]["id"] == returned.pk)
    failed = admin.post(
        f"{BATCHES}{batch['id']}/items/{item['id']}/fail/",
        {"reason": "+Konto erloschen"},
        content_type="application/json",
        HTTP_HOST=HOST,
    )
    assert failed.status_code == 200, failed.content

    # when
    answer = admin.get(f"{BATCHES}{batch['id']}/statement.csv", HTTP_HOST=HOST)

    # then
    assert answer.status_code == 200 and answer["Content-Type"].startswith("text/csv")
    lines = csv_lines(answer.content)
    header, rows = lines[0], lines[1:]
    assert header[:3] == ["Lauf", "Antrag", "Quotenjahr"] and "Brutto" in header
    by_payee = {row[3]: row for row in rows}
    column = {
        name: header.index(name) for name in ("Netto", "USt-Satz", "USt", "Brutto", "Status", "Fehlergrund")
    }
    assert [by_payee["Flotte GmbH"][column[c]] for c in ("Netto", "USt-Satz", "USt", "Brutto")] == [
        "85,00",
        "19 %",
        "16,15",
        "101,15",
    ]
    assert "'=HYPERLINK(evil)" in by_payee  # a formula is text
    assert by_payee["Max Rueck"][column["Status"]] == "Fehlgeschlagen"
    assert by_payee["Max Rueck"][column["Fehlergrund"]] == "'+Konto erloschen"
    assert by_payee["Max Rueck"][-1] == timezone.localdate().strftime("%d.%m.%Y")
    total = next(row for row in rows if row[0] == "Summe (ohne Fehler)")
    assert (total[1], total[column["Netto"]], total[column["USt"]], total[column["Brutto"]]) == (
        "2",
        "170,00",
        "16,15",
        "186,15",
    )
    failures = next(row for row in rows if row[0] == "Fehlgeschlagen")
    assert (failures[1], failures[column["Brutto"]]) == ("1", "85,00")

    pdf = admin.get(f"{BATCHES}{batch['id']}/statement.pdf", HTTP_HOST=HOST)
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
    text = pdf_text(pdf.content)
    assert f"Abrechnungslauf {batch['reference']}" in text
    assert "Brutto 186,15 €" in text and "Fehlgeschlagen: 1" in text and "101,15" in text


def test_the_monthly_sub_partner_commission_statement(autohaus: Partner, admin: Client) -> None:
    installer = SubPartner.objects.create(
        name="Elektro Blitz", referral_key="BLITZ", fee_share_percent=Decimal("10.00")
    )
    dealer = SubPartner.objects.create(
        name="@Autohaus Nord", referral_key="NORD", fee_share_percent=Decimal("12.50")
    )
    attributed = [to_pay(sub_partner=installer), to_pay(sub_partner=installer), to_pay(sub_partner=dealer)]
    unattributed = to_pay()
    not_paid = to_pay(sub_partner=installer)
    batch_of(admin, *attributed, unattributed)
    batch_of(admin, not_paid, mark_paid=False)
    month = timezone.localdate().strftime("%Y-%m")

    answer = admin.get(f"{API}reports/sub_partner_commissions.csv?month={month}", HTTP_HOST=HOST)

    assert answer.status_code == 200, answer.content
    lines = csv_lines(answer.content)
    rows = lines[1:]
    details = [row for row in rows if not row[1].startswith("Summe")]
    assert len(details) == 3  # the paid, attributed ones only
    assert {(row[1], row[-3], row[-2], row[-1]) for row in details} == {
        ("Elektro Blitz", "85,00", "10 %", "8,50"),
        ("'@Autohaus Nord", "85,00", "12,5 %", "10,63"),
    }
    sums = {row[1]: row for row in rows if row[1].startswith("Summe")}
    assert sums["Summe Elektro Blitz"][3] == "2" and sums["Summe Elektro Blitz"][-1] == "17,00"
    assert details[0][0] == f"{month[5:]}.{month[:4]}"
    pdf = admin.get(f"{API}reports/sub_partner_commissions.pdf?month={month}", HTTP_HOST=HOST)
    assert pdf.status_code == 200
    assert "Provision gesamt 27,63 €" in pdf_text(pdf.content)
    for wrong in ("2026-13", "11-2026"):
        refused = admin.get(f"{API}reports/sub_partner_commissions.csv?month={wrong}", HTTP_HOST=HOST)
        assert refused.status_code == 400, wrong


CAMT = """<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08">
 <BkToCstmrDbtCdtNtfctn>
  <GrpHdr><MsgId>RET-1</MsgId><CreDtTm>2026-11-29T08:00:00</CreDtTm></GrpHdr>
  <Ntfctn><Id>N1</Id><CreDtTm>2026-11-29T08:00:00</CreDtTm>
   <Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>
   <Ntry><Amt Ccy="EUR">85.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>
    <BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>ICDT</Cd><SubFmlyCd>RRTN</SubFmlyCd></Fmly></Domn></BkTxCd>
    <NtryDtls><TxDtls>
     <Refs><EndToEndId>{e2e}</EndToEndId></Refs>
     <Amt Ccy="EUR">85.00</Amt>
     <RtrInf><Rsn><Cd>{code}</Cd></Rsn><AddtlInf>Konto aufgelöst</AddtlInf></RtrInf>
    </TxDtls>
    <TxDtls><Refs><EndToEndId>NOT-OURS-1</EndToEndId></Refs><RtrInf><Rsn><Cd>AC01</Cd></Rsn></RtrInf></TxDtls>
    </NtryDtls>
   </Ntry>
  </Ntfctn>
 </BkToCstmrDbtCdtNtfctn>
</Document>"""

PAIN002 = """<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.10">
 <CstmrPmtStsRpt>
  <GrpHdr><MsgId>ST-1</MsgId><CreDtTm>2026-11-29T08:00:00</CreDtTm></GrpHdr>
  <OrgnlGrpInfAndSts><OrgnlMsgId>X</OrgnlMsgId><OrgnlMsgNmId>pain.001.001.09</OrgnlMsgNmId></OrgnlGrpInfAndSts>
  <OrgnlPmtInfAndSts><OrgnlPmtInfId>P</OrgnlPmtInfId>
   <TxInfAndSts><OrgnlEndToEndId>{e2e}</OrgnlEndToEndId><TxSts>RJCT</TxSts>
    <StsRsnInf><Rsn><Cd>AC01</Cd></Rsn></StsRsnInf></TxInfAndSts>
   <TxInfAndSts><OrgnlEndToEndId>{ok}</OrgnlEndToEndId><TxSts>ACCP</TxSts></TxInfAndSts>
  </OrgnlPmtInfAndSts>
 </CstmrPmtStsRpt>
</Document>"""


def upload(admin: Client, text: str, name: str = "return.xml") -> Any:
    data = io.BytesIO(text.encode())
    data.name = name
    return admin.post(RETURNS, {"file": data}, HTTP_HOST=HOST)


def test_a_camt_054_return_fails_the_named_item_mails_the_owner_and_a_new_iban_requeues_it(
    autohaus: Partner, admin: Client, django_capture_on_commit_callbacks: Any
) -> None:
    # given: two owners paid in one batch; the bank returns one transfer (AC04: account closed)
    returned, kept = to_pay(), to_pay()
    batch = batch_of(admin, returned, kept)
    e2e = next(i["end_to_end_id"] for i in batch["items"] if i["application"]["id"] == returned.pk)
    mail.outbox.clear()

    # when
    with django_capture_on_commit_callbacks(execute=True):
        answer = upload(admin, CAMT.format(e2e=e2e, code="AC04"))

    # then: that item only, with the bank's reason, through the settlement's failure
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["kind"] == "camt.054" and body["unknown"] == ["NOT-OURS-1"]
    assert [(f["application"], f["code"]) for f in body["failed"]] == [(returned.pk, "AC04")]
    item = SettlementItem.objects.get(application=returned)
    assert item.status == SettlementItem.Status.FAILED
    assert item.failure_reason == "Rückmeldung der Bank AC04: Konto erloschen"
    assert QuotaApplication.objects.get(pk=returned.pk).status == QuotaStatus.PAYMENT_FAILURE
    assert QuotaApplication.objects.get(pk=kept.pk).status == QuotaStatus.PAID
    # the owner is asked to check the bank details in the portal, in the partner's name
    # (quota.owner_mails, sent for the move to qa_payment_failure), once
    [message] = mail.outbox
    assert message.to == [returned.registration.owner.email]
    assert message.subject.startswith("Ihre Auszahlung ist fehlgeschlagen")
    assert "Bankverbindung im Kundenportal" in message.body and "/portal" in message.body
    # the same file again changes nothing
    again = upload(admin, CAMT.format(e2e=e2e, code="AC04"))
    assert again.status_code == 200 and again.json()["failed"] == []
    assert again.json()["already_failed"] == [e2e]

    # when: the owner enters a new IBAN in the portal
    owner = Client()
    corrected = owner.put(
        "/api/end_user_portal/payout_account/",
        {"account_iban": "DE02 1203 0000 0000 2020 51", "account_name": "Erika Mustermann"},
        content_type="application/json",
        HTTP_HOST=HOST,
        headers=bearer(returned.registration.owner),
    )

    # then: back to qa_to_pay, and a later batch pays it to the new account
    assert corrected.status_code == 200, corrected.content
    assert corrected.json()["applications"] == [returned.pk]
    assert QuotaApplication.objects.get(pk=returned.pk).status == QuotaStatus.TO_PAY
    later = batch_of(admin, returned, mark_paid=False)
    assert later["items"][0]["iban_masked"].startswith("DE02")
    # paid again: the application keeps its one document (the supply was documented once)
    first_document = PayoutDocument.objects.get(application=returned)
    marked = admin.post(f"{BATCHES}{later['id']}/mark_paid/", content_type="application/json", HTTP_HOST=HOST)
    assert marked.status_code == 200, marked.content
    assert list(PayoutDocument.objects.filter(application=returned)) == [first_document]
    # nothing left to correct for this owner, and a wrong IBAN is refused in the field's shape
    nothing = owner.put(
        "/api/end_user_portal/payout_account/",
        {"account_iban": "DE02120300000000202051"},
        content_type="application/json",
        HTTP_HOST=HOST,
        headers=bearer(returned.registration.owner),
    )
    assert nothing.status_code == 400 and nothing.json()["account_iban"]["error_code"] == "SETTLE006"


def test_a_returned_transfer_that_paid_two_applications_of_one_owner_fails_both(
    autohaus: Partner, admin: Client
) -> None:
    # given: one owner with two applications: the SEPA file pays them in one transfer that
    # carries the first one's end-to-end id
    first = to_pay()
    second = to_pay(registration__owner=first.registration.owner, client=first.client)
    other = to_pay()
    batch = batch_of(admin, first, second, other, mark_paid=False)
    ids = {i["application"]["id"]: i["end_to_end_id"] for i in batch["items"]}
    sepa = admin.get(f"{BATCHES}{batch['id']}/sepa.xml", HTTP_HOST=HOST).content.decode()
    carried = ids[first.pk] if ids[first.pk] in sepa else ids[second.pk]
    assert carried in sepa and sepa.count("<EndToEndId>") == 2
    marked = admin.post(f"{BATCHES}{batch['id']}/mark_paid/", content_type="application/json", HTTP_HOST=HOST)
    assert marked.status_code == 200, marked.content

    answer = upload(admin, CAMT.format(e2e=carried, code="AC01"))

    assert answer.status_code == 200, answer.content
    assert sorted(f["application"] for f in answer.json()["failed"]) == sorted([first.pk, second.pk])
    assert QuotaApplication.objects.get(pk=other.pk).status == QuotaStatus.PAID


def test_a_pain_002_rejection_fails_only_the_rejected_transfer(autohaus: Partner, admin: Client) -> None:
    rejected, accepted = to_pay(), to_pay()
    batch = batch_of(admin, rejected, accepted, mark_paid=False)
    ids = {i["application"]["id"]: i["end_to_end_id"] for i in batch["items"]}

    answer = upload(admin, PAIN002.format(e2e=ids[rejected.pk], ok=ids[accepted.pk]))

    assert answer.status_code == 200, answer.content
    assert answer.json()["kind"] == "pain.002"
    assert [f["application"] for f in answer.json()["failed"]] == [rejected.pk]
    assert SettlementItem.objects.get(application=rejected).failure_reason.endswith("AC01: IBAN fehlerhaft")
    assert SettlementItem.objects.get(application=accepted).status == SettlementItem.Status.OPEN


@pytest.mark.parametrize(
    "text",
    [
        "not xml at all",
        '<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09">'
        "<CstmrCdtTrfInitn/></Document>",
        '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>'
        '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08"><BkToCstmrDbtCdtNtfctn>&b;'
        "</BkToCstmrDbtCdtNtfctn></Document>",
    ],
    ids=["text", "pain.001", "entities"],
)
def test_a_file_that_is_not_a_return_file_is_refused(autohaus: Partner, admin: Client, text: str) -> None:
    answer = upload(admin, text)
    assert answer.status_code == 400
    assert answer.json()["file"]["error_code"] == "RETURN001"
    assert "camt.054 oder pain.002" in answer.json()["file"]["message"]


def test_return_files_and_reports_are_for_partner_admins(autohaus: Partner, session: Any) -> None:
    back_office = session("back_office")
    assert back_office.post(RETURNS, {}, HTTP_HOST=HOST).status_code == 403
    month = timezone.localdate().strftime("%Y-%m")
    assert (
        back_office.get(f"{API}reports/sub_partner_commissions.csv?month={month}", HTTP_HOST=HOST).status_code
        == 403
    )
    admin = session("partner_admin")
    missing = admin.post(RETURNS, {}, HTTP_HOST=HOST)
    assert missing.status_code == 400 and missing.json()["file"]["error_code"] == "RETURN000"
