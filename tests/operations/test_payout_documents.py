"""Issue 46: a paid batch leaves each business owner a self-billing credit note (Gutschrift) as a
Factur-X PDF with its EN 16931 XML (checked against the Factur-X XSD), each private owner a
payout statement; numbers per partner without gaps, also under concurrent issuing, never the
same across partners; the owner's objection honoured; the owner downloads from the portal card,
the partner per batch (ZIP) and per application. Over HTTP; the PDFs' text read with pypdfium2."""

from __future__ import annotations

import io
import threading
import zipfile
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pypdfium2 as pdfium
import pytest
from django.db import connection, transaction
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context
from facturx import get_xml_from_pdf, xml_check_xsd
from lxml import etree

from operations.credit_notes import payout_documents_issue
from operations.document_models import DocumentCounter, PayoutDocument
from operations.models import SettlementBatch, SettlementItem
from quota.models import QuotaApplication, QuotaStatus, StatusChange
from staff.models import AuditEntry
from tenants.models import Partner
from tenants.services import partner_provision
from tests.factories import ApplicationFactory
from tests.operations.conftest import API, HOST, OTHER_HOST, SessionFactory, money_config
from tests.privacy.conftest import bearer

pytestmark = pytest.mark.django_db
BATCHES = API + "settlement_batches/"
LEGAL = {
    "legal_name": "Autohaus Sonnenschein GmbH",
    "street": "Sonnenallee 1",
    "postal_code": "12045",
    "city": "Berlin",
    "vat_id": "DE811907980",
    "tax_number": "",
    "business_vat_mode": "standard",
}
RAM = "{urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100}"


def invoicing(partner: Partner, **changes: Any) -> None:
    money_config(partner, invoicing={**LEGAL, **changes})


def to_pay(**kwargs: Any) -> QuotaApplication:
    application = ApplicationFactory.create(status=QuotaStatus.TO_PAY, **kwargs)
    StatusChange.objects.filter(application=application).update(status=QuotaStatus.ACCEPTED)
    return application


def business(vat_liable: bool = True, **kwargs: Any) -> QuotaApplication:
    return to_pay(
        client__vehicle_owner_type="business",
        client__is_vat_mandatory=vat_liable,
        client__name_of_business="Flotte Grün GmbH",
        client__vat_number="DE136695976" if vat_liable else "21/815/08150",
        **kwargs,
    )


def paid(admin: Client, *applications: QuotaApplication, host: str = HOST) -> dict[str, Any]:
    created = admin.post(
        BATCHES, {"ids": [a.pk for a in applications]}, content_type="application/json", HTTP_HOST=host
    )
    assert created.status_code == 201, created.content
    batch = created.json()
    marked = admin.post(f"{BATCHES}{batch['id']}/mark_paid/", content_type="application/json", HTTP_HOST=host)
    assert marked.status_code == 200, marked.content
    return batch


def documents(admin: Client, batch_id: int, host: str = HOST) -> list[dict[str, Any]]:
    answer = admin.get(f"{BATCHES}{batch_id}/documents/", HTTP_HOST=host)
    assert answer.status_code == 200, answer.content
    return answer.json()["results"]  # type: ignore[no-any-return]


def pdf_text(data: bytes) -> str:
    document = pdfium.PdfDocument(data)
    try:
        return "\n".join(page.get_textpage().get_text_range() for page in document)
    finally:
        document.close()


def download(client: Client, document_id: int, what: str = "document.pdf") -> bytes:
    answer = client.get(f"{API}payout_documents/{document_id}/{what}", HTTP_HOST=HOST)
    assert answer.status_code == 200, answer.content
    return bytes(answer.content)


