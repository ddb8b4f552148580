"""Attribution through the real flow calls: `?ref=KEY` and `?deal=KEY`, kept by the web app
and sent with the billing data (`full_url_variable_string`), or the typed partner variable,
attach the sub-partner and the single deal to the applications that locking creates; the
owner's portal card then shows the deal's price instead of the fee table."""

from __future__ import annotations

import io
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client as HttpClient
from django.utils import timezone
from django_tenants.utils import schema_context

from accounts.mails import mail_secret_open
from accounts.models import LoginCode, User
from accounts.tokens import tokens_issue
from operations.models import SingleDeal, SubPartner
from quota.models import QuotaApplication
from registrations.models import BevRegistration
from tenants.models import Partner
from tests.billing.test_clients import VALID
from tests.fixtures.zlb.generate import zlb_document

pytestmark = pytest.mark.django_db
HOST = "stadtwerk.localhost"
YEAR = timezone.localdate().year
PORTAL = "/api/end_user_portal/quota_applications/"


@pytest.fixture(autouse=True)
def _in_stadtwerk(tmp_path: Any, settings: Any) -> Any:
    settings.MEDIA_ROOT = tmp_path
    with schema_context("p_stadtwerk"):
        yield


@pytest.fixture
def meier() -> SubPartner:
    return SubPartner.objects.create(name="Elektro Meier", referral_key="elektro-meier")


@pytest.fixture
def fleet() -> SingleDeal:
    return SingleDeal.objects.create(
        name="Flotte Taxi Nord", deal_key="taxi-nord", price_net=Decimal("70.00"),
        vat_percent=Decimal("19.00"), legislation_years=[YEAR], vehicle_cap=1,
    )  # fmt: skip


def post(client: HttpClient, path: str, payload: dict[str, Any], auth: dict[str, str] | None = None) -> Any:
    return client.post(path, payload, content_type="application/json", HTTP_HOST=HOST, headers=auth or {})


def flow(client: HttpClient, email: str, url_variables: str, **billing: Any) -> dict[str, str]:
    """The registration flow's calls from the e-mail code to the locked billing data."""
    sent = post(
        client,
        "/api/auth/registration/otp/",
        {"email": email, "partner": "stadtwerk", "verify_email_url": ""},
    )
    assert sent.status_code == 200, sent.content
    code = mail_secret_open(LoginCode.objects.filter(email=email).latest("created_at").sealed)
    tokens = post(client, "/api/auth/registration/otp/verify/", {"email": email, "otp_code": code}).json()
    auth = {"Authorization": f"Bearer {tokens['access']}"}
    scan, _ = zlb_document(7)
    form: dict[str, Any] = {
        "partner": "stadtwerk",
        "source": "",
        "registration_years": str(YEAR),
        "skip_classifier": "False",
    }
    form["zlb_scan"] = io.BytesIO(scan)
    form["zlb_scan"].name = "scan.jpg"
    uploaded = client.post("/api/bev_registrations/", form, HTTP_HOST=HOST, headers=auth)
    assert uploaded.status_code == 201, uploaded.content
    registration_id = uploaded.json()[0]["id"]
    assert (
        client.post(
            f"/api/bev_registrations/{registration_id}/lock/", HTTP_HOST=HOST, headers=auth
        ).status_code
        == 200
    )
    created = post(
        client, "/api/clients/", {**VALID, "full_url_variable_string": url_variables, **billing}, auth
    )
    assert created.status_code == 201, created.content
    locked = client.post(f"/api/clients/{created.json()['id']}/lock/", HTTP_HOST=HOST, headers=auth)
    assert locked.status_code == 200, locked.content
    return auth


def billed(
    client: HttpClient, owner: User, url_variables: str, *, sequence: int, **billing: Any
) -> dict[str, str]:
    """A completed registration, then the billing calls (submit and lock) with these variables."""
    BevRegistration.objects.create(
        owner=owner, sequence=sequence, registration_years=[YEAR], zlb_scan="p_stadtwerk/scans/x.jpg",
        resized_image="p_stadtwerk/scans/x-resized.jpg", original_content_type="image/jpeg", width=2000,
        height=1400, locked_at=timezone.now(),
    )  # fmt: skip
    tokens = tokens_issue(user=owner, partner=Partner.objects.get(subdomain="stadtwerk"))
    auth = {"Authorization": f"Bearer {tokens['access']}"}
    created = post(
        client, "/api/clients/", {**VALID, "full_url_variable_string": url_variables, **billing}, auth
    )
    assert created.status_code == 201, created.content
    assert (
        client.post(f"/api/clients/{created.json()['id']}/lock/", HTTP_HOST=HOST, headers=auth).status_code
        == 200
    )
    return auth


