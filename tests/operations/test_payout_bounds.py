"""The platform's bounds of a payout per vehicle, per year and class (issue 46,
common.payout_bounds): a single deal's price or a fee row outside them is refused, and a batch
pays no vehicle beyond its class's ceiling (before, up to 99,999,999.99 EUR was accepted)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from common.partner_config import ConfigErrors, PartnerConfig, config_validate
from common.payout_bounds import payout_max
from operations.models import SingleDeal
from quota.models import QuotaStatus
from tenants.models import Partner
from tests.factories import ApplicationFactory
from tests.operations.conftest import API, HOST, SessionFactory

pytestmark = pytest.mark.django_db
YEAR = timezone.localdate().year


def post(client: Client, path: str, body: dict[str, Any]) -> Any:
    return client.post(path, body, content_type="application/json", HTTP_HOST=HOST)


def test_a_single_deal_price_outside_the_platforms_bounds_is_refused(
    autohaus: Partner, session: SessionFactory
) -> None:
    back_office = session("back_office")
    deal = {"name": "Flotte", "legislation_years": [YEAR]}

    absurd = post(back_office, API + "single_deals/", {**deal, "price_net": "99999999.99"})
    above = post(back_office, API + "single_deals/", {**deal, "price_net": "40000.01"})
    nothing = post(back_office, API + "single_deals/", {**deal, "price_net": "0"})
    fair = post(back_office, API + "single_deals/", {**deal, "price_net": "95.00"})
    raised = back_office.patch(
        f"{API}single_deals/{fair.json()['id']}/",
        {"price_net": "85000"},
        content_type="application/json",
        HTTP_HOST=HOST,
    )

    for refused in (absurd, above, nothing, raised):
        assert refused.status_code == 400, refused.content
        assert refused.json()["price_net"]["error_code"] == "OPS013"
    assert "höchstens 40.000,00 €" in absurd.json()["price_net"]["message"]
    assert fair.status_code == 201
    assert SingleDeal.objects.get().price_net == Decimal("95.00")


def test_a_fee_row_outside_the_bounds_is_refused_when_the_configuration_is_saved() -> None:
    def fees(*rows: tuple[str, str]) -> dict[str, Any]:
        return {"fees": [{"legislation_year": YEAR, "vehicle_class": c, "client_fee": f} for c, f in rows]}

    with pytest.raises(ConfigErrors) as too_high:
        config_validate(fees(("M1", "85000.00")))
    with pytest.raises(ConfigErrors) as zero:
        config_validate(fees(("N1", "0")))
    bus = config_validate(fees(("M1", "1000.00"), ("M3", "30000.00")))
    # a configuration stored before the bounds is still read (and fixed at its next save)
    stored = PartnerConfig.model_validate(fees(("M1", "85000.00")))

    assert "fees.0" in too_high.value.errors and "1.000,00 € je Fahrzeug der Klasse M1" in str(
        too_high.value.errors
    )
    assert "fees.0" in zero.value.errors
    assert [row.client_fee for row in bus.fees] == [Decimal("1000.00"), Decimal("30000.00")]
    assert stored.fees[0].client_fee == Decimal("85000.00")
    assert payout_max(YEAR, "L3e") == payout_max(YEAR, "L3E") == Decimal("500.00")


def test_a_batch_pays_no_vehicle_beyond_its_classs_ceiling(autohaus: Partner, admin: Client) -> None:
    # given: a deal of 5,000 EUR (within a truck's bound) on a car and on a truck
    deal = SingleDeal.objects.create(name="Lkw", deal_key="lkw-1", price_net=Decimal("5000.00"))
    car = ApplicationFactory.create(status=QuotaStatus.TO_PAY, single_deal=deal)
    truck = ApplicationFactory.create(
        status=QuotaStatus.TO_PAY, single_deal=deal, registration__vehicle_class="N2"
    )

    created = post(admin, API + "settlement_batches/", {"ids": [car.pk, truck.pk]})

    assert created.status_code == 201, created.content
    body = created.json()
    assert [i["application"]["id"] for i in body["items"]] == [truck.pk]
    assert body["skipped"][0]["id"] == car.pk
    assert "Klasse M1" in body["skipped"][0]["detail"] and "1.000,00 €" in body["skipped"][0]["detail"]


def test_a_deal_is_not_assigned_where_its_price_exceeds_the_vehicles_class_ceiling(
    autohaus: Partner, session: SessionFactory
) -> None:
    # given: a deal of 5,000 EUR per vehicle (within a truck's bound, above a car's 1,000 EUR)
    back_office = session("back_office")
    deal = SingleDeal.objects.create(
        name="Lkw", deal_key="lkw-2", price_net=Decimal("5000.00"), legislation_years=[YEAR]
    )
    car = ApplicationFactory.create(status=QuotaStatus.ENTERED, legislation_year=YEAR)
    truck = ApplicationFactory.create(
        status=QuotaStatus.ENTERED, legislation_year=YEAR, registration__vehicle_class="N2"
    )
    moves = API + "quota_applications/moves/"

    # when: the back office assigns it to both, then to the truck alone
    both = post(back_office, moves, {"ids": [truck.pk, car.pk], "single_deal": deal.pk})
    alone = post(back_office, moves, {"ids": [truck.pk], "single_deal": deal.pk})

    # then: the pair is refused whole with a 400 naming the car, the truck alone takes it
    assert both.status_code == 400, both.content
    refused = both.json()["single_deal"]
    assert refused["error_code"] == "DEAL004"
    assert refused["details"]["ids"] == [car.pk]
    assert refused["message"] == (
        "Der Preis des Einzelvertrags (5.000,00 €) liegt über der Grenze der Plattform für die "
        f"Fahrzeugklasse M1 im Quotenjahr {YEAR}: höchstens 1.000,00 € je Fahrzeug."
    )
    assert alone.status_code == 200
    assert [(r["id"], r["ok"]) for r in alone.json()["results"]] == [(truck.pk, True)]
    car.refresh_from_db()
    truck.refresh_from_db()
    assert (car.single_deal_id, truck.single_deal_id) == (None, deal.pk)


def test_the_flow_leaves_out_a_deal_above_the_vehicles_class_ceiling() -> None:
    from operations.attribution import DEAL_CEILING, single_deal_refusal

    deal = SingleDeal(name="Lkw", deal_key="lkw-3", price_net=Decimal("5000.00"), legislation_years=[YEAR])
    car = single_deal_refusal(deal, year=YEAR, registration_id=0, vehicle_class="M1")
    truck = single_deal_refusal(deal, year=YEAR, registration_id=0, vehicle_class="N2")

    assert car is not None and car[0] == DEAL_CEILING
    assert truck is None