def test_a_business_owners_credit_note_names_everything_the_vat_act_asks(
    autohaus: Partner, admin: Client
) -> None:
    # given: a VAT-liable business owner whose quota the authority accepted
    invoicing(autohaus)
    application = business(registration__vin="WVWZZZ1KZAW123456")

    # when: the batch is paid
    batch = paid(admin, application)

    # then: one credit note, numbered GS-AUTOHAUS-1
    [listed] = documents(admin, batch["id"])
    assert listed["kind"] == "credit_note" and listed["kind_label"] == "Gutschrift"
    assert listed["number"] == "GS-AUTOHAUS-000001"
    assert (listed["net"], listed["vat"], listed["gross"]) == ("85.00", "16.15", "101.15")
    data = download(admin, listed["id"])
    text = pdf_text(data).replace("\r", "")
    today = timezone.localdate().strftime("%d.%m.%Y")
    year = timezone.localdate().year
    for expected in (
        "Gutschrift Nr. GS-AUTOHAUS-000001",
        # both parties' names and addresses
        "Flotte Grün GmbH",
        "Erika Mustermann",
        "Hauptstraße 12a",
        "10115 Berlin",
        "Autohaus Sonnenschein GmbH",
        "Sonnenallee 1",
        "12045 Berlin",
        # the owner's VAT id and the partner's
        "USt-IdNr.: DE136695976",
        "USt-IdNr.: DE811907980",
        f"Ausstellungsdatum: {today}",
        f"Leistungsdatum: {today}",
        f"Übertragung der THG-Quote für das Quotenjahr {year}",
        "FIN WVWZZZ1KZAW123456",
        "Fahrzeugklasse M1",
        "angerechnete Strommenge 2,000 MWh",
        "Nettobetrag",
        "85,00 €",
        "Umsatzsteuer 19 %",
        "16,15 €",
        "101,15 €",
        "Gutschriftsverfahren",
    ):
        assert expected in text, expected
    # the e-invoice: embedded in the PDF, valid against the EN 16931 XSD, type 389
    _, embedded = get_xml_from_pdf(data, check_xsd=False)
    xml = download(admin, listed["id"], "einvoice.xml")
    assert embedded == xml
    xml_check_xsd(xml, flavor="factur-x", level="en16931")
    root = etree.fromstring(xml)
    assert root.findtext(f".//{RAM}TypeCode") == "389"
    assert root.findtext(f".//{{*}}ExchangedDocument/{RAM}ID") == "GS-AUTOHAUS-000001"
    seller = root.find(f".//{RAM}SellerTradeParty")
    buyer = root.find(f".//{RAM}BuyerTradeParty")
    assert seller is not None and buyer is not None
    assert seller.findtext(f"{RAM}Name") == "Flotte Grün GmbH"
    assert seller.findtext(f"{RAM}SpecifiedTaxRegistration/{RAM}ID") == "DE136695976"
    assert buyer.findtext(f"{RAM}Name") == "Autohaus Sonnenschein GmbH"
    assert (
        root.findtext(f".//{RAM}ApplicableHeaderTradeSettlement/{RAM}ApplicableTradeTax/{RAM}CategoryCode")
        == "S"
    )
    assert root.findtext(f".//{RAM}TaxTotalAmount") == "16.15"
    assert root.findtext(f".//{RAM}GrandTotalAmount") == "101.15"
    assert "MWh" in (root.findtext(f".//{RAM}SpecifiedTradeProduct/{RAM}Description") or "")


