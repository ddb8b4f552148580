"""The partner area's sub-partner, single-deal and dashboard calls (docs/partner-api.md) over
HTTP with a staff session: CRUD with field errors, audit entries, roles, tenant isolation and
the dashboard's figures."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context

from accounts.models import LoginCode
from common.partner_config import PartnerConfig
from operations.models import SingleDeal, SubPartner
from quota.models import QuotaApplication, QuotaStatus
from quota.services import quota_application_move
from staff.models import AuditEntry
from tenants.models import Partner
from tests.factories import ApplicationFactory
from tests.partner_staff import partner_session, staff_member

pytestmark = pytest.mark.django_db
HOST = "stadtwerk.localhost"
OTHER_HOST = "autohaus.localhost"
API = "/api/partner/"
YEAR = timezone.localdate().year


def session(subdomain: str, role: str) -> Client:
    member, password = staff_member(Partner.objects.get(subdomain=subdomain), role=role)
    return partner_session(Client(enforce_csrf_checks=True), f"{subdomain}.localhost", member, password)


@pytest.fixture
def admin() -> Client:
    return session("stadtwerk", "partner_admin")


@pytest.fixture
def back_office() -> Client:
    return session("stadtwerk", "back_office")


@pytest.fixture
def viewer() -> Client:
    return session("stadtwerk", "viewer")


def call(client: Client, method: str, path: str, body: dict[str, Any] | None = None, host: str = HOST) -> Any:
    return getattr(client, method)(API + path, body, content_type="application/json", HTTP_HOST=host)


def audit(action: str) -> list[AuditEntry]:
    with schema_context("p_stadtwerk"):
        return list(AuditEntry.objects.filter(action=action).order_by("pk"))


def test_sub_partner_crud_with_audit(back_office: Client) -> None:
    created = call(
        back_office, "post", "sub_partners/",
        {"name": "Elektro Meier", "contact_email": "Info@Meier.example", "referral_key": "Meier-Ost",
         "fee_share_percent": "12.50"},
    )  # fmt: skip
    assert created.status_code == 201, created.content
    body = created.json()
    assert body == {
        "id": body["id"], "name": "Elektro Meier", "contact_name": "", "contact_email": "info@meier.example",
        "contact_phone": "", "referral_key": "meier-ost", "fee_share_percent": "12.50", "is_active": True,
        "application_count": 0, "created_at": body["created_at"],
    }  # fmt: skip
    generated = call(back_office, "post", "sub_partners/", {"name": "Autohaus Süd GmbH"}).json()
    assert generated["referral_key"].startswith("autohaus-sud-gmbh-")

    patched = call(back_office, "patch", f"sub_partners/{body['id']}/", {"contact_phone": "+49 30 1234"})
    listed = call(back_office, "get", "sub_partners/?q=meier")
    deleted = call(back_office, "delete", f"sub_partners/{generated['id']}/")

    assert patched.status_code == 200 and patched.json()["contact_phone"] == "+49 30 1234"
    assert listed.json()["count"] == 1 and listed.json()["results"][0]["id"] == body["id"]
    assert deleted.status_code == 204
    assert call(back_office, "get", f"sub_partners/{generated['id']}/").status_code == 404
    [create, _] = audit("sub_partner.create")
    assert create.object_id == str(body["id"]) and create.after["referral_key"] == "meier-ost"  # type: ignore[index]
    [update] = audit("sub_partner.update")
    assert (update.before, update.after) == ({"contact_phone": ""}, {"contact_phone": "+49 30 1234"})
    [delete] = audit("sub_partner.delete")
    assert delete.before["name"] == "Autohaus Süd GmbH" and delete.after is None  # type: ignore[index]


def test_a_sub_partner_with_applications_is_deactivated_not_deleted(back_office: Client) -> None:
    with schema_context("p_stadtwerk"):
        meier = SubPartner.objects.create(name="Meier", referral_key="meier")
        ApplicationFactory.create_batch(2, sub_partner=meier)

    response = call(back_office, "delete", f"sub_partners/{meier.pk}/")

    assert response.status_code == 200
    assert response.json()["is_active"] is False and response.json()["application_count"] == 2
    assert [(e.before, e.after) for e in audit("sub_partner.deactivate")] == [
        ({"is_active": True}, {"is_active": False})
    ]


@pytest.mark.parametrize(
    ("body", "field", "code"),
    [
        ({"name": " "}, "name", "OPS001"),
        ({"name": "X", "referral_key": "a b"}, "referral_key", "OPS002"),
        ({"name": "X", "referral_key": "ab"}, "referral_key", "OPS002"),
        ({"name": "X", "referral_key": "TAKEN"}, "referral_key", "OPS003"),
        ({"name": "X", "contact_email": "kein-at"}, "contact_email", "OPS004"),
        ({"name": "X", "fee_share_percent": "101"}, "fee_share_percent", "OPS005"),
        ({"name": "X", "fee_share_percent": "1.005"}, "fee_share_percent", "OPS005"),
        ({"name": "X", "fee_share_percent": "zehn"}, "fee_share_percent", "OPS005"),
    ],
)
def test_sub_partner_field_errors(admin: Client, body: dict[str, Any], field: str, code: str) -> None:
    with schema_context("p_stadtwerk"):
        SubPartner.objects.create(name="Taken", referral_key="taken")

    response = call(admin, "post", "sub_partners/", body)

    assert response.status_code == 400
    assert response.json()[field]["error_code"] == code and response.json()[field]["message"]
    with schema_context("p_stadtwerk"):
        assert SubPartner.objects.count() == 1
    english = admin.post(
        API + "sub_partners/",
        body,
        content_type="application/json",
        HTTP_HOST=HOST,
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert english.json()[field]["message"] != response.json()[field]["message"]


def test_single_deal_crud_with_gross_price_and_vehicles_used(admin: Client) -> None:
    created = call(
        admin, "post", "single_deals/",
        {"name": "Flotte Nord", "customer": "Taxi Nord GmbH", "price_net": "70.00",
         "legislation_years": [YEAR + 1, YEAR], "vehicle_cap": 50},
    )  # fmt: skip
    assert created.status_code == 201, created.content
    deal = created.json()
    assert deal["price_gross"] == "83.30" and deal["vat_percent"] == "19.00"
    assert deal["legislation_years"] == [YEAR, YEAR + 1] and deal["vehicles_used"] == 0
    with schema_context("p_stadtwerk"):
        first = ApplicationFactory.create(single_deal_id=deal["id"])
        ApplicationFactory.create(
            single_deal_id=deal["id"], registration=first.registration, legislation_year=YEAR + 1
        )
        ApplicationFactory.create(single_deal_id=deal["id"])

    shown = call(admin, "get", f"single_deals/{deal['id']}/").json()
    below = call(admin, "patch", f"single_deals/{deal['id']}/", {"vehicle_cap": 1})
    patched = call(admin, "patch", f"single_deals/{deal['id']}/", {"vat_percent": "7", "vehicle_cap": None})

    assert shown["vehicles_used"] == 2  # two vehicles, one of them for two years
    assert below.status_code == 400 and below.json()["vehicle_cap"]["error_code"] == "OPS009"
    assert "2 Fahrzeuge" in below.json()["vehicle_cap"]["message"]
    assert patched.json()["price_gross"] == "74.90" and patched.json()["vehicle_cap"] is None
    [update] = audit("single_deal.update")
    assert update.before == {"vat_percent": "19.00", "vehicle_cap": 50}
    assert update.after == {"vat_percent": "7.00", "vehicle_cap": None}
    deactivated = call(admin, "delete", f"single_deals/{deal['id']}/")
    assert deactivated.status_code == 200 and deactivated.json()["is_active"] is False
    assert call(admin, "get", "single_deals/").json()["count"] == 1


@pytest.mark.parametrize(
    ("body", "field", "code"),
    [
        ({"price_net": "10", "legislation_years": [YEAR]}, "name", "OPS001"),
        ({"name": "D", "legislation_years": [YEAR]}, "price_net", "OPS006"),
        ({"name": "D", "price_net": "-1", "legislation_years": [YEAR]}, "price_net", "OPS006"),
        ({"name": "D", "price_net": "1.234", "legislation_years": [YEAR]}, "price_net", "OPS006"),
        ({"name": "D", "price_net": "10"}, "legislation_years", "OPS007"),
        ({"name": "D", "price_net": "10", "legislation_years": [1999]}, "legislation_years", "OPS007"),
        (
            {"name": "D", "price_net": "10", "legislation_years": [YEAR], "vehicle_cap": 0},
            "vehicle_cap",
            "OPS008",
        ),
        (
            {"name": "D", "price_net": "10", "legislation_years": [YEAR], "deal_key": "x!"},
            "deal_key",
            "OPS002",
        ),
    ],
)
def test_single_deal_field_errors(back_office: Client, body: dict[str, Any], field: str, code: str) -> None:
    response = call(back_office, "post", "single_deals/", body)
    assert response.status_code == 400, response.content
    assert response.json()[field]["error_code"] == code


def test_roles_viewer_reads_only(viewer: Client) -> None:
    with schema_context("p_stadtwerk"):
        meier = SubPartner.objects.create(name="Meier", referral_key="meier")
        deal = SingleDeal.objects.create(
            name="D", deal_key="d-1", price_net=Decimal(1), legislation_years=[YEAR]
        )
    reads = [
        call(viewer, "get", path)
        for path in (
            "sub_partners/",
            f"sub_partners/{meier.pk}/",
            "single_deals/",
            f"single_deals/{deal.pk}/",
            "stats/",
        )
    ]
    writes = [
        call(viewer, "post", "sub_partners/", {"name": "X"}),
        call(viewer, "patch", f"sub_partners/{meier.pk}/", {"name": "X"}),
        call(viewer, "delete", f"sub_partners/{meier.pk}/"),
        call(viewer, "post", "single_deals/", {"name": "X"}),
        call(viewer, "patch", f"single_deals/{deal.pk}/", {"name": "X"}),
        call(viewer, "delete", f"single_deals/{deal.pk}/"),
    ]
    assert [r.status_code for r in reads] == [200] * 5
    assert [r.status_code for r in writes] == [403] * 6
    assert {r.json()["detail"] for r in writes} == {"Dafür fehlt Ihnen die Berechtigung."}
    with schema_context("p_stadtwerk"):
        assert SubPartner.objects.get().name == "Meier" and SingleDeal.objects.get().name == "D"


def test_without_a_session_every_call_is_401(client: Client) -> None:
    for method, path in [("get", "sub_partners/"), ("post", "sub_partners/"), ("get", "single_deals/"),
                         ("get", "stats/"), ("delete", "single_deals/1/")]:  # fmt: skip
        response = call(client, method, path)
        assert response.status_code == 401, (method, path)


def test_partner_a_ids_on_partner_b_are_404(admin: Client) -> None:
    with schema_context("p_stadtwerk"):
        meier = SubPartner.objects.create(id=900_000_001, name="Meier", referral_key="meier")
        deal = SingleDeal.objects.create(
            id=900_000_001, name="D", deal_key="d-1", price_net=Decimal(1), legislation_years=[YEAR]
        )
    other = session("autohaus", "partner_admin")

    for method in ("get", "patch", "delete"):
        for path in (f"sub_partners/{meier.pk}/", f"single_deals/{deal.pk}/"):
            response = call(
                other, method, path, {"name": "X"} if method == "patch" else None, host=OTHER_HOST
            )
            assert response.status_code == 404, (method, path)
    assert call(other, "get", "sub_partners/", host=OTHER_HOST).json()["count"] == 0
    with schema_context("p_stadtwerk"):
        assert SubPartner.objects.get().name == "Meier"


def test_the_dashboard_figures(viewer: Client) -> None:
    now = timezone.now()
    with schema_context("p_stadtwerk"):
        meier = SubPartner.objects.create(name="Meier", referral_key="meier", fee_share_percent=Decimal(10))
        deal = SingleDeal.objects.create(
            name="D", deal_key="d-1", price_net=Decimal(100), legislation_years=[YEAR]
        )
        # private owners, paid without VAT (issue 46): the fee table's 85.00 and the deal's 100.00
        paid = ApplicationFactory.create(sub_partner=meier)
        owed = ApplicationFactory.create(sub_partner=meier, single_deal=deal)
        rejected = ApplicationFactory.create(sub_partner=meier)
        old = ApplicationFactory.create()
        QuotaApplication.objects.filter(pk=old.pk).update(created_at=now - timedelta(days=3))
        for status in (
            "qa_entered",
            "qa_picked_up",
            "qa_sent_to_uba",
            "qa_accepted",
            "qa_to_pay",
            "qa_to_settle",
            "qa_paid",
        ):
            quota_application_move(application=paid, status=status, actor=None)
        for status in ("qa_entered", "qa_picked_up", "qa_sent_to_uba", "qa_accepted"):
            quota_application_move(application=owed, status=status, actor=None)
        quota_application_move(
            application=rejected, status=QuotaStatus.MANUALLY_REJECTED, actor=None, reason="x"
        )
        # the flow's earlier steps: codes asked for by three people, used by two
        for index, used in enumerate([True, True, False]):
            LoginCode.objects.create(
                email=f"f{index}@x.de", code_hash="x", expires_at=now, used_at=now if used else None
            )

    body = call(viewer, "get", "stats/").json()
    today = timezone.localdate()

    assert body["per_day"] == [
        {"date": (today - timedelta(days=3)).isoformat(), "count": 1},
        {"date": today.isoformat(), "count": 3},
    ]
    # each step counts everyone who got at least that far (issue 49): the four owners locked
    # their billing data without a login code of their own, so they count as started too
    assert body["funnel"] == {"flow_started": 7, "code_verified": 6, "scan_accepted": 4, "billing_locked": 4}
    assert {(s["status"], s["count"]) for s in body["status_distribution"]} == {
        ("qa_paid", 1), ("qa_accepted", 1), ("qa_manually_rejected", 1), ("qa_created", 1),
    }  # fmt: skip
    assert {"status": "qa_paid", "label": "Ausgezahlt", "count": 1} in body["status_distribution"]
    assert body["payouts"] == {"owed_gross": "100.00", "paid_gross": "85.00"}
    # 10 % of the paid and the owed application's fees; the rejected one does not count
    assert body["per_sub_partner"] == [
        {
            "id": meier.pk,
            "name": "Meier",
            "count": 3,
            "fee_share_percent": "10.00",
            "fee_share_gross": "18.50",
        }
    ]
    recent = call(viewer, "get", f"stats/?created_from={today.isoformat()}&sub_partner={meier.pk}").json()
    assert recent["per_day"] == [{"date": today.isoformat(), "count": 3}]
    assert recent["funnel"] == {
        "flow_started": None,
        "code_verified": None,
        "scan_accepted": None,
        "billing_locked": 3,
    }


def test_the_dashboard_counts_local_days_and_prices_each_vehicle_class(viewer: Client) -> None:
    """Days are Europe/Berlin's (counted per UTC hour, summed per local day), in summer and in
    winter time; an N1 application is priced by the fee table's N1 row, an unread class as M1."""
    berlin = timezone.get_current_timezone()
    year = YEAR - 1
    moments = {
        "late in summer": datetime(year, 7, 1, 23, 59, 59, 900000, tzinfo=berlin),  # 21:59:59.9 UTC
        "early in summer": datetime(year, 7, 2, 0, 0, tzinfo=berlin),
        "late in winter": datetime(year, 12, 1, 23, 30, tzinfo=berlin),
        "early in winter": datetime(year, 12, 2, 0, 30, tzinfo=berlin),
    }
    with schema_context("p_stadtwerk"):
        made = {}
        for name, moment in moments.items():
            made[name] = ApplicationFactory.create()
            QuotaApplication.objects.filter(pk=made[name].pk).update(created_at=moment)
        made["late in winter"].registration.vehicle_class = "N1"
        made["late in winter"].registration.save(update_fields=["vehicle_class"])
        made["early in winter"].registration.vehicle_class = ""
        made["early in winter"].registration.save(update_fields=["vehicle_class"])
        for application in (made["late in winter"], made["early in winter"]):
            for status in ("qa_entered", "qa_picked_up", "qa_sent_to_uba", "qa_accepted"):
                quota_application_move(application=application, status=status, actor=None)
        config = PartnerConfig.model_validate(Partner.objects.get(subdomain="stadtwerk").config)
        fees = {(row.legislation_year, row.vehicle_class): row for row in config.fees}

    body = call(viewer, "get", f"stats/?created_from={year}-01-01&created_to={year}-12-31").json()

    assert body["per_day"] == [
        {"date": f"{year}-07-01", "count": 1},
        {"date": f"{year}-07-02", "count": 1},
        {"date": f"{year}-12-01", "count": 1},
        {"date": f"{year}-12-02", "count": 1},
    ]
    year_of = made["late in winter"].legislation_year
    gross = Decimal(0)
    for vehicle_class in ("N1", "M1"):
        gross += fees[(year_of, vehicle_class)].client_fee  # private owners: the net (issue 46)
    assert fees[(year_of, "N1")].client_fee != fees[(year_of, "M1")].client_fee
    assert body["payouts"]["owed_gross"] == str(gross)
