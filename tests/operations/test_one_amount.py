"""One amount everywhere (issue 46): the portal card, the partner's list and detail, the
dashboard and the SEPA file show the same figure for the same owner: a private owner the net
without VAT (she sells without it), a VAT-liable business the net plus 19 %, a small business
(§ 19 UStG) the net."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest
from django.test import Client

from accounts.tokens import tokens_issue
from quota.models import QuotaApplication, QuotaStatus
from tenants.models import Partner
from tests.factories import ApplicationFactory
from tests.operations.conftest import API, HOST

pytestmark = pytest.mark.django_db
NS = {"p": "urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"}
IBANS = {
    "private": "DE89370400440532013000",
    "business": "DE02120300000000202051",
    "small": "FR1420041010050500013M02606",
}
EXPECTED = {"private": "85.00", "business": "101.15", "small": "85.00"}


def owners() -> dict[str, QuotaApplication]:
    """Three owners, one M1 application each, released for payout (fee table: 85.00, 19 %)."""
    return {
        "private": ApplicationFactory.create(status=QuotaStatus.TO_PAY, client__account_iban=IBANS["private"]),
        "business": ApplicationFactory.create(
            status=QuotaStatus.TO_PAY, client__account_iban=IBANS["business"],
            client__vehicle_owner_type="business", client__is_vat_mandatory=True,
            client__name_of_business="Flotte GmbH",
        ),
        "small": ApplicationFactory.create(
            status=QuotaStatus.TO_PAY, client__account_iban=IBANS["small"],
            client__vehicle_owner_type="business", client__is_vat_mandatory=False,
            client__name_of_business="Klein GbR",
        ),
    }  # fmt: skip


def card(application: QuotaApplication, partner: Partner) -> dict[str, Any]:
    tokens = tokens_issue(user=application.registration.owner, partner=partner)
    response = Client().get(
        "/api/end_user_portal/quota_applications/",
        HTTP_HOST=HOST,
        HTTP_AUTHORIZATION=f"Bearer {tokens['access']}",
    )
    assert response.status_code == 200, response.content
    return response.json()["results"][0]  # type: ignore[no-any-return]


def card_amount(item: dict[str, Any]) -> str:
    """What the portal's card shows (web/src/portal/components/registration-card.tsx)."""
    if item["display_vat"] and item["vat_details"]:
        return item["vat_details"]["client_fee_after_vat"]  # type: ignore[no-any-return]
    return item["client_fee"]  # type: ignore[no-any-return]


def test_the_card_the_list_the_dashboard_and_the_sepa_file_show_one_amount_per_owner(
    autohaus: Partner, admin: Client
) -> None:
    # given
    made = owners()

    # when: each place is asked
    cards = {who: card(application, autohaus) for who, application in made.items()}
    listed = {
        row["id"]: row["fee_gross"]
        for row in admin.get(API + "quota_applications/", HTTP_HOST=HOST).json()["results"]
    }
    details = {
        who: admin.get(f"{API}quota_applications/{a.pk}/", HTTP_HOST=HOST).json()["fee_gross"]
        for who, a in made.items()
    }
    dashboard = admin.get(API + "stats/", HTTP_HOST=HOST).json()["payouts"]
    batch = admin.post(
        API + "settlement_batches/",
        {"ids": [a.pk for a in made.values()]},
        content_type="application/json",
        HTTP_HOST=HOST,
    ).json()
    xml = admin.get(f"{API}settlement_batches/{batch['id']}/sepa.xml", HTTP_HOST=HOST)
    root = ET.fromstring(xml.content)  # noqa: S314 - our own server's file
    paid = {
        tx.find("p:CdtrAcct/p:Id/p:IBAN", NS).text: tx.find("p:Amt/p:InstdAmt", NS).text  # type: ignore[union-attr]
        for tx in root.findall(".//p:CdtTrfTxInf", NS)
    }

    # then: the same figure for the same owner everywhere
    for who, application in made.items():
        assert card_amount(cards[who]) == EXPECTED[who], who
        assert listed[application.pk] == EXPECTED[who], who
        assert details[who] == EXPECTED[who], who
        assert paid[IBANS[who]] == EXPECTED[who], who
        item = next(i for i in batch["items"] if i["application"]["id"] == application.pk)
        assert item["gross"] == EXPECTED[who], who
    assert cards["private"]["vat_details"] is None and cards["private"]["client_fee"] == "85.00"
    assert cards["business"]["vat_details"] == {
        "client_fee_after_vat": "101.15",
        "vat_percentage": "19",
        "vat_amount": "16.15",
    }
    assert dashboard["owed_gross"] == "271.15"  # 85.00 + 101.15 + 85.00


def test_a_single_deals_price_is_paid_with_vat_only_to_a_vat_liable_business(
    autohaus: Partner, admin: Client
) -> None:
    from decimal import Decimal

    from operations.models import SingleDeal

    deal = SingleDeal.objects.create(name="Flotte", deal_key="flotte-1", price_net=Decimal("70.00"))
    made = owners()
    QuotaApplication.objects.filter(pk__in=[a.pk for a in made.values()]).update(single_deal=deal)

    cards = {who: card_amount(card(application, autohaus)) for who, application in made.items()}
    listed = {
        row["id"]: row["fee_gross"]
        for row in admin.get(API + "quota_applications/", HTTP_HOST=HOST).json()["results"]
    }
    dashboard = admin.get(API + "stats/", HTTP_HOST=HOST).json()["payouts"]

    assert cards == {"private": "70.00", "business": "83.30", "small": "70.00"}
    assert {who: listed[a.pk] for who, a in made.items()} == cards
    assert dashboard["owed_gross"] == "223.30"