@pytest.mark.parametrize(
    ("mode", "vat_liable", "note", "category"),
    [
        ("reverse_charge", True, "Steuerschuldnerschaft des Leistungsempfängers", "AE"),
        ("standard", False, "Kein Ausweis der Umsatzsteuer, da Kleinunternehmer gemäß § 19 UStG", "E"),
    ],
)
def test_reverse_charge_and_small_business_notes_instead_of_vat(
    autohaus: Partner, admin: Client, mode: str, vat_liable: bool, note: str, category: str
) -> None:
    # VAT shown where it is paid (display_vat): under reverse charge and for a small business the
    # owner is paid the net all the same (quota.amounts), and the note says why
    invoicing(autohaus, business_vat_mode=mode)
    application = business(vat_liable=vat_liable)

    batch = paid(admin, application)

    assert (batch["items"][0]["vat"], batch["items"][0]["gross"]) == (
        "0.00",
        "85.00",
    )  # paid as the note says
    [listed] = documents(admin, batch["id"])
    assert (listed["vat_mode"], listed["vat"], listed["gross"]) == (
        "reverse_charge" if mode == "reverse_charge" else "small_business",
        "0.00",
        "85.00",
    )
    data = download(admin, listed["id"])
    text = pdf_text(data).replace("\r", "")
    assert note in text and "Gutschrift" in text
    assert "Umsatzsteuer 19 %" not in text and "Auszahlungsbetrag" in text
    if not vat_liable:
        assert "Steuernummer: 21/815/08150" in text
    xml = download(admin, listed["id"], "einvoice.xml")
    xml_check_xsd(xml, flavor="factur-x", level="en16931")
    root = etree.fromstring(xml)
    tax = root.find(f".//{RAM}ApplicableHeaderTradeSettlement/{RAM}ApplicableTradeTax")
    assert tax is not None
    assert tax.findtext(f"{RAM}CategoryCode") == category
    assert tax.findtext(f"{RAM}CalculatedAmount") == "0.00"
    assert note.split(" (")[0] in (tax.findtext(f"{RAM}ExemptionReason") or "")


def test_a_private_owner_gets_a_payout_statement_without_vat_and_no_e_invoice(
    autohaus: Partner, admin: Client
) -> None:
    invoicing(autohaus)
    application = to_pay()

    batch = paid(admin, application)

    [listed] = documents(admin, batch["id"])
    assert listed["kind"] == "payout_statement" and listed["number"] == "AB-AUTOHAUS-000001"
    assert (listed["vat"], listed["gross"], listed["has_einvoice"]) == ("0.00", "85.00", False)
    text = pdf_text(download(admin, listed["id"]))
    assert "Auszahlungsbeleg Nr. AB-AUTOHAUS-000001" in text
    assert "Erika Mustermann" in text and "Auszahlungsbetrag" in text and "85,00 €" in text
    assert "keine Umsatzsteuer" in text
    assert "Umsatzsteuer 19" not in text and "USt-IdNr." not in text
    assert admin.get(f"{API}payout_documents/{listed['id']}/einvoice.xml", HTTP_HOST=HOST).status_code == 404


def test_an_owner_who_objected_to_self_billing_gets_no_credit_note(autohaus: Partner, admin: Client) -> None:
    invoicing(autohaus)
    objecting, agreeing = business(), business()
    owner = objecting.registration.owner
    answer = Client().post(
        "/api/end_user_portal/self_billing/",
        {"objected": True},
        content_type="application/json",
        HTTP_HOST=HOST,
        headers=bearer(owner),
    )
    assert answer.status_code == 200, answer.content

    batch = paid(admin, objecting, agreeing)

    listed = documents(admin, batch["id"])
    assert [d["application_id"] for d in listed] == [agreeing.pk]
    assert listed[0]["number"] == "GS-AUTOHAUS-000001"  # no number spent on the objecting owner


def test_an_objection_is_true_or_false_never_a_number_or_a_word(autohaus: Partner) -> None:
    """The schema says boolean (make fuzz sent 0 and it was taken as false): 0, 1, "yes" and
    "false" are refused with the field's error and change nothing."""
    owner = business().registration.owner
    for value in (0, 1, "yes", "false"):
        answer = Client().post(
            "/api/end_user_portal/self_billing/",
            {"objected": value},
            content_type="application/json",
            HTTP_HOST=HOST,
            headers=bearer(owner),
        )
        assert answer.status_code == 400, (value, answer.content)
        assert "objected" in answer.json(), answer.content
    assert not owner.clients.filter(self_billing_objected_at__isnull=False).exists()


