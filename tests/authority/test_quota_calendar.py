"""The quota-year calendar: seeded by its migration, kept in the platform admin, asked by the
configuration call (over HTTP, the clock frozen on both sides of each date)."""

from __future__ import annotations

import datetime

import pytest
from django.test import Client
from freezegun import freeze_time

from accounts.models import User
from common.partner_config import PartnerConfig
from tenants.models import Partner
from tenants.quota_years import QuotaYear, open_years, quota_year, year_closed_message
from tenants.services import partner_update
from tests.authority.calendar import day, law_calendar
from tests.staff_login import client_staff_login

pytestmark = pytest.mark.django_db
__all__ = ["law_calendar"]
PUBLIC = "localhost"


def flags(current: bool, following: bool) -> PartnerConfig:
    return PartnerConfig.model_validate(
        {"qa_create_choices": {"current_year": current, "next_year": following}}
    )


def test_the_migration_seeds_2025_to_2028_with_the_laws_dates_and_energy() -> None:
    # 2025 and 2028 are untouched by the test database's all-year opening of 2026 and 2027
    for year in (2025, 2028):
        row = QuotaYear.objects.get(year=year)
        assert row.authority_deadline == datetime.date(year, 11, 15)
        assert row.registration_cutoff == datetime.date(year, 10, 31)
        assert row.pre_registration_start == datetime.date(year - 1, 10, 1)
        assert (row.energy_m1_kwh, row.energy_n1_kwh, row.energy_m3_kwh) == (2000, 3000, 72000)
        # the ministry's notice of 28 August 2023 (tenants.quota_years; migration 0008)
        assert (row.energy_n2_kwh, row.energy_n3_kwh, row.energy_l_kwh) == (20600, 33400, 2000)
    assert set(QuotaYear.objects.values_list("year", flat=True)) >= {2025, 2026, 2027, 2028}


@pytest.mark.usefixtures("law_calendar")
@pytest.mark.parametrize(
    ("today", "current_only", "both"),
    [
        ("2026-09-30", [2026], [2026]),  # the next year is not pre-registered yet
        ("2026-10-01", [2026], [2026, 2027]),  # pre-registration of 2027 starts
        ("2026-10-31", [2026], [2026, 2027]),  # the cut-off day is still open
        ("2026-11-01", [2027], [2027]),  # the day after: only the next year
        ("2026-11-14", [2027], [2027]),
        ("2026-11-16", [2027], [2027]),  # after the authority's deadline
        ("2026-12-31", [2027], [2027]),
        ("2027-01-02", [2027], [2027]),  # the new year is the running one
    ],
)
def test_open_years_combine_the_calendar_with_the_partners_flags(
    today: str, current_only: list[int], both: list[int]
) -> None:
    assert open_years(day(today), flags(True, False)) == current_only
    assert open_years(day(today), flags(True, True)) == both
    # a partner that sells only the next year: never the running one
    assert open_years(day(today), flags(False, True)) == [y for y in both if y > day(today).year]


@pytest.mark.usefixtures("law_calendar")
def test_a_closed_year_is_refused_naming_the_next_open_year() -> None:
    message = year_closed_message(2026, day("2026-11-29"), flags(True, True))
    assert message == (
        "Für 2026 werden keine Registrierungen mehr angenommen (Annahmeschluss 31.10.2026). "
        "Bitte wählen Sie das Quotenjahr 2027 (möglich bis 31.10.2027)."
    )
    early = year_closed_message(2028, day("2027-01-02"), flags(True, True))
    assert early.startswith("Registrierungen für 2028 sind erst ab 01.10.2027 möglich.")
    assert early.endswith("Bitte wählen Sie das Quotenjahr 2027 (möglich bis 31.10.2027).")


@pytest.mark.usefixtures("law_calendar")
def test_credited_energy_per_class_for_the_credit_notes_and_the_package() -> None:
    dates = quota_year(2026)
    assert dates.credited_energy_kwh("M1") == 2000
    assert dates.credited_energy_kwh("") == 2000  # unread class counts as M1, as vehicle_type does
    assert dates.credited_energy_kwh("N1") == 3000
    assert dates.credited_energy_kwh("M3") == 72000
    assert dates.credited_energy_kwh("L3e-A2") == 2000
    assert dates.credited_energy_kwh("L1e-B") is None  # registration-exempt: not eligible
    assert dates.credited_energy_kwh("L6e") is None