def card(client: HttpClient, auth: dict[str, str]) -> dict[str, Any]:
    results = client.get(PORTAL, HTTP_HOST=HOST, headers=auth).json()["results"]
    assert len(results) == 1
    return dict(results[0])


def test_a_flow_opened_with_ref_and_deal_is_attributed_and_the_card_shows_the_deal_price(
    client: HttpClient, meier: SubPartner, fleet: SingleDeal
) -> None:
    # when: an owner goes through the flow opened as /?campaign=herbst&ref=ELEKTRO-MEIER&deal=taxi-nord
    auth = flow(client, "fahrer@taxi-nord.example", "campaign=herbst&ref=ELEKTRO-MEIER&deal=taxi-nord")

    # then: the application belongs to the sub-partner and the deal
    application = QuotaApplication.objects.get(registration__owner__email="fahrer@taxi-nord.example")
    assert (application.sub_partner, application.single_deal) == (meier, fleet)
    # and: the portal card shows the deal's price instead of the fee table's 85.00; a private
    # owner is paid it without VAT (issue 46: the card promises what the batch pays)
    item = card(client, auth)
    assert item["client_fee"] == "70.00"
    assert item["vat_details"] is None


def test_a_deal_past_its_cap_or_outside_its_years_is_left_out_without_an_error(
    client: HttpClient, meier: SubPartner, fleet: SingleDeal
) -> None:
    first, second, third = (User.objects.create(username=f"o{i}@x.de", email=f"o{i}@x.de") for i in range(3))
    next_year = SingleDeal.objects.create(
        name="Nächstes Jahr", deal_key="naechstes", price_net=Decimal("60.00"), legislation_years=[YEAR + 1]
    )
    # given: the deal's only place is taken
    billed(client, first, "deal=taxi-nord&ref=elektro-meier", sequence=700001)

    # when: a second vehicle comes with the same deal, and a third with a deal for another year
    second_auth = billed(client, second, "deal=taxi-nord&ref=elektro-meier", sequence=700002)
    billed(client, third, f"deal={next_year.deal_key}", sequence=700003)

    # then: the flow went through; the second and third carry no deal, the sub-partner stays
    rows = {a.registration.owner: a for a in QuotaApplication.objects.select_related("registration__owner")}
    assert rows[first].single_deal == fleet
    assert (rows[second].single_deal, rows[second].sub_partner) == (None, meier)
    assert rows[third].single_deal is None and rows[third].sub_partner is None
    # and: the second owner's card shows the fee table (stadtwerk: 85.00 for M1 in 2026)
    assert card(client, second_auth)["client_fee"] == "85.00"


def test_the_typed_partner_variable_names_a_sub_partner_when_the_url_has_none(
    client: HttpClient, meier: SubPartner
) -> None:
    other = SubPartner.objects.create(name="Autohaus Süd", referral_key="ah-sued")
    typed, both, unknown, inactive = (
        User.objects.create(username=f"p{i}@x.de", email=f"p{i}@x.de") for i in range(4)
    )
    SubPartner.objects.create(name="Alt", referral_key="alt-partner", is_active=False)

    billed(client, typed, "campaign=x", sequence=700011, partner_variable="elektro-meier")
    billed(client, both, "ref=ah-sued", sequence=700012, partner_variable="elektro-meier")
    billed(client, unknown, "ref=gibt-es-nicht", sequence=700013)
    billed(client, inactive, "ref=alt-partner", sequence=700014)

    rows = {
        a.registration.owner: a.sub_partner
        for a in QuotaApplication.objects.select_related("registration__owner")
    }
    assert rows == {typed: meier, both: other, unknown: None, inactive: None}


def test_a_resubmit_keeps_the_sub_partner_and_the_deal_where_it_covers_the_year(
    client: HttpClient, meier: SubPartner
) -> None:
    deal = SingleDeal.objects.create(
        name="Zwei Jahre",
        deal_key="zwei-jahre",
        price_net=Decimal("50.00"),
        legislation_years=[YEAR, YEAR + 1],
    )
    owner = User.objects.create(username="r@x.de", email="r@x.de")
    auth = billed(client, owner, "ref=elektro-meier&deal=zwei-jahre", sequence=700021)
    first = QuotaApplication.objects.get()

    response = client.put(
        f"/api/end_user_portal/quota_applications/{first.pk}/duplicate_for_new_period/",
        f"period={YEAR + 1}", content_type="application/x-www-form-urlencoded", HTTP_HOST=HOST, headers=auth,
    )  # fmt: skip

    assert response.status_code == 201, response.content
    new = QuotaApplication.objects.get(legislation_year=YEAR + 1)
    assert (new.sub_partner, new.single_deal) == (meier, deal)
    assert response.json()["client_fee"] == "50.00"