def test_staff_record_an_objection_that_came_by_letter(
    autohaus: Partner, admin: Client, session: SessionFactory
) -> None:
    invoicing(autohaus)
    objecting = business()
    back_office = session("back_office")

    recorded = back_office.post(
        f"{API}quota_applications/{objecting.pk}/self_billing/",
        {"objected": True},
        content_type="application/json",
        HTTP_HOST=HOST,
    )
    viewer = session("viewer").post(
        f"{API}quota_applications/{objecting.pk}/self_billing/",
        {"objected": False},
        content_type="application/json",
        HTTP_HOST=HOST,
    )

    assert recorded.status_code == 200, recorded.content
    assert viewer.status_code == 403
    assert AuditEntry.objects.filter(
        action="client.self_billing_objection", object_id=str(objecting.pk)
    ).exists()
    batch = paid(admin, objecting)
    assert documents(admin, batch["id"]) == []


def test_a_worker_makes_the_files_once_the_payment_commits(
    autohaus: Partner, admin: Client, django_capture_on_commit_callbacks: Any
) -> None:
    invoicing(autohaus)
    with django_capture_on_commit_callbacks(execute=True):
        batch = paid(admin, business(), to_pay())

    made = PayoutDocument.objects.filter(item__batch_id=batch["id"]).order_by("sequence")
    assert [bool(d.pdf_path) for d in made] == [True, True]
    assert all(d.pdf_path.startswith("p_autohaus/payout_documents/") for d in made)


def test_documents_on_the_portal_card_per_application_and_as_a_zip_per_batch(
    autohaus: Partner, admin: Client, session: SessionFactory
) -> None:
    invoicing(autohaus)
    company, person = business(), to_pay()
    batch = paid(admin, company, person)
    owner = company.registration.owner

    # the owner's card lists its credit note with a link bound to the owner
    cards = Client().get("/api/end_user_portal/quota_applications/", HTTP_HOST=HOST, headers=bearer(owner))
    assert cards.status_code == 200, cards.content
    [card] = cards.json()["results"]
    [linked] = card["payout_documents"]
    assert (linked["kind"], linked["number"]) == ("credit_note", "GS-AUTOHAUS-000001")
    mine = Client().get(linked["url"], HTTP_HOST=HOST)
    assert mine.status_code == 200 and mine["Content-Type"] == "application/pdf"
    assert "Gutschrift Nr. GS-AUTOHAUS-000001" in pdf_text(mine.content)
    # a forged or altered link, or the link on another partner's host, finds nothing
    assert (
        Client()
        .get(linked["url"].replace("/payout_documents/", "/payout_documents/x"), HTTP_HOST=HOST)
        .status_code
        == 404
    )
    assert Client().get(linked["url"], HTTP_HOST=OTHER_HOST).status_code == 404
    other_cards = (
        Client()
        .get(
            "/api/end_user_portal/quota_applications/",
            HTTP_HOST=HOST,
            headers=bearer(person.registration.owner),
        )
        .json()["results"]
    )
    assert [d["number"] for d in other_cards[0]["payout_documents"]] == ["AB-AUTOHAUS-000001"]

    # the partner: per application (back office), the batch's ZIP (admin only)
    back_office = session("back_office")
    per_application = back_office.get(
        f"{API}quota_applications/{company.pk}/payout_documents/", HTTP_HOST=HOST
    )
    assert [d["number"] for d in per_application.json()["results"]] == ["GS-AUTOHAUS-000001"]
    assert back_office.get(f"{BATCHES}{batch['id']}/documents.zip", HTTP_HOST=HOST).status_code == 403
    archive = admin.get(f"{BATCHES}{batch['id']}/documents.zip", HTTP_HOST=HOST)
    assert archive.status_code == 200
    names = zipfile.ZipFile(io.BytesIO(b"".join(archive.streaming_content))).namelist()  # type: ignore[attr-defined]
    assert sorted(names) == ["AB-AUTOHAUS-000001.pdf", "GS-AUTOHAUS-000001.pdf", "GS-AUTOHAUS-000001.xml"]
    assert session("viewer").get(f"{API}payout_documents/1/document.pdf", HTTP_HOST=HOST).status_code == 403


