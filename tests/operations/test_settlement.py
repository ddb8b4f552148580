"""Settlement batches through HTTP: creation from qa_to_pay, totals, the SEPA file (validated
against the pain.001 XSDs sepaxml ships), PAID only from NEW, failed items and the corrected
IBAN, roles, audit and tenant isolation."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from decimal import Decimal
from typing import Any

import pytest
import xmlschema
from django.db import connection
from django.test import Client
from django.utils import timezone

from billing.models import Client as BillingClient
from common import crypto
from operations.models import SettlementBatch, SettlementItem
from operations.sepa import XSD_DIR
from privacy.models import RetainedPayout
from quota.models import QuotaApplication, QuotaStatus
from quota.selectors import status_timeline
from staff.models import AuditEntry
from tenants.models import Partner
from tests.factories import ApplicationFactory, UserFactory
from tests.operations.conftest import API, HOST, OTHER_HOST, SessionFactory, money_config
from tests.privacy.conftest import tables_text

pytestmark = pytest.mark.django_db
BATCHES = API + "settlement_batches/"
NS = {
    "09": "urn:iso:std:iso:20022:tech:xsd:pain.001.001.09",
    "03": "urn:iso:std:iso:20022:tech:xsd:pain.001.001.03",
}


def to_pay(**kwargs: Any) -> QuotaApplication:
    return ApplicationFactory.create(status=QuotaStatus.TO_PAY, **kwargs)


def post(client: Client, path: str, body: dict[str, Any] | None = None, host: str = HOST) -> Any:
    return client.post(path, body or {}, content_type="application/json", HTTP_HOST=host)


def statuses(*applications: QuotaApplication) -> list[str]:
    return [QuotaApplication.objects.get(pk=a.pk).status for a in applications]


def test_a_batch_takes_the_chosen_to_pay_applications_with_their_totals(
    autohaus: Partner, admin: Client
) -> None:
    # given: a private owner, a VAT-liable business, a small business, a charge card, and
    # applications the batch must leave out (wrong status, no price)
    private = to_pay()
    business = to_pay(
        client__vehicle_owner_type="business",
        client__is_vat_mandatory=True,
        client__name_of_business="Flotte GmbH",
    )
    small = to_pay(client__vehicle_owner_type="business", client__is_vat_mandatory=False)
    card = to_pay(client__account_iban="", client__account_name="", client__charge_card="LK-4711")
    entered = ApplicationFactory.create(status=QuotaStatus.ENTERED)
    unpriced = to_pay(registration__vehicle_class="L3e")

    # when
    created = post(
        admin, BATCHES, {"ids": [private.pk, business.pk, small.pk, card.pk, entered.pk, unpriced.pk]}
    )

    # then
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["status"] == "new" and body["status_label"] == "NEW"
    assert {s["id"] for s in body["skipped"]} == {entered.pk, unpriced.pk}
    # the partner sees its applications' numbers, not the database's ids (issue 49)
    assert {(s["id"], s["sequence"]) for s in body["skipped"]} == {
        (entered.pk, entered.registration.sequence),
        (unpriced.pk, unpriced.registration.sequence),
    }
    assert all("qa_" not in s["detail"] for s in body["skipped"])
    sepa = {item["application"]["id"]: item for item in body["items"]}
    assert set(sepa) == {private.pk, business.pk, small.pk}
    assert [item["application"]["id"] for item in body["charge_card_items"]] == [card.pk]
    assert body["charge_card_items"][0]["charge_card"] == "LK-4711"
    assert (sepa[private.pk]["net"], sepa[private.pk]["vat"], sepa[private.pk]["gross"]) == (
        "85.00",
        "0.00",
        "85.00",
    )
    assert (sepa[business.pk]["vat_percent"], sepa[business.pk]["vat"], sepa[business.pk]["gross"]) == (
        "19.00",
        "16.15",
        "101.15",
    )
    assert sepa[small.pk]["gross"] == "85.00"
    assert sepa[private.pk]["iban_masked"] == "DE89 **** **** **** **30 00"
    totals = body["totals"]
    assert totals["all"] == {"count": 4, "net": "340.00", "vat": "16.15", "gross": "356.15"}
    assert totals["sepa"]["gross"] == "271.15" and totals["charge_card"]["gross"] == "85.00"
    assert statuses(private, business, small, card) == [QuotaStatus.TO_SETTLE] * 4
    assert statuses(entered, unpriced) == [QuotaStatus.ENTERED, QuotaStatus.TO_PAY]
    change = QuotaApplication.objects.get(pk=private.pk).status_changes.last()
    assert change is not None and change.actor_id == admin.member.user_id  # type: ignore[attr-defined]
    assert body["reference"] in change.reason
    assert AuditEntry.objects.filter(action="settlement_batch.create", object_id=str(body["id"])).exists()


def test_a_batch_by_filter_and_a_second_batch_never_takes_the_same_application(
    autohaus: Partner, admin: Client
) -> None:
    this_year = [to_pay(), to_pay()]
    older = to_pay(legislation_year=2023)

    first = post(admin, BATCHES, {"filters": {"legislation_year": timezone.localdate().year}})
    second = post(admin, BATCHES, {"filters": {"legislation_year": timezone.localdate().year}})

    assert first.status_code == 201
    assert {item["application"]["id"] for item in first.json()["items"]} == {a.pk for a in this_year}
    assert statuses(older) == [QuotaStatus.TO_PAY]
    assert second.status_code == 400 and second.json()["error_code"] == "SETTLE002"


def test_a_batch_of_the_rows_selected_in_the_grid_leaves_the_other_payable_ones(
    autohaus: Partner, admin: Client
) -> None:
    # given: three applications to pay, two of them selected in the applications grid
    chosen, also_chosen, not_chosen = to_pay(), to_pay(), to_pay()

    # when
    created = post(admin, BATCHES, {"ids": [chosen.pk, also_chosen.pk], "execution_date": "2099-01-02"})

    # then: exactly the selection, on the date asked for; the third still waits for a batch
    assert created.status_code == 201, created.content
    body = created.json()
    assert {item["application"]["id"] for item in body["items"]} == {chosen.pk, also_chosen.pk}
    assert body["skipped"] == [] and body["execution_date"] == "2099-01-02"
    assert statuses(chosen, also_chosen, not_chosen) == [
        QuotaStatus.TO_SETTLE,
        QuotaStatus.TO_SETTLE,
        QuotaStatus.TO_PAY,
    ]
    # a selection together with a filter: only the selected rows the filter also matches
    van = to_pay(registration__vehicle_class="N1")
    both = post(admin, BATCHES, {"ids": [not_chosen.pk, van.pk], "filters": {"vehicle_class": "N1"}})
    assert both.status_code == 201, both.content
    assert [item["application"]["id"] for item in both.json()["items"]] == [van.pk]
    assert statuses(not_chosen, van) == [QuotaStatus.TO_PAY, QuotaStatus.TO_SETTLE]


def test_a_selection_beyond_the_batch_limit_is_refused_before_anything_moves(
    autohaus: Partner, admin: Client
) -> None:
    application = to_pay()

    refused = post(admin, BATCHES, {"ids": [application.pk] + list(range(10**6, 10**6 + 10_000))})
    empty = post(admin, BATCHES, {"ids": []})

    assert refused.status_code == 400 and empty.status_code == 400
    assert statuses(application) == [QuotaStatus.TO_PAY]
    assert not SettlementBatch.objects.exists()


def test_without_any_payable_application_nothing_is_created(autohaus: Partner, admin: Client) -> None:
    entered = ApplicationFactory.create(status=QuotaStatus.ENTERED)

    refused = post(admin, BATCHES, {"ids": [entered.pk]})
    malformed = post(admin, BATCHES, {"ids": ["x"]})

    assert refused.status_code == 400 and refused.json()["error_code"] == "SETTLE002"
    assert refused.json()["skipped"][0]["id"] == entered.pk
    assert malformed.status_code == 400
    assert not SettlementBatch.objects.exists()


def _batch(admin: Client, *applications: QuotaApplication) -> dict[str, Any]:
    response = post(admin, BATCHES, {"ids": [a.pk for a in applications]})
    assert response.status_code == 201, response.content
    return response.json()  # type: ignore[no-any-return]


@pytest.mark.parametrize("version", ["09", "03"])
def test_the_sepa_file_validates_and_pays_one_transfer_per_owner(
    autohaus: Partner, admin: Client, version: str
) -> None:
    # given: one owner with two vehicles, another owner, a charge card (not in the file)
    owner = UserFactory.create()
    first = to_pay(registration__owner=owner, client__account_name="Jörg Müßig-Straße")
    second = to_pay(registration__owner=owner, client=first.client)
    other = to_pay(client__account_iban="FR1420041010050500013M02606")
    card = to_pay(client__account_iban="", client__account_name="", client__charge_card="LK-1")
    batch = _batch(admin, first, second, other, card)

    # when
    response = admin.get(f"{BATCHES}{batch['id']}/sepa.xml", {"version": version}, HTTP_HOST=HOST)

    # then: XSD-valid (checked again here, independently of the server)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("application/xml")
    assert f"pain.001.001.{version}.xml" in response["Content-Disposition"]
    xsd = xmlschema.XMLSchema(str(XSD_DIR / f"pain.001.001.{version}.xsd"))
    xsd.validate(response.content.decode())
    root = ET.fromstring(response.content)  # noqa: S314 - our own server's file
    ns = {"p": NS[version]}
    transactions = root.findall(".//p:CdtTrfTxInf", ns)
    assert len(transactions) == 2
    assert root.find(".//p:GrpHdr/p:NbOfTxs", ns).text == "2"  # type: ignore[union-attr]
    assert root.find(".//p:GrpHdr/p:CtrlSum", ns).text == "255.00"  # type: ignore[union-attr]
    assert root.find(".//p:DbtrAcct/p:Id/p:IBAN", ns).text == "DE89370400440532013000"  # type: ignore[union-attr]
    by_iban = {tx.find("p:CdtrAcct/p:Id/p:IBAN", ns).text: tx for tx in transactions}  # type: ignore[union-attr]
    mine = by_iban["DE89370400440532013000"]
    assert mine.find("p:Amt/p:InstdAmt", ns).text == "170.00"  # type: ignore[union-attr]
    assert mine.find("p:Cdtr/p:Nm", ns).text == "Jorg Mussig-Strasse"  # type: ignore[union-attr]
    remittance = mine.find("p:RmtInf/p:Ustrd", ns).text or ""  # type: ignore[union-attr]
    for application in (first, second):
        assert f"{application.registration.sequence}/{application.legislation_year}" in remittance
    items = {i["application"]["id"]: i for i in batch["items"]}
    assert mine.find("p:PmtId/p:EndToEndId", ns).text == items[first.pk]["end_to_end_id"]  # type: ignore[union-attr]
    theirs = by_iban["FR1420041010050500013M02606"]
    assert theirs.find("p:PmtId/p:EndToEndId", ns).text == items[other.pk]["end_to_end_id"]  # type: ignore[union-attr]
    assert b"LK-1" not in response.content
    assert AuditEntry.objects.filter(action="settlement_batch.sepa_download").exists()


def test_many_application_numbers_are_split_so_the_remittance_keeps_every_number(
    autohaus: Partner, admin: Client
) -> None:
    owner = UserFactory.create()
    first = to_pay(registration__owner=owner)
    applications = [first] + [to_pay(registration__owner=owner, client=first.client) for _ in range(11)]
    batch = _batch(admin, *applications)

    response = admin.get(f"{BATCHES}{batch['id']}/sepa.xml", HTTP_HOST=HOST)

    assert response.status_code == 200
    root = ET.fromstring(response.content)  # noqa: S314 - our own server's file
    ns = {"p": NS["09"]}
    remittances = [node.text or "" for node in root.findall(".//p:RmtInf/p:Ustrd", ns)]
    assert len(remittances) == 2 and all(len(text) <= 140 for text in remittances)
    joined = " ".join(remittances)
    assert all(f"{a.registration.sequence}/{a.legislation_year}" in joined for a in applications)
    assert root.find(".//p:GrpHdr/p:CtrlSum", ns).text == "1020.00"  # type: ignore[union-attr]


def test_the_sepa_file_needs_the_partners_payout_account_and_a_known_version(
    autohaus: Partner, admin: Client
) -> None:
    batch = _batch(admin, to_pay())

    wrong_version = admin.get(f"{BATCHES}{batch['id']}/sepa.xml", {"version": "08"}, HTTP_HOST=HOST)
    money_config(autohaus, payout_account={"name": "", "iban": "", "bic": ""})
    without_account = admin.get(f"{BATCHES}{batch['id']}/sepa.xml", HTTP_HOST=HOST)

    assert wrong_version.status_code == 400 and "version" in wrong_version.json()
    assert without_account.status_code == 400 and without_account.json()["error_code"] == "SETTLE003"


def test_the_payout_account_is_validated_with_schwifty_and_never_served_publicly(autohaus: Partner) -> None:
    from common.partner_config import ConfigErrors, config_validate

    with pytest.raises(ConfigErrors) as invalid:
        config_validate({"payout_account": {"name": "X", "iban": "DE89370400440532013001"}})
    with pytest.raises(ConfigErrors):
        config_validate({"payout_account": {"name": "X", "iban": "DE89370400440532013000", "bic": "NOPE"}})
    with pytest.raises(ConfigErrors):
        config_validate({"payout_account": {"name": "", "iban": "DE89370400440532013000"}})
    public = Client().get("/api/configs/autohaus/", HTTP_HOST=HOST)

    assert "payout_account.iban" in invalid.value.errors
    assert public.status_code == 200 and "payout_account" not in public.json()
    assert b"DE89370400440532013000" not in public.content


def test_mark_paid_moves_the_applications_to_paid_once(autohaus: Partner, admin: Client) -> None:
    paid, failed = to_pay(), to_pay()
    batch = _batch(admin, paid, failed)
    failed_item = next(i for i in batch["items"] if i["application"]["id"] == failed.pk)
    assert (
        post(
            admin, f"{BATCHES}{batch['id']}/items/{failed_item['id']}/fail/", {"reason": "IBAN erloschen"}
        ).status_code
        == 200
    )

    done = post(admin, f"{BATCHES}{batch['id']}/mark_paid/")
    again = post(admin, f"{BATCHES}{batch['id']}/mark_paid/")

    assert done.status_code == 200 and done.json()["detail"] == "Successfully updated to status PAID"
    assert done.json()["batch"]["status"] == "settled" and done.json()["batch"]["status_label"] == "PAID"
    assert statuses(paid, failed) == [QuotaStatus.PAID, QuotaStatus.PAYMENT_FAILURE]
    # idempotent (issue 46): the paid batch is answered as it is, nothing recorded again
    assert again.status_code == 200 and again.json() == done.json()
    # the owner's card says so
    card = status_timeline(QuotaApplication.objects.get(pk=paid.pk), "de")
    assert [e["details"]["title"] for e in card if e["position"] == "current"] == ["Ausgezahlt"]
    assert (
        AuditEntry.objects.filter(action="settlement_batch.mark_paid", object_id=str(batch["id"])).count()
        == 1
    )


def test_mark_paid_is_refused_whole_when_an_application_left_to_settle(
    autohaus: Partner, admin: Client
) -> None:
    from quota.services import quota_application_move

    kept, moved = to_pay(), to_pay()
    batch = _batch(admin, kept, moved)
    quota_application_move(
        application=moved, status=QuotaStatus.TO_PAY, actor=None, reason="aus dem Lauf genommen"
    )

    refused = post(admin, f"{BATCHES}{batch['id']}/mark_paid/")

    assert refused.status_code == 400 and refused.json()["error_code"] == "SETTLE010"
    assert statuses(kept, moved) == [QuotaStatus.TO_SETTLE, QuotaStatus.TO_PAY]
    assert SettlementBatch.objects.get(pk=batch["id"]).status == SettlementBatch.Status.NEW


def test_a_failed_item_needs_a_reason_and_a_corrected_iban_puts_it_back_to_pay(
    autohaus: Partner, admin: Client
) -> None:
    application = to_pay()
    batch = _batch(admin, application)
    item = batch["items"][0]
    base = f"{BATCHES}{batch['id']}/items/{item['id']}/"

    reasonless = post(admin, base + "fail/", {"reason": " "})
    too_early = post(admin, base + "iban/", {"account_iban": "DE02120300000000202051"})
    failed = post(admin, base + "fail/", {"reason": "Konto erloschen (AC04)"})
    twice = post(admin, base + "fail/", {"reason": "noch einmal"})
    bad_iban = post(admin, base + "iban/", {"account_iban": "DE02120300000000202052"})
    corrected = post(
        admin, base + "iban/", {"account_iban": "DE02 1203 0000 0000 2020 51", "account_name": "Erika Muster"}
    )

    assert reasonless.status_code == 400
    assert too_early.status_code == 400 and too_early.json()["error_code"] == "SETTLE006"
    assert failed.status_code == 200 and failed.json()["status"] == "failed"
    assert failed.json()["failure_reason"] == "Konto erloschen (AC04)"
    assert twice.status_code == 400 and twice.json()["error_code"] == "SETTLE004"
    assert bad_iban.status_code == 400 and bad_iban.json()["error_code"] == "SETTLE007"
    assert corrected.status_code == 200 and corrected.json()["application"]["status"] == QuotaStatus.TO_PAY
    client = BillingClient.objects.get(pk=application.client_id)
    assert (client.account_iban, client.account_name) == ("DE02120300000000202051", "Erika Muster")
    history = list(
        QuotaApplication.objects.get(pk=application.pk).status_changes.values_list("status", "reason")
    )
    assert history[-2:] == [
        (QuotaStatus.PAYMENT_FAILURE, "Konto erloschen (AC04)"),
        (QuotaStatus.TO_PAY, "Bankverbindung korrigiert"),
    ]
    totals = admin.get(f"{BATCHES}{batch['id']}/", HTTP_HOST=HOST).json()["totals"]
    assert totals["all"]["count"] == 0 and totals["failed"]["count"] == 1
    # the corrected application goes into the next batch with the new IBAN
    again = _batch(admin, application)
    assert again["items"][0]["iban_masked"].endswith("20 51")
    audit = AuditEntry.objects.get(action="settlement_item.iban_correct")
    assert "DE02120300000000202051" not in str(audit.after)


def test_a_returned_transfer_after_paid_is_a_payment_failure(autohaus: Partner, admin: Client) -> None:
    application = to_pay()
    batch = _batch(admin, application)
    post(admin, f"{BATCHES}{batch['id']}/mark_paid/")

    returned = post(
        admin, f"{BATCHES}{batch['id']}/items/{batch['items'][0]['id']}/fail/", {"reason": "Rücklastschrift"}
    )

    assert returned.status_code == 200
    assert statuses(application) == [QuotaStatus.PAYMENT_FAILURE]
    assert SettlementItem.objects.get(pk=batch["items"][0]["id"]).status == SettlementItem.Status.FAILED


def test_the_list_and_the_detail(autohaus: Partner, admin: Client) -> None:
    batch = _batch(admin, to_pay())

    listing = admin.get(BATCHES, {"status": "new"}, HTTP_HOST=HOST)
    settled = admin.get(BATCHES, {"status": "settled"}, HTTP_HOST=HOST)
    detail = admin.get(f"{BATCHES}{batch['id']}/", HTTP_HOST=HOST)
    missing = admin.get(f"{BATCHES}999999/", HTTP_HOST=HOST)

    assert listing.json()["count"] == 1 and listing.json()["results"][0]["id"] == batch["id"]
    assert settled.json()["count"] == 0
    assert detail.status_code == 200 and detail.json()["items"][0]["gross"] == "85.00"
    assert missing.status_code == 404


@pytest.mark.parametrize("role", ["viewer", "back_office"])
def test_only_partner_admins_see_or_touch_settlement_batches(
    autohaus: Partner, admin: Client, session: SessionFactory, role: str
) -> None:
    application = to_pay()
    batch = _batch(admin, application)
    staff = session(role)

    calls = [
        staff.get(BATCHES, HTTP_HOST=HOST),
        post(staff, BATCHES, {"ids": [application.pk]}),
        staff.get(f"{BATCHES}{batch['id']}/", HTTP_HOST=HOST),
        staff.get(f"{BATCHES}{batch['id']}/sepa.xml", HTTP_HOST=HOST),
        post(staff, f"{BATCHES}{batch['id']}/mark_paid/"),
        post(staff, f"{BATCHES}{batch['id']}/items/{batch['items'][0]['id']}/fail/", {"reason": "x"}),
    ]

    assert [c.status_code for c in calls] == [403] * 6
    assert calls[0].json()["detail"] == "Dafür fehlt Ihnen die Berechtigung."
    assert statuses(application) == [QuotaStatus.TO_SETTLE]


def test_without_a_session_or_csrf_nothing_happens(autohaus: Partner, admin: Client) -> None:
    application = to_pay()

    anonymous = Client().get(BATCHES, HTTP_HOST=HOST)
    admin.defaults.pop("HTTP_X_CSRFTOKEN")
    no_csrf = post(admin, BATCHES, {"ids": [application.pk]})

    assert anonymous.status_code == 401
    assert no_csrf.status_code == 403
    assert statuses(application) == [QuotaStatus.TO_PAY]


def test_another_partner_sees_none_of_it(autohaus: Partner, admin: Client, session: SessionFactory) -> None:
    batch = _batch(admin, to_pay())
    stadtwerk = Partner.objects.get(subdomain="stadtwerk")
    other_admin = session("partner_admin", host=OTHER_HOST, partner=stadtwerk)

    theirs = other_admin.get(BATCHES, HTTP_HOST=OTHER_HOST)
    by_id = other_admin.get(f"{BATCHES}{batch['id']}/", HTTP_HOST=OTHER_HOST)
    cookie_elsewhere = admin.get(BATCHES, HTTP_HOST=OTHER_HOST)

    assert theirs.status_code == 200 and theirs.json()["count"] == 0
    assert by_id.status_code == 404
    assert cookie_elsewhere.status_code == 401


def test_amounts_of_a_single_deal_and_without_display_vat() -> None:
    from common.partner_config import PartnerConfig
    from operations.models import SingleDeal
    from operations.settlement import application_amounts
    from quota.amounts import config_schedule

    year = timezone.localdate().year
    config = PartnerConfig.model_validate(
        {"fees": [{"legislation_year": year, "client_fee": "85.00"}], "display_vat": False}
    )
    business = BillingClient(vehicle_owner_type="business", is_vat_mandatory=True)
    application = QuotaApplication(legislation_year=year, client=business)
    application.registration = ApplicationFactory.build().registration
    schedule = config_schedule(config)  # the configuration's table, without a database
    no_vat_shown = application_amounts(application, config, schedule)
    application.single_deal = SingleDeal(name="Flotte", deal_key="flotte", price_net=Decimal("70.00"))
    deal = application_amounts(application, config, schedule)

    assert no_vat_shown is not None and (no_vat_shown.vat, no_vat_shown.gross) == (
        Decimal("0.00"),
        Decimal("85.00"),
    )
    assert deal is not None and (deal.net, deal.vat, deal.gross) == (
        Decimal("70.00"),
        Decimal("13.30"),
        Decimal("83.30"),
    )


def _queries(client: Client, path: str) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        assert client.get(path, HTTP_HOST=HOST).status_code == 200
    return len(captured)


def test_the_list_query_count_does_not_grow_with_the_batches(autohaus: Partner, admin: Client) -> None:
    _batch(admin, to_pay())
    one = _queries(admin, BATCHES)
    for _ in range(3):
        _batch(admin, to_pay(), to_pay())
    four = _queries(admin, BATCHES)

    assert four == one
    assert admin.get(BATCHES, HTTP_HOST=HOST).json()["results"][0]["totals"]["all"]["gross"] == "170.00"


def test_the_batch_screen_shows_the_stored_mask_and_decrypts_no_iban(
    autohaus: Partner, admin: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given: a batch of three bank transfers and a charge card
    sepa = [to_pay(), to_pay(client__account_iban="FR1420041010050500013M02606"), to_pay()]
    card = to_pay(client__account_iban="", client__account_name="", client__charge_card="LK-4711")
    batch = _batch(admin, *sepa, card)
    failing = batch["items"][0]
    # every decryption from here on is counted, with the column it was for
    decrypted: list[str] = []
    real = crypto.field_decrypt

    def counting(token: str, *, where: str = "") -> str:
        decrypted.append(where)
        return real(token, where=where)

    monkeypatch.setattr(crypto, "field_decrypt", counting)

    # when: the screen lists the batch, an item fails and its owner's IBAN is corrected
    detail = admin.get(f"{BATCHES}{batch['id']}/", HTTP_HOST=HOST)
    listed = list(decrypted)
    failed = post(admin, f"{BATCHES}{batch['id']}/items/{failing['id']}/fail/", {"reason": "AC04"})
    post(
        admin,
        f"{BATCHES}{batch['id']}/items/{failing['id']}/iban/",
        {"account_iban": "DE02120300000000202051"},
    )
    after = admin.get(f"{BATCHES}{batch['id']}/", HTTP_HOST=HOST).json()

    # then: the list decrypted only the charge card the partner credits, no IBAN, no billing data
    assert detail.status_code == 200
    assert listed == ["operations_settlementitem.charge_card"]
    body = detail.json()
    masks = {item["application"]["id"]: item["iban_masked"] for item in body["items"]}
    assert masks == {
        sepa[0].pk: "DE89 **** **** **** **30 00",
        sepa[1].pk: "FR14 **** **** **** **** ***2 606",
        sepa[2].pk: "DE89 **** **** **** **30 00",
    }
    assert body["charge_card_items"][0]["charge_card"] == "LK-4711"
    assert failed.status_code == 200 and failed.json()["iban_masked"] == "DE89 **** **** **** **30 00"
    # the failed item keeps the account it was paid to; the owner's billing data has the new one
    assert after["items"][0]["iban_masked"] == "DE89 **** **** **** **30 00"
    assert (
        BillingClient.objects.get(pk=sepa[0].client_id).account_iban_masked == "DE02 **** **** **** **20 51"
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT iban, iban_masked FROM operations_settlementitem WHERE id = %s", [failing["id"]]
        )
        raw, mask = cursor.fetchone()
    assert "DE89" not in raw and mask == "DE89 **** **** **** **30 00"  # the IBAN itself stays encrypted


ANNA = {"email": "anna@example.de", "first_name": "Anna", "last_name": "Annamann"}
ANNA_IBAN = "DE02120300000000202051"
ANNA_PERSONAL = ("anna@example.de", "Annamann", "Geheimweg", ANNA_IBAN)


def _anna() -> tuple[QuotaApplication, QuotaApplication]:
    """Anna with two vehicles: her billing data (name, street, her own IBAN) on both."""
    owner = UserFactory.create(username=ANNA["email"], **ANNA)
    billing = {
        "client__first_name": "Anna",
        "client__last_name": "Annamann",
        "client__account_name": "Anna Annamann",
        "client__street_name": "Geheimweg",
        "client__account_iban": ANNA_IBAN,
    }
    return to_pay(registration__owner=owner, **billing), to_pay(registration__owner=owner, **billing)


def _erase_by_mail(admin: Client) -> Any:
    return post(
        admin, API + "privacy/erasure/", {"email": ANNA["email"], "reference": "Brief vom 3. November"}
    )


def _sepa_transactions(response: Any) -> list[Any]:
    root = ET.fromstring(response.content)  # noqa: S314 - our own server's file
    return root.findall(".//p:CdtTrfTxInf", {"p": NS["09"]})


def test_a_paid_owner_is_erased_by_mail_and_the_batches_keep_the_items_pseudonymised(
    autohaus: Partner, admin: Client
) -> None:
    # given: Anna paid in a settled batch (with a returned transfer whose reason names her),
    # and her second vehicle waiting in a NEW batch beside Bert's
    paid, waiting = _anna()
    bert_paid, bert_waiting = to_pay(), to_pay()
    settled = _batch(admin, paid, bert_paid)
    assert post(admin, f"{BATCHES}{settled['id']}/mark_paid/").status_code == 200
    hers = next(i for i in settled["items"] if i["application"]["id"] == paid.pk)
    returned = post(
        admin,
        f"{BATCHES}{settled['id']}/items/{hers['id']}/fail/",
        {"reason": "Rückläufer: Konto von Anna Annamann erloschen"},
    )
    assert returned.status_code == 200, returned.content
    new = _batch(admin, waiting, bert_waiting)
    totals_before = admin.get(f"{BATCHES}{settled['id']}/", HTTP_HOST=HOST).json()["totals"]

    # when: a partner admin erases her on a request by mail
    preview = post(admin, API + "privacy/erasure/preview/", {"email": ANNA["email"]})
    erased = _erase_by_mail(admin)

    # then: done, and nothing of her is left in any table of the partner's schema
    assert preview.status_code == 200 and preview.json()["settlement_items_kept"] == 2
    assert erased.status_code == 200, erased.content
    counts = erased.json()["counts"]
    assert counts["settlement items kept pseudonymised"] == 2
    assert counts["settlement items not paid (erased)"] == 1
    rows = tables_text()
    for value in ANNA_PERSONAL:
        assert value not in rows, value
    assert "Anna Annamann" not in rows
    # the settled batch still lists her item, without name or application, with its amounts
    detail = admin.get(f"{BATCHES}{settled['id']}/", HTTP_HOST=HOST).json()
    item = next(i for i in detail["items"] if i["id"] == hers["id"])
    assert item["erased"] is True and item["payee_name"] == "" and item["owner_type"] is None
    assert item["application"] == {
        "id": None,
        "sequence": paid.registration.sequence,
        "legislation_year": paid.legislation_year,
        "status": None,
        "status_label": "Gelöscht",
    }
    assert (item["net"], item["gross"], item["status"]) == ("85.00", "85.00", "failed")
    assert item["iban_masked"] == "DE02 **** **** **** **20 51" and item["failure_reason"] == ""
    assert detail["totals"] == totals_before
    kept = SettlementItem.objects.get(pk=hers["id"])
    assert kept.iban == ANNA_IBAN and kept.pseudonym and kept.erased_at  # as paid, encrypted at rest
    assert RetainedPayout.objects.filter(pseudonym=kept.pseudonym).count() == 2
    # the NEW batch: her item is not paid; the SEPA file pays Bert only and says so
    waiting_detail = admin.get(f"{BATCHES}{new['id']}/", HTTP_HOST=HOST).json()
    not_paid = next(i for i in waiting_detail["items"] if i["erased"])
    assert not_paid["status"] == "failed" and "Art. 17 DSGVO" in not_paid["failure_reason"]
    assert waiting_detail["totals"]["sepa"] == {"count": 1, "net": "85.00", "vat": "0.00", "gross": "85.00"}
    xml = admin.get(f"{BATCHES}{new['id']}/sepa.xml", HTTP_HOST=HOST)
    assert xml.status_code == 200 and xml["X-Erased-Items"] == "1"
    transactions = _sepa_transactions(xml)
    assert len(transactions) == 1
    assert f"{bert_waiting.registration.sequence}/" in ET.tostring(transactions[0], encoding="unicode")
    # marking it paid pays Bert; her item stays failed
    paid_out = post(admin, f"{BATCHES}{new['id']}/mark_paid/")
    assert paid_out.status_code == 200, paid_out.content
    assert statuses(bert_waiting) == [QuotaStatus.PAID]
    assert SettlementItem.objects.get(pk=not_paid["id"]).status == SettlementItem.Status.FAILED


def test_an_erased_owners_item_cannot_get_a_new_iban_nor_be_paid(autohaus: Partner, admin: Client) -> None:
    # given: Anna's two vehicles, one paid in a settled batch, one alone in a NEW batch
    paid, waiting = _anna()
    settled = _batch(admin, paid)
    assert post(admin, f"{BATCHES}{settled['id']}/mark_paid/").status_code == 200
    alone = _batch(admin, waiting)
    assert _erase_by_mail(admin).status_code == 200

    # when
    xml = admin.get(f"{BATCHES}{alone['id']}/sepa.xml", HTTP_HOST=HOST)
    corrected = post(
        admin,
        f"{BATCHES}{alone['id']}/items/{alone['items'][0]['id']}/iban/",
        {"account_iban": "DE89370400440532013000", "account_name": "Anna Annamann"},
    )
    returned = post(
        admin, f"{BATCHES}{settled['id']}/items/{settled['items'][0]['id']}/fail/", {"reason": "AC04"}
    )

    # then: no file (nothing to pay to anyone), no new IBAN; a returned transfer is still recorded
    assert xml.status_code == 400 and xml.json()["error_code"] == "SETTLE012"
    assert xml.json()["erased_items"] == 1 and "Art. 17 DSGVO" in xml.json()["detail"]
    assert corrected.status_code == 400 and corrected.json()["error_code"] == "SETTLE012"
    assert corrected.json()["detail"].startswith("Die Daten dieses Halters wurden gelöscht")
    assert "Anna Annamann" not in tables_text()
    assert returned.status_code == 200, returned.content
    assert returned.json()["status"] == "failed" and returned.json()["erased"] is True
