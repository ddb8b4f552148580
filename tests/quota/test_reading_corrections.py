"""What the reader found, in the partner area: each field with its confidence and unread flag in
the application detail, and the back office's corrections (docs/partner-api.md, "Applications"):
checked by the reader's own rules, kept in the history, audited; roles, CSRF, tenants, owner
tokens. Over HTTP through the real middleware with TOTP-verified staff sessions."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context

from accounts.tokens import tokens_issue
from quota.models import QuotaApplication
from quota.services import back_office_staff_ensure
from registrations.models import BevRegistration, FieldCorrection
from staff.models import AuditEntry
from tenants.models import Partner
from tests.factories import ApplicationFactory
from tests.partner_staff import partner_session, staff_member
from tests.staff_login import client_staff_login

pytestmark = pytest.mark.django_db
HOST = "stadtwerk.localhost"
OTHER_HOST = "autohaus.localhost"
API = "/api/partner/quota_applications/"
GOOD_VIN = "XP7ZZZ1KZAW000123"  # Tesla (Berlin), as D.1 says: plausible without a check digit


def session(partner: Partner, role: str, host: str = HOST) -> Client:
    member, password = staff_member(partner, role=role)
    return partner_session(Client(enforce_csrf_checks=True), host, member, password)


@pytest.fixture
def stadtwerk() -> Partner:
    return Partner.objects.get(subdomain="stadtwerk")


@pytest.fixture
def application() -> QuotaApplication:
    """A read registration with an unread VIN and a date the reader was unsure of."""
    with schema_context("p_stadtwerk"):
        return ApplicationFactory.create(
            registration__vin="",
            registration__first_registration=datetime.date(2021, 3, 4),
            registration__registration_date=datetime.date(2023, 5, 6),
            registration__energy_code="0004",
            registration__is_electric=True,
            registration__make="TESLA",
            registration__model="MODEL 3",
            registration__fuel="ELEKTRO",
            registration__plate="B-AB 1234E",
            registration__maker_key="5YJ3",
            registration__confidence={"B": 0.62, "I": 0.91, "J": 0.88, "10": 0.95, "D.1": 0.9},
            registration__unread=["E"],
            registration__needs_review=True,
        )


def correct(client: Client, pk: int, field: str, value: str, host: str = HOST, **headers: Any) -> Any:
    return client.post(
        f"{API}{pk}/corrections/",
        {"field": field, "value": value},
        content_type="application/json",
        HTTP_HOST=host,
        **headers,
    )


def test_the_detail_shows_each_field_with_confidence_and_unread(
    stadtwerk: Partner, application: QuotaApplication
) -> None:
    viewer = session(stadtwerk, "viewer")

    response = viewer.get(f"{API}{application.pk}/", HTTP_HOST=HOST)

    assert response.status_code == 200
    registration = response.json()["registration"]
    fields = {field["code"]: field for field in registration["fields"]}
    assert list(fields) == ["E", "3", "B", "I", "J", "10", "P.3", "D.1", "D.3", "A", "2.1"]
    assert fields["E"] == {
        "code": "E", "name": "vin", "value": None, "confidence": None, "unread": True,
        "source": "reader", "corrected_by": None, "corrected_at": None,
    }  # fmt: skip
    assert fields["B"]["value"] == "2021-03-04" and fields["B"]["confidence"] == 0.62
    assert fields["D.3"] == {**fields["D.3"], "value": "MODEL 3", "confidence": None, "unread": False}
    assert registration["unread"] == ["E"] and registration["needs_review"] is True
    assert registration["make"] == "TESLA" and registration["registration_date"] == "2023-05-06"
    assert registration["corrections"] == []


def test_the_back_office_corrects_an_unread_vin_recorded_and_audited(
    stadtwerk: Partner, application: QuotaApplication
) -> None:
    member, password = staff_member(stadtwerk, role="back_office")
    client = partner_session(Client(enforce_csrf_checks=True), HOST, member, password)

    response = correct(client, application.pk, "E", " xp7zzz1kzaw000123 ")

    assert response.status_code == 200, response.content
    registration = response.json()["registration"]
    vin = next(field for field in registration["fields"] if field["code"] == "E")
    assert vin["value"] == GOOD_VIN and vin["confidence"] == 1.0 and vin["unread"] is False
    assert vin["source"] == "corrected" and vin["corrected_by"] == member.name
    assert registration["vin"] == GOOD_VIN
    assert registration["unread"] == [] and registration["needs_review"] is False
    assert registration["corrections"] == [
        {"code": "E", "before": "", "after": GOOD_VIN, "actor": member.name, "rule": "",
         "created_at": registration["corrections"][0]["created_at"]}
    ]  # fmt: skip
    with schema_context("p_stadtwerk"):
        stored = BevRegistration.objects.get(pk=application.registration_id)
        assert stored.vin == GOOD_VIN and stored.confidence["E"] == 1.0 and stored.confidence["B"] == 0.62
        entry = AuditEntry.objects.get(action="registration.correct")
        assert entry.actor_id == member.user_id and entry.object_id == str(application.pk)
        assert entry.before == {"field": "E", "value": ""} and entry.after == {
            "field": "E",
            "value": GOOD_VIN,
        }


def test_a_partner_admin_corrects_the_energy_code_and_the_review_follows(
    stadtwerk: Partner, application: QuotaApplication
) -> None:
    admin = session(stadtwerk, "partner_admin")
    correct(admin, application.pk, "E", GOOD_VIN)

    diesel = correct(admin, application.pk, "10", "0002")
    electric = correct(admin, application.pk, "10", "0004")

    assert diesel.status_code == 200
    assert diesel.json()["registration"]["is_electric"] is False
    assert diesel.json()["registration"]["needs_review"] is True  # not electric: for review
    assert electric.json()["registration"]["needs_review"] is False
    assert [c["after"] for c in electric.json()["registration"]["corrections"]] == [GOOD_VIN, "0002", "0004"]


@pytest.mark.parametrize(
    ("field", "value", "code", "where"),
    [
        ("E", "WVWZZZ1KZAW00012", "READ003", "value"),  # 16 characters
        ("E", "WVWZZZ1KZAW0001I", "READ003", "value"),  # I is not in the VIN alphabet
        ("E", "1HGCM82633A004353", "READ003", "value"),  # North America: wrong check digit
        ("B", "31.02.2020", "READ004", "value"),  # no such day
        ("B", "2024-01-01", "READ005", "value"),  # after I (2023-05-06)
        ("I", "2020-01-01", "READ005", "value"),  # before B (2021-03-04)
        ("I", "01.01.2999", "READ005", "value"),  # after today
        ("B", "01.01.1930", "READ005", "value"),
        ("J", "X9", "READ006", "value"),
        ("10", "0099", "READ007", "value"),
        ("10", "ELEKTRO", "READ007", "value"),
        ("A", "not a plate", "READ008", "value"),
        ("2.1", "12A4", "READ009", "value"),
        ("D.1", "<script>", "READ010", "value"),
        ("P.3", "   ", "READ002", "value"),
        ("Z", "1", "READ001", "field"),
    ],
)
def test_bad_values_are_refused_by_the_readers_rules(
    stadtwerk: Partner, application: QuotaApplication, field: str, value: str, code: str, where: str
) -> None:
    client = session(stadtwerk, "back_office")

    response = correct(client, application.pk, field, value)

    assert response.status_code == 400
    assert response.json()[where]["error_code"] == code
    assert response.json()[where]["message"]
    with schema_context("p_stadtwerk"):
        assert (
            not FieldCorrection.objects.exists()
            and not AuditEntry.objects.filter(action="registration.correct").exists()
        )


def test_a_north_american_vin_with_its_check_digit_and_an_l_class_are_accepted(
    stadtwerk: Partner, application: QuotaApplication
) -> None:
    client = session(stadtwerk, "back_office")

    vin = correct(client, application.pk, "E", "1HGCM82633A004352")
    klass = correct(client, application.pk, "J", "l3e")
    english = correct(client, application.pk, "J", "Q1", HTTP_ACCEPT_LANGUAGE="en")

    assert vin.status_code == 200 and vin.json()["registration"]["vin"] == "1HGCM82633A004352"
    assert klass.json()["registration"]["vehicle_class"] == "L3e"
    assert english.json()["value"]["message"].startswith("Not a vehicle class")


def test_a_body_that_is_no_correction_is_a_json_error(
    stadtwerk: Partner, application: QuotaApplication
) -> None:
    client = session(stadtwerk, "back_office")

    missing = client.post(
        f"{API}{application.pk}/corrections/", {"field": "E"}, content_type="application/json", HTTP_HOST=HOST
    )
    long = correct(client, application.pk, "E", "W" * 101)

    for response in (missing, long):
        assert response.status_code in (400, 422)
        assert response["Content-Type"].startswith("application/json")
        assert response.json()


def test_a_viewer_may_not_correct(stadtwerk: Partner, application: QuotaApplication) -> None:
    viewer = session(stadtwerk, "viewer")

    response = correct(viewer, application.pk, "E", GOOD_VIN)

    assert response.status_code == 403
    assert response.json()["detail"] == "Dafür fehlt Ihnen die Berechtigung."
    with schema_context("p_stadtwerk"):
        assert BevRegistration.objects.get(pk=application.registration_id).vin == ""


def test_without_the_csrf_header_nothing_is_corrected(
    stadtwerk: Partner, application: QuotaApplication
) -> None:
    client = session(stadtwerk, "back_office")
    del client.defaults["HTTP_X_CSRFTOKEN"]

    response = correct(client, application.pk, "E", GOOD_VIN)

    assert response.status_code == 403
    with schema_context("p_stadtwerk"):
        assert not FieldCorrection.objects.exists()


def test_another_partners_staff_and_an_owner_token_are_refused(
    client: Client, application: QuotaApplication
) -> None:
    other = session(Partner.objects.get(subdomain="autohaus"), "partner_admin", host=OTHER_HOST)
    stadtwerk = Partner.objects.get(subdomain="stadtwerk")
    with schema_context("p_stadtwerk"):
        token = tokens_issue(user=application.registration.owner, partner=stadtwerk)["access"]

    # B's staff on B's host: the id means nothing there; on A's host B's session is no session
    on_their_host = correct(other, application.pk, "E", GOOD_VIN, host=OTHER_HOST)
    on_our_host = correct(other, application.pk, "E", GOOD_VIN)
    with_token = correct(client, application.pk, "E", GOOD_VIN, HTTP_AUTHORIZATION=f"Bearer {token}")

    assert on_their_host.status_code == 404
    assert on_our_host.status_code in (401, 403)
    assert with_token.status_code in (401, 403)
    with schema_context("p_stadtwerk"):
        assert BevRegistration.objects.get(pk=application.registration_id).vin == ""
        assert not FieldCorrection.objects.exists()


def test_the_admin_change_page_shows_the_reading_and_corrects_a_field(
    client: Client, application: QuotaApplication
) -> None:
    with schema_context("p_stadtwerk"):
        back_office_staff_ensure(username="berta", email="berta@stadtwerk.example", password="Staff_2026!")
    client_staff_login(client, host=HOST, username="berta", password="Staff_2026!")
    url = f"/admin/quota/quotaapplication/{application.pk}/change/"

    page = client.get(url, HTTP_HOST=HOST)
    inline = {f"status_changes-{key}": value for key, value in
              (("TOTAL_FORMS", "0"), ("INITIAL_FORMS", "0"), ("MIN_NUM_FORMS", "0"), ("MAX_NUM_FORMS", "1000"))}  # fmt: skip
    refused = client.post(url, {**inline, "correct_field": "E", "correct_value": "WVWZZZ"}, HTTP_HOST=HOST)
    saved = client.post(url, {**inline, "correct_field": "E", "correct_value": GOOD_VIN}, HTTP_HOST=HOST)

    assert page.status_code == 200
    html = page.content.decode()
    assert "nicht gelesen" in html and "62 %" in html and "Feld korrigieren" in html
    assert refused.status_code == 200 and "Keine gültige FIN" in refused.content.decode()
    assert saved.status_code == 302
    with schema_context("p_stadtwerk"):
        registration = BevRegistration.objects.get(pk=application.registration_id)
        assert registration.vin == GOOD_VIN and registration.confidence["E"] == 1.0
        assert registration.corrected["E"]["by"]
        assert AuditEntry.objects.filter(action="registration.correct").count() == 1
    after = client.get(url, HTTP_HOST=HOST).content.decode()
    assert "korrigiert von" in after and timezone.localdate().strftime("%d.%m.%Y") in after


def test_a_corrected_vin_frees_the_old_vehicle_and_claims_the_new_one(stadtwerk: Partner) -> None:
    """Issue 47: the correction moves the registry claim in its own transaction; the old VIN is
    free for its real owner at another partner, the new one taken from now on."""
    from authority.models import VehicleClaim
    from authority.registry import vin_hash
    from quota.models import QuotaStatus
    from tests.authority.helpers import submitted

    misread, right = "WVWZZZ1KZAW000124", GOOD_VIN
    with schema_context("p_stadtwerk"):
        application = submitted(subdomain="stadtwerk", vin=misread)
    assert VehicleClaim.objects.get(application_id=application.pk).vin_hash == vin_hash(misread)

    response = correct(session(stadtwerk, "back_office"), application.pk, "E", right)

    assert response.status_code == 200, response.content
    claim = VehicleClaim.objects.get(partner=stadtwerk)
    assert (claim.vin_hash, claim.application_id) == (vin_hash(right), application.pk)
    assert not VehicleClaim.objects.filter(vin_hash=vin_hash(misread)).exists()
    with schema_context("p_autohaus"):
        owner_of_misread = submitted(subdomain="autohaus", vin=misread)
        other_of_right = submitted(subdomain="autohaus", vin=right)
    # nobody is refused at upload: the claims are provisional until review (issue 47)
    assert owner_of_misread.status == other_of_right.status == QuotaStatus.CREATED
    assert VehicleClaim.objects.get(vin_hash=vin_hash(misread)).application_id == owner_of_misread.pk
    assert VehicleClaim.objects.filter(vin_hash=vin_hash(right)).count() == 2
