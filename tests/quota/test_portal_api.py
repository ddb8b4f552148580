"""The portal's registrations calls (spec/customer-portal.md sections 3, 4 and 7) on the
utility demo partner, whose configuration has fees with VAT and an advertisement."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection
from django.test import Client as HttpClient
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django_tenants.utils import schema_context
from freezegun import freeze_time

from accounts.models import User
from accounts.tokens import tokens_issue
from quota import catalogue
from quota.models import AdvertisementClick, QuotaApplication, QuotaStatus
from quota.services import QuotaError, quota_application_move
from tenants.models import Partner
from tests.factories import ApplicationFactory, UserFactory

pytestmark = pytest.mark.django_db
HOST = "stadtwerk.localhost"
LIST = "/api/end_user_portal/quota_applications/"
YEAR = timezone.localdate().year


@pytest.fixture(autouse=True)
def _in_stadtwerk() -> Iterator[None]:
    with schema_context("p_stadtwerk"):
        yield


@pytest.fixture
def owner() -> User:
    return UserFactory.create(email="paula@example.de", first_name="Paula", last_name="Portal")


def bearer(user: User, subdomain: str = "stadtwerk") -> dict[str, Any]:
    tokens = tokens_issue(user=user, partner=Partner.objects.get(subdomain=subdomain))
    return {"HTTP_AUTHORIZATION": f"Bearer {tokens['access']}"}


def get(client: HttpClient, user: User, path: str = LIST, **headers: Any) -> Any:
    return client.get(path, HTTP_HOST=HOST, **bearer(user), **headers)


def test_the_list_pages_through_twelve_applications_by_sequence(client: HttpClient, owner: User) -> None:
    made = [ApplicationFactory.create(registration__owner=owner) for _ in range(12)]
    ApplicationFactory.create()  # somebody else's

    pages = [get(client, owner, f"{LIST}?page={page}&page_size=5").json() for page in (1, 2, 3)]

    assert [page["count"] for page in pages] == [12, 12, 12]
    assert [len(page["results"]) for page in pages] == [5, 5, 2]
    sequences = [item["sequence"] for page in pages for item in page["results"]]
    assert sequences == sorted(a.registration.sequence for a in made)
    assert get(client, owner, f"{LIST}?page=2&limit=10").json()["results"][-1]["sequence"] == sequences[-1]
    assert get(client, owner, f"{LIST}?page=9&page_size=5").json() == {"count": 12, "results": []}


def test_the_list_filters_by_year_and_status(client: HttpClient, owner: User) -> None:
    first = ApplicationFactory.create(registration__owner=owner)
    ApplicationFactory.create(registration__owner=owner, legislation_year=YEAR + 1)
    quota_application_move(application=first, status=QuotaStatus.ENTERED, actor=None)

    by_year = get(client, owner, f"{LIST}?legislation_year={YEAR + 1}").json()
    by_status = get(client, owner, f"{LIST}?status=qa_entered").json()

    assert [item["legislation_year"] for item in by_year["results"]] == [YEAR + 1]
    assert [item["id"] for item in by_status["results"]] == [first.pk]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("page=0", "page"),
        ("page=x", "page"),
        ("page_size=101", "page_size"),
        ("status=qa_nonsense", "status"),
    ],
)
def test_bad_list_parameters_get_field_errors(
    client: HttpClient, owner: User, query: str, field: str
) -> None:
    response = get(client, owner, f"{LIST}?{query}")
    assert response.status_code == 400
    assert field in response.json()


def test_the_list_costs_the_same_queries_for_one_item_or_twenty(client: HttpClient, owner: User) -> None:
    for _ in range(20):
        application = ApplicationFactory.create(registration__owner=owner)
        quota_application_move(application=application, status=QuotaStatus.ENTERED, actor=None)
    headers = bearer(owner)
    client.get(LIST, HTTP_HOST=HOST, **headers)  # the partner directory is loaded once per process

    counts = []
    for size in (1, 20):
        with CaptureQueriesContext(connection) as queries:
            response = client.get(f"{LIST}?page_size={size}", HTTP_HOST=HOST, **headers)
        assert len(response.json()["results"]) == size
        counts.append(
            [q["sql"] for q in queries.captured_queries if not q["sql"].startswith("SET search_path")]
        )
    assert len(counts[0]) == len(counts[1])
    # the user, the count, the page, the page's history, the page's payout documents, the fee
    # table's versions (issue 49)
    assert len(counts[0]) == 6, counts[0]


def test_a_card_has_every_field_of_the_registration_item(client: HttpClient, owner: User) -> None:
    ApplicationFactory.create(
        registration__owner=owner, legislation_year=2026, registration__vehicle_class="M1"
    )

    with freeze_time("2026-11-23 10:00"):
        item = get(client, owner).json()["results"][0]

    # a private owner sells without VAT (issue 46): the card promises what the batch pays
    assert item["client_fee"] == "85.00"
    assert item["display_vat"] is True
    assert item["vat_details"] is None
    # No price for next year in the demo: the web app shows the utility placeholder.
    assert item["next_year_client_fee_year"] == 2027
    assert item["next_year_client_fee"] is None and item["next_year_client_fee_for_m1"] is None
    assert item["allowed_resubmit_years"] == [2027]
    registration = item["registration"]
    assert registration["vehicle_type"] == "M1"
    assert registration["source"] == "B2C-FE"
    client_data = registration["client"]
    assert client_data["account_iban"] == "DE89 **** **** **** **30 00"
    assert client_data["email"] == "paula@example.de"
    assert {
        "gender",
        "first_name",
        "last_name",
        "street_name",
        "street_number",
        "postal_code",
        "city",
    } <= set(client_data)
    assert {"name_of_business", "is_vat_mandatory", "vat_number", "account_name"} <= set(client_data)


def test_next_years_fees_come_from_the_fee_table(client: HttpClient, owner: User) -> None:
    partner = Partner.objects.get(subdomain="stadtwerk")
    fees = [*partner.config["fees"], {"legislation_year": 2027, "vehicle_class": "M1", "client_fee": "90"}]
    partner.config = {**partner.config, "fees": fees, "display_vat": False}
    partner.save()
    Partner.objects.filter(pk=partner.pk).update(config=partner.config)
    ApplicationFactory.create(
        registration__owner=owner, legislation_year=2026, registration__vehicle_class="N1"
    )

    with freeze_time("2026-11-23 10:00"):
        item = get(client, owner).json()["results"][0]

    assert item["client_fee"] == "250.00" and item["vat_details"] is None
    assert item["next_year_client_fee"] is None  # no N1 price for 2027
    assert item["next_year_client_fee_for_m1"] == "90.00"


def test_the_timeline_is_built_from_the_record(client: HttpClient, owner: User) -> None:
    application = ApplicationFactory.create(registration__owner=owner)
    for status in (QuotaStatus.ENTERED, QuotaStatus.PICKED_UP):
        quota_application_move(application=application, status=status, actor=None)

    timeline = get(client, owner).json()["results"][0]["status_timeline"]

    assert [(e["status"], e["position"]) for e in timeline] == [
        ("qa_created", "past"),
        ("qa_entered", "past"),
        ("qa_picked_up", "current"),
        ("qa_sent_to_uba", "future"),
        ("qa_accepted", "future"),
        ("qa_to_pay", "future"),
        ("qa_to_settle", "future"),
        ("qa_paid", "future"),
        ("qa_completed", "future"),
    ]
    current = timeline[2]["details"]
    assert current["title"] == "In Prüfung"
    assert current["subtitles"][0] == "Wir prüfen Ihren Fahrzeugschein."
    assert timeline[3]["details"] == {"title": "An das Umweltbundesamt übermittelt", "subtitles": []}


def test_a_rejection_ends_the_timeline_with_its_reason(client: HttpClient, owner: User) -> None:
    application = ApplicationFactory.create(registration__owner=owner)
    quota_application_move(
        application=application,
        status=QuotaStatus.MANUALLY_REJECTED,
        actor=None,
        reason="Fahrzeugschein abgelaufen",
    )

    timeline = get(client, owner, HTTP_ACCEPT_LANGUAGE="en").json()["results"][0]["status_timeline"]

    assert timeline[-1] == {
        "status": "qa_manually_rejected",
        "position": "current",
        "details": {"title": "Manually rejected", "subtitles": ["Fahrzeugschein abgelaufen"]},
    }
    assert [e["position"] for e in timeline] == ["past", "current"]


def test_the_state_machine_refuses_illegal_moves_and_reasonless_rejections(owner: User) -> None:
    application = ApplicationFactory.create(registration__owner=owner)
    with pytest.raises(QuotaError) as illegal:
        quota_application_move(application=application, status=QuotaStatus.PAID, actor=None)
    assert illegal.value.code == "QA002"
    with pytest.raises(QuotaError) as reasonless:
        quota_application_move(
            application=application, status=QuotaStatus.REJECTED_BY_PARTNER, actor=None, reason=" "
        )
    assert reasonless.value.code == "QA003"
    application.refresh_from_db()
    assert application.status == QuotaStatus.CREATED
    assert application.status_changes.count() == 1


def test_every_status_has_a_title_and_its_moves_stay_in_the_catalogue() -> None:
    for status in QuotaStatus:
        assert status in catalogue.CATALOGUE and status in catalogue.MOVES
        assert catalogue.MOVES[status] <= set(QuotaStatus)
    # every expected step can be reached from the one before
    for before, after in zip(catalogue.EXPECTED_PATH, catalogue.EXPECTED_PATH[1:], strict=False):
        assert after in catalogue.MOVES[before] or before == QuotaStatus.CREATED


def resubmit(client: HttpClient, user: User, application_id: int, body: str, **headers: Any) -> Any:
    return client.put(
        f"{LIST}{application_id}/duplicate_for_new_period/",
        body,
        content_type="application/x-www-form-urlencoded",
        HTTP_HOST=HOST,
        **bearer(user),
        **headers,
    )


def test_resubmit_for_next_year_then_the_same_year_again(client: HttpClient, owner: User) -> None:
    application = ApplicationFactory.create(registration__owner=owner)

    created = resubmit(
        client, owner, application.pk, f"period={YEAR + 1}&email_promotion_opt_in=true&free_text=Hallo"
    )
    again = resubmit(client, owner, application.pk, f"period={YEAR + 1}", HTTP_ACCEPT_LANGUAGE="en")

    assert created.status_code == 201
    assert created.json()["legislation_year"] == YEAR + 1
    new = QuotaApplication.objects.get(pk=created.json()["id"])
    assert new.registration_id == application.registration_id
    assert new.email_promotion_opt_in is True and new.free_text == "Hallo"
    assert again.status_code == 400
    assert again.json() == {"detail": "Vehicle id already exist for this period", "error_code": "QA001"}
    assert QuotaApplication.objects.count() == 2


def test_the_same_vehicle_uploaded_twice_cannot_take_a_year_twice(client: HttpClient, owner: User) -> None:
    first = ApplicationFactory.create(registration__owner=owner, registration__vin="WVWZZZ1KZ00000042")
    second = ApplicationFactory.create(
        registration__owner=owner, registration__vin="WVWZZZ1KZ00000042", legislation_year=YEAR + 1
    )
    assert resubmit(client, owner, first.pk, f"period={YEAR + 1}").json()["error_code"] == "QA001"
    assert resubmit(client, owner, second.pk, f"period={YEAR}").json()["error_code"] == "QA001"


def test_a_card_offers_only_years_its_vehicle_has_no_application_for(client: HttpClient, owner: User) -> None:
    # given: the same vehicle (same VIN) uploaded twice, one application per year, and another
    # vehicle with only this year
    first = ApplicationFactory.create(registration__owner=owner, registration__vin="WVWZZZ1KZ00000077")
    ApplicationFactory.create(
        registration__owner=owner, registration__vin="WVWZZZ1KZ00000077", legislation_year=YEAR + 1
    )
    other = ApplicationFactory.create(registration__owner=owner, registration__vin="")

    # when
    items = {item["id"]: item for item in get(client, owner).json()["results"]}

    # then: the first vehicle has every offered year taken; the other one may take next year
    assert items[first.pk]["allowed_resubmit_years"] == []
    assert items[other.pk]["allowed_resubmit_years"] == [YEAR + 1]


@pytest.mark.parametrize("body", ["", "period=", f"period={YEAR + 5}", "period=abc"])
def test_resubmit_needs_an_offered_year(client: HttpClient, owner: User, body: str) -> None:
    application = ApplicationFactory.create(registration__owner=owner)
    response = resubmit(client, owner, application.pk, body)
    assert response.status_code == 400
    assert "period" in response.json()
    assert QuotaApplication.objects.count() == 1


def test_nobody_resubmits_or_sees_another_owners_application(client: HttpClient, owner: User) -> None:
    theirs = ApplicationFactory.create()
    assert resubmit(client, owner, theirs.pk, f"period={YEAR + 1}").status_code == 404
    assert get(client, owner).json() == {"count": 0, "results": []}


def test_a_scan_url_opens_only_for_its_registration_and_partner(client: HttpClient, owner: User) -> None:
    application = ApplicationFactory.create(registration__owner=owner)
    default_storage.save(application.registration.resized_image, ContentFile(b"\xff\xd8\xff\xe0 resized"))
    default_storage.save(application.registration.zlb_scan, ContentFile(b"\xff\xd8\xff\xe0 scan"))
    registration = get(client, owner).json()["results"][0]["registration"]

    opened = client.get(registration["resized_image"], HTTP_HOST=HOST)
    assert opened.status_code == 200
    assert b"".join(opened.streaming_content) == b"\xff\xd8\xff\xe0 resized"  # type: ignore[attr-defined]
    # a scan is personal data: no cache keeps it (issue 13, item 11)
    assert opened["Content-Type"] == "image/jpeg" and opened["Cache-Control"] == "no-store"

    token = registration["zlb_scan"].split("/")[-2]
    tampered = registration["zlb_scan"].replace(
        token, token[:-2] + ("A" if token[-2] != "A" else "B") + token[-1]
    )
    assert client.get(tampered, HTTP_HOST=HOST).status_code == 404
    # the same URL on another partner's host
    assert client.get(registration["zlb_scan"], HTTP_HOST="autohaus.localhost").status_code == 404
    with freeze_time(timezone.now() + timedelta(hours=1, minutes=1)):
        assert client.get(registration["zlb_scan"], HTTP_HOST=HOST).status_code == 404


def test_filters_offer_every_status_and_the_years_with_their_period(client: HttpClient, owner: User) -> None:
    ApplicationFactory.create(registration__owner=owner, legislation_year=YEAR - 1)
    body = get(client, owner, f"{LIST}status_and_period_for_filters/").json()
    assert {entry["value"] for entry in body["status"]} == set(QuotaStatus)
    assert body["legislation_year"] == [
        {"value": YEAR - 1, "label": str(YEAR - 1), "period": "historical"},
        {"value": YEAR, "label": str(YEAR), "period": "current"},
        {"value": YEAR + 1, "label": str(YEAR + 1), "period": "future"},
    ]


def test_an_advertisement_click_is_counted(client: HttpClient, owner: User) -> None:
    def click(advertisement: int, **headers: Any) -> Any:
        return client.post(
            "/api/end_user_portal/advertisement_count/",
            {"partner_advertisement": advertisement},
            content_type="application/json",
            HTTP_HOST=HOST,
            **headers,
        )

    assert click(1, **bearer(owner)).status_code == 201
    assert click(2, **bearer(owner)).status_code == 400
    assert click(1).status_code == 401
    assert AdvertisementClick.objects.filter(advertisement_id=1, user=owner).count() == 1


def test_a_token_of_another_partner_opens_nothing_here(client: HttpClient, owner: User) -> None:
    ApplicationFactory.create(registration__owner=owner)
    with schema_context("p_autohaus"):
        twin = UserFactory.create(email="paula@example.de")
        headers = bearer(twin, "autohaus")
    assert client.get(LIST, HTTP_HOST=HOST, **headers).status_code == 401


def test_a_card_says_when_its_scan_is_the_neutral_card(client: HttpClient, owner: User) -> None:
    # given one scan whose form the reader located (holder panel blacked out) and one it did not
    located = ApplicationFactory.create(registration__owner=owner)
    unlocated = ApplicationFactory.create(registration__owner=owner, registration__redaction="neutral")

    results = {row["id"]: row["registration"] for row in get(client, owner).json()["results"]}

    # then the portal card names the neutral card "Dokument eingegangen", not the document
    assert results[located.pk]["scan_placeholder"] is False
    assert results[unlocated.pk]["scan_placeholder"] is True
