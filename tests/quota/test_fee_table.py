"""The partner admin's fee table in the partner area (issue 49), over HTTP through the real
middleware: the platform's bounds, versions with who and when, the price an application keeps,
roles, the audit entry, the warning's data and tenant isolation."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context
from freezegun import freeze_time

from operations.models import SingleDeal
from quota.models import FeeTableVersion, QuotaApplication, QuotaStatus
from staff.models import AuditEntry
from tenants.directory import directory
from tenants.models import Partner
from tests.factories import ApplicationFactory
from tests.partner_staff import partner_session, staff_member

HOST = "autohaus.localhost"
OTHER_HOST = "stadtwerk.localhost"
FEES = "/api/partner/fees/"
YEAR = timezone.localdate().year
PAYOUT = {"name": "Autohaus Sonnenschein GmbH", "iban": "DE89 3704 0044 0532 0130 00", "bic": "COBADEFFXXX"}


def row(
    vehicle_class: str = "M1", private: str = "85.00", business: str = "80.00", **extra: Any
) -> dict[str, Any]:
    return {
        "legislation_year": YEAR,
        "vehicle_class": vehicle_class,
        "private_payout": private,
        "business_net": business,
        "business_vat": "plus_vat",
        "vat_percentage": "19.00",
        **extra,
    }


@pytest.fixture
def autohaus(db: None) -> Iterator[Partner]:
    """The demo dealer as the issue found it: no prices of its own, one platform row for N1."""
    partner = Partner.objects.get(subdomain="autohaus")
    partner.config = {
        **partner.config,
        "fees": [
            {"legislation_year": YEAR, "vehicle_class": "N1", "client_fee": "120.00", "vat_percentage": "19"}
        ],
        "display_vat": True,
        "payout_account": PAYOUT,
    }
    partner.save()
    directory.clear()  # the next request reads the partner again
    with schema_context(partner.schema_name):
        yield Partner.objects.get(pk=partner.pk)


SessionFactory = Callable[..., Client]


@pytest.fixture
def session(autohaus: Partner) -> SessionFactory:
    def make(role: str = "partner_admin", host: str = HOST) -> Client:
        partner = autohaus if host == HOST else Partner.objects.get(subdomain="stadtwerk")
        member, password = staff_member(partner, role=role)
        client = partner_session(Client(enforce_csrf_checks=True), host, member, password)
        client.email = member.user.email  # type: ignore[attr-defined]
        return client

    return make


@pytest.fixture
def admin(session: SessionFactory) -> Client:
    return session("partner_admin")


def put(client: Client, rows: list[dict[str, Any]], base: int, host: str = HOST, note: str = "") -> Any:
    body = {"base_version": base, "rows": rows, "note": note}
    return client.put(FEES, body, content_type="application/json", HTTP_HOST=host)


def to_pay(**kwargs: Any) -> QuotaApplication:
    return ApplicationFactory.create(status=QuotaStatus.TO_PAY, **kwargs)


def test_the_partner_admin_saves_prices_as_a_new_version_with_who_and_when(admin: Client) -> None:
    # given: the platform's set-up (config.fees) is version 0
    first = admin.get(FEES, HTTP_HOST=HOST)
    assert first.status_code == 200, first.content
    assert first.json()["version"] == 0 and first.json()["saved"] is None
    assert first.json()["rows"] == [row("N1", "120.00", "120.00")]
    assert {
        "legislation_year": YEAR,
        "vehicle_class": "M1",
        "min_exclusive": "0.00",
        "max": "1000.00",
    } in first.json()["bounds"]

    # when
    saved = put(
        admin, [row("N1", "130.00", "125.00", business_vat="net_only"), row("M1")], 0, note="Preise 2026"
    )

    # then: version 1 by this admin; the set-up kept as version 0
    assert saved.status_code == 200, saved.content
    body = saved.json()
    assert body["version"] == 1 and body["saved"]["note"] == "Preise 2026"
    assert admin.email in body["saved"]["created_by"]  # type: ignore[attr-defined]
    assert [r["vehicle_class"] for r in body["rows"]] == ["M1", "N1"]
    assert body["rows"][1]["business_vat"] == "net_only"
    versions = admin.get(FEES + "versions/", HTTP_HOST=HOST).json()
    assert [v["number"] for v in versions] == [1, 0]
    assert versions[1]["valid_from"] is None and versions[1]["rows"] == [row("N1", "120.00", "120.00")]
    assert versions[0]["valid_from"] is not None
    entry = AuditEntry.objects.get(action="fee_table.update")
    assert entry.actor is not None and entry.actor.email == admin.email  # type: ignore[attr-defined]
    assert entry.before == {"version": 0, "rows": [row("N1", "120.00", "120.00")]}
    assert entry.after is not None and entry.after["version"] == 1 and len(entry.after["rows"]) == 2
    assert (entry.object_type, entry.object_id) == (
        "quota.feetableversion",
        str(FeeTableVersion.objects.get(number=1).pk),
    )

    # and: the same table again is no new version
    again = put(admin, body["rows"], 1)
    assert again.status_code == 200 and again.json()["version"] == 1
    assert (
        FeeTableVersion.objects.count() == 2
        and AuditEntry.objects.filter(action="fee_table.update").count() == 1
    )


def test_a_price_outside_the_platforms_bounds_is_a_400_naming_the_bound(admin: Client, settings: Any) -> None:
    too_high = put(admin, [row(private="85000.00")], 0)
    zero = put(admin, [row("N1", "120.00", "0")], 0)
    settings.PAYOUT_MAX_PER_YEAR = {YEAR: {"M1": "90"}}
    above_this_years = put(admin, [row(private="95.00", business="80.00")], 0, note="x")

    assert too_high.status_code == 400, too_high.content
    error = too_high.json()["fees"]
    assert error["error_code"] == "FEE002"
    assert error["details"]["max"] == "1000.00" and error["details"]["field"] == "private_payout"
    assert (error["details"]["row"], error["details"]["vehicle_class"]) == (1, "M1")
    assert "höchstens 1.000,00 € je Fahrzeug der Klasse M1" in error["message"]
    assert zero.status_code == 400 and zero.json()["fees"]["details"]["field"] == "business_net"
    assert above_this_years.status_code == 400
    assert "höchstens 90,00 €" in above_this_years.json()["fees"]["message"]
    # nothing written
    assert (
        not FeeTableVersion.objects.exists()
        and not AuditEntry.objects.filter(action="fee_table.update").exists()
    )


def test_a_stale_version_a_duplicate_and_an_unknown_class_are_refused(
    admin: Client, session: SessionFactory
) -> None:
    other_admin = session("partner_admin")
    assert put(other_admin, [row()], 0).status_code == 200

    stale = put(admin, [row(private="70.00")], 0)
    duplicate = put(admin, [row(), row(private="90.00")], 1)
    unknown = put(admin, [row("M2")], 1)

    assert stale.status_code == 409 and stale.json()["fees"]["error_code"] == "FEE004"
    assert stale.json()["fees"]["details"] == {"current": 1}
    assert duplicate.status_code == 400 and duplicate.json()["fees"]["error_code"] == "FEE003"
    assert unknown.status_code == 400 and unknown.json()["fees"]["error_code"] == "FEE001"
    assert list(FeeTableVersion.objects.values_list("number", flat=True)) == [0, 1]


@pytest.mark.parametrize("role", ["back_office", "viewer"])
def test_back_office_and_viewer_see_the_prices_but_only_the_partner_admin_edits(
    session: SessionFactory, role: str
) -> None:
    member = session(role)

    seen = member.get(FEES, HTTP_HOST=HOST)
    versions = member.get(FEES + "versions/", HTTP_HOST=HOST)
    refused = put(member, [row()], 0)

    assert seen.status_code == 200 and versions.status_code == 200
    assert refused.status_code == 403
    assert not FeeTableVersion.objects.exists()
    assert Client().get(FEES, HTTP_HOST=HOST).status_code == 401


def test_an_application_keeps_the_price_of_the_version_valid_when_it_was_priced(admin: Client) -> None:
    now = timezone.now()
    # given: applications from before the partner had any M1 price
    with freeze_time(now - datetime.timedelta(hours=2)):
        early = to_pay()
        early_van = to_pay(registration__vehicle_class="N1")
    # when: the first M1 price (version 1), then a higher one (version 2)
    assert put(admin, [row("N1", "120.00", "120.00"), row("M1", "80.00", "80.00")], 0).status_code == 200
    assert put(admin, [row("N1", "150.00", "150.00"), row("M1", "90.00", "90.00")], 1).status_code == 200
    with freeze_time(now + datetime.timedelta(hours=2)):
        late = to_pay()

    # then: the early car was priced by version 1 (the first with an M1 price); the van by the
    # platform's set-up valid when it was created; the late car by version 2
    def fee(application: QuotaApplication) -> str:
        response = admin.get(f"/api/partner/quota_applications/{application.pk}/", HTTP_HOST=HOST)
        assert response.status_code == 200, response.content
        return str(response.json()["fee_gross"])

    assert (fee(early), fee(early_van), fee(late)) == ("80.00", "120.00", "90.00")
    batch = admin.post(
        "/api/partner/settlement_batches/",
        {"ids": [early.pk, early_van.pk, late.pk]},
        content_type="application/json",
        HTTP_HOST=HOST,
    )
    assert batch.status_code == 201, batch.content
    paid = {item["application"]["id"]: item["net"] for item in batch.json()["items"]}
    assert paid == {early.pk: "80.00", early_van.pk: "120.00", late.pk: "90.00"}


def test_payable_applications_without_a_price_are_reported_until_priced(admin: Client) -> None:
    # given: three cars and an L3e to pay without a price, and what the warning leaves out
    for _ in range(3):
        to_pay()
    to_pay(registration__vehicle_class="L3e")
    to_pay(registration__vehicle_class="N1")  # the set-up prices N1
    deal = SingleDeal.objects.create(name="Flotte", deal_key="flotte", price_net=Decimal("70.00"))
    to_pay(single_deal=deal)
    ApplicationFactory.create(status=QuotaStatus.ENTERED)

    before = admin.get(FEES + "missing/", HTTP_HOST=HOST)
    assert before.status_code == 200
    assert before.json() == {
        "count": 4,
        "groups": [
            {"legislation_year": YEAR, "vehicle_class": "L3e", "count": 1},
            {"legislation_year": YEAR, "vehicle_class": "M1", "count": 3},
        ],
    }

    # when
    put(admin, [row("N1", "120.00", "120.00"), row("M1")], 0)

    # then
    after = admin.get(FEES, HTTP_HOST=HOST).json()["missing"]
    assert after == {"count": 1, "groups": [{"legislation_year": YEAR, "vehicle_class": "L3e", "count": 1}]}


def test_partner_b_sees_and_changes_nothing_of_a(admin: Client, session: SessionFactory) -> None:
    # given: autohaus's own table
    assert put(admin, [row(private="99.00")], 0).status_code == 200
    stadtwerk_admin = session("partner_admin", host=OTHER_HOST)

    # when
    theirs = stadtwerk_admin.get(FEES, HTTP_HOST=OTHER_HOST)
    their_versions = stadtwerk_admin.get(FEES + "versions/", HTTP_HOST=OTHER_HOST)
    crossing_read = admin.get(FEES, HTTP_HOST=OTHER_HOST)
    crossing_write = put(admin, [row(private="1.00")], 0, host=OTHER_HOST)
    their_save = put(stadtwerk_admin, [row(private="50.00")], 0, host=OTHER_HOST)

    # then
    assert theirs.status_code == 200 and theirs.json()["version"] == 0
    assert "99.00" not in theirs.content.decode()
    assert their_versions.json() == []
    assert crossing_read.status_code in (401, 403) and crossing_write.status_code in (401, 403)
    assert "99.00" not in crossing_read.content.decode()
    assert their_save.status_code == 200
    assert list(FeeTableVersion.objects.values_list("number", flat=True)) == [0, 1]
    assert FeeTableVersion.objects.get(number=1).rows[0]["private_payout"] == "99.00"
    with schema_context("p_stadtwerk"):
        assert FeeTableVersion.objects.get(number=1).rows[0]["private_payout"] == "50.00"


def test_a_partner_systems_write_key_reads_the_prices_and_never_saves_them(admin: Client) -> None:
    made = admin.post(
        "/api/partner/integrations/api_keys/",
        {"name": "Flottensystem", "scope": "write"},
        content_type="application/json",
        HTTP_HOST=HOST,
    )
    assert made.status_code == 201, made.content
    key = made.json()["key"]

    def call(method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        extra: dict[str, Any] = {"HTTP_HOST": HOST, "HTTP_X_API_KEY": key}
        if body is not None:
            extra.update(data=body, content_type="application/json")
        return getattr(Client(enforce_csrf_checks=True), method)(path, **extra)

    assert call("get", FEES).status_code == 200
    assert call("get", FEES + "missing/").status_code == 200
    assert call("put", FEES, {"base_version": 0, "rows": [row()], "note": ""}).status_code == 403
    assert not FeeTableVersion.objects.exists()