def test_each_partner_numbers_its_own_documents_and_never_reuses_anothers(
    autohaus: Partner, admin: Client, session: SessionFactory
) -> None:
    invoicing(autohaus)
    stadtwerk = Partner.objects.get(subdomain="stadtwerk")
    first = paid(admin, business(), business())
    with schema_context("p_stadtwerk"):
        money_config(stadtwerk, invoicing={**LEGAL, "legal_name": "Stadtwerk Musterstadt AG"})
        theirs = business()
        their_admin = session("partner_admin", host=OTHER_HOST, partner=stadtwerk)
        other = paid(their_admin, theirs, host=OTHER_HOST)
        their_numbers = [d["number"] for d in documents(their_admin, other["id"], host=OTHER_HOST)]
    second = paid(admin, business())

    ours = [d["number"] for d in documents(admin, first["id"]) + documents(admin, second["id"])]
    assert ours == ["GS-AUTOHAUS-000001", "GS-AUTOHAUS-000002", "GS-AUTOHAUS-000003"]
    assert their_numbers == ["GS-STADTWERK-000001"]
    assert not set(ours) & set(their_numbers)


# ---------------------------------------------------------------- concurrent issuing


@pytest.fixture(scope="module")
def racing(django_db_setup: None, django_db_blocker: Any) -> Iterator[Partner]:
    """A partner of its own with committed rows: four paid batches of five business items."""
    with django_db_blocker.unblock():
        partner = partner_provision(subdomain="gutschrift-race", name="Race GmbH")
        with schema_context(partner.schema_name):
            for number in range(4):
                batch = SettlementBatch.objects.create(
                    reference=f"RACE-{number}", execution_date=timezone.localdate(), status="settled"
                )
                for application in [business() for _ in range(5)]:
                    SettlementItem.objects.create(
                        batch=batch,
                        application=application,
                        owner_id=application.client.owner_id,
                        sequence=application.registration.sequence,
                        legislation_year=application.legislation_year,
                        method=SettlementItem.Method.SEPA,
                        status=SettlementItem.Status.PAID,
                        net=Decimal("85.00"),
                        vat_percent=Decimal("19.00"),
                        vat=Decimal("16.15"),
                        gross=Decimal("101.15"),
                        payee_name="Flotte",
                        iban="DE89370400440532013000",
                        end_to_end_id=f"RACE{number}-{application.pk}",
                    )
        yield partner
        partner.delete(force_drop=True)


def test_concurrent_issuing_leaves_no_gap_and_no_number_twice(racing: Partner) -> None:
    schema = racing.schema_name
    with schema_context(schema):
        batches = list(SettlementBatch.objects.order_by("pk"))
    start = threading.Barrier(len(batches) + 1)
    errors: list[BaseException] = []

    def issue(batch: SettlementBatch, fail: bool) -> None:
        try:
            with schema_context(schema):
                start.wait()
                try:
                    with transaction.atomic():
                        payout_documents_issue(batch=batch, partner=racing)
                        if fail:
                            raise RuntimeError("rolled back after drawing its numbers")
                except RuntimeError:
                    pass
        except BaseException as error:  # noqa: BLE001 (reported to the test)
            errors.append(error)
        finally:
            connection.close()

    # four at once; the last one's transaction rolls back after it drew five numbers
    threads = [
        threading.Thread(target=issue, args=(batch, index == len(batches) - 1))
        for index, batch in enumerate(batches)
    ]
    for thread in threads:
        thread.start()
    start.wait()
    for thread in threads:
        thread.join(timeout=60)

    assert not errors
    with schema_context(schema):
        numbers = sorted(PayoutDocument.objects.values_list("sequence", flat=True))
        counter = DocumentCounter.objects.get(kind="credit_note").last_number
        # the rolled-back batch issues again later and continues the sequence
        payout_documents_issue(batch=batches[-1], partner=racing)
        after = sorted(PayoutDocument.objects.values_list("sequence", flat=True))
    assert numbers == list(range(1, 16)) and counter == 15
    assert after == list(range(1, 21))