def config(client: Client, subdomain: str = "autohaus", **headers: str):  # type: ignore[no-untyped-def]
    return client.get(f"/api/configs/{subdomain}/", HTTP_HOST=f"{subdomain}.localhost", headers=headers)


@pytest.mark.usefixtures("law_calendar")
def test_the_config_call_reports_current_year_false_after_the_cut_off(client: Client) -> None:
    with freeze_time("2026-10-31 21:00:00"):  # 22:00 in Berlin: still the cut-off day
        before = config(client)
    with freeze_time("2026-11-01 08:00:00"):
        after = config(client)
        unchanged = config(client, If_None_Match=after["ETag"])

    assert before.json()["qa_create_choices"]["current_year"] is True
    assert before.json()["quota_years"]["open_years"] == [
        {"year": 2026, "open_until": "2026-10-31", "days_left": 0},
        {"year": 2027, "open_until": "2027-10-31", "days_left": None},
    ]
    body = after.json()
    assert body["qa_create_choices"]["current_year"] is False
    assert body["qa_create_choices"]["next_year"] is True
    assert body["quota_years"] == {
        "today": "2026-11-01",
        "open_years": [{"year": 2027, "open_until": "2027-10-31", "days_left": None}],
    }
    # the answer is built once per day: a new day is a new ETag, the same day a 304
    assert after["ETag"] != before["ETag"]
    assert unchanged.status_code == 304


@pytest.mark.usefixtures("law_calendar")
def test_a_partner_selling_only_the_running_year_sells_the_next_after_the_cut_off(
    client: Client, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    partner = Partner.objects.get(subdomain="stadtwerk")
    with django_capture_on_commit_callbacks(execute=True):
        partner_update(
            partner=partner,
            config={**partner.config, "qa_create_choices": {"current_year": True, "next_year": False}},
        )
    with freeze_time("2026-10-20 10:00:00"):
        october = config(client, "stadtwerk").json()
    with freeze_time("2026-11-16 10:00:00"):
        november = config(client, "stadtwerk").json()

    assert (
        october["qa_create_choices"] | {"current_year": True, "next_year": False}
        == october["qa_create_choices"]
    )
    assert october["quota_years"]["open_years"] == [
        {"year": 2026, "open_until": "2026-10-31", "days_left": 11}
    ]
    assert (november["qa_create_choices"]["current_year"], november["qa_create_choices"]["next_year"]) == (
        False,
        True,
    )


@pytest.mark.usefixtures("law_calendar")
def test_the_platform_operator_moves_a_cut_off_in_the_admin(client: Client) -> None:
    User.objects.create_superuser("plattform", "plattform@example.com", "Plattform_2026!")
    client_staff_login(client, host=PUBLIC, username="plattform", password="Plattform_2026!")
    row = QuotaYear.objects.get(year=2026)
    page = client.get(f"/admin/tenants/quotayear/{row.pk}/change/", HTTP_HOST=PUBLIC)
    assert page.status_code == 200
    assert "Annahmeschluss der Plattform" in page.text and "Strommenge M1 (kWh)" in page.text

    form = {
        "year": "2026",
        "pre_registration_start": "2025-10-01",
        "registration_cutoff": "2026-11-10",
        "authority_deadline": "2026-11-15",
        "energy_m1_kwh": "2000",
        "energy_n1_kwh": "3000",
        "energy_n2_kwh": "20600",
        "energy_n3_kwh": "33400",
        "energy_m3_kwh": "72000",
        "energy_l_kwh": "2000",
    }
    wrong = client.post(
        f"/admin/tenants/quotayear/{row.pk}/change/",
        {**form, "registration_cutoff": "2026-11-20"},
        HTTP_HOST=PUBLIC,
    )
    assert wrong.status_code == 200 and "Der Annahmeschluss liegt vor der Frist des UBA." in wrong.text
    saved = client.post(f"/admin/tenants/quotayear/{row.pk}/change/", form, HTTP_HOST=PUBLIC)
    assert saved.status_code == 302

    with freeze_time("2026-11-05 10:00:00"):
        assert config(client).json()["quota_years"]["open_years"][0] == {
            "year": 2026,
            "open_until": "2026-11-10",
            "days_left": 5,
        }


def test_a_partners_host_has_no_calendar_in_its_admin(client: Client) -> None:
    page = client.get("/admin/tenants/quotayear/", HTTP_HOST="autohaus.localhost")
    assert page.status_code in (302, 403, 404)
