"""The partner area's application calls (docs/partner-api.md, "Applications") over HTTP with the
real middleware and a staff session: list, filters, ordering, search, detail, moves with the
catalogue's refusals, single-deal assignment, CSV, roles and tenant isolation."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django_tenants.utils import schema_context

from common.partner_config import PartnerConfig
from operations import application_selectors as selectors
from operations.models import SingleDeal, SubPartner
from quota.models import QuotaApplication, QuotaStatus, StatusChange
from quota.services import quota_application_move
from staff.models import AuditEntry
from tenants.models import Partner
from tests.factories import ApplicationFactory
from tests.partner_staff import partner_session, staff_member

pytestmark = pytest.mark.django_db
HOST = "stadtwerk.localhost"
OTHER_HOST = "autohaus.localhost"
API = "/api/partner/quota_applications/"
YEAR = timezone.localdate().year


@pytest.fixture
def stadtwerk() -> Partner:
    return Partner.objects.get(subdomain="stadtwerk")


def session(partner: Partner, role: str, host: str = HOST) -> Client:
    member, password = staff_member(partner, role=role)
    return partner_session(Client(enforce_csrf_checks=True), host, member, password)


@pytest.fixture
def admin(stadtwerk: Partner) -> Client:
    return session(stadtwerk, "partner_admin")


@pytest.fixture
def back_office(stadtwerk: Partner) -> Client:
    return session(stadtwerk, "back_office")


@pytest.fixture
def viewer(stadtwerk: Partner) -> Client:
    return session(stadtwerk, "viewer")


@pytest.fixture
def rows() -> Iterator[dict[str, Any]]:
    """Five applications in the utility partner's schema, a day apart, with a sub-partner and a
    single deal on some."""
    with schema_context("p_stadtwerk"):
        meier = SubPartner.objects.create(
            name="Elektro Meier", referral_key="meier", fee_share_percent=Decimal(10)
        )
        fleet = SingleDeal.objects.create(
            name="Flotte Nord", deal_key="flotte", price_net=Decimal("70.00"), legislation_years=[YEAR]
        )
        made = {
            "anna": ApplicationFactory.create(client__first_name="Anna", client__last_name="Albers", sub_partner=meier),
            "bernd": ApplicationFactory.create(
                client__first_name="Bernd", client__last_name="Brandt", registration__vehicle_class="N1",
                legislation_year=YEAR + 1,
            ),
            "clara": ApplicationFactory.create(client__first_name="Clara", client__last_name="Claasen", single_deal=fleet),
            "dora": ApplicationFactory.create(client__first_name="Dora", client__last_name="Dietz", sub_partner=meier),
            "emil": ApplicationFactory.create(
                client__first_name="=HYPERLINK(1)", client__last_name="Ernst", registration__vin="WVWZZZ1KZEMIL0001"
            ),
        }  # fmt: skip
        now = timezone.now()
        for days, application in enumerate(reversed(list(made.values()))):
            QuotaApplication.objects.filter(pk=application.pk).update(created_at=now - timedelta(days=days))
        quota_application_move(application=made["dora"], status=QuotaStatus.ENTERED, actor=None)
        yield {**made, "meier": meier, "fleet": fleet}


def get(client: Client, path: str = API, host: str = HOST, **params: Any) -> Any:
    return client.get(path, params, HTTP_HOST=host)


def post(client: Client, path: str, body: dict[str, Any], host: str = HOST) -> Any:
    return client.post(path, body, content_type="application/json", HTTP_HOST=host)


def ids(response: Any) -> list[int]:
    assert response.status_code == 200, response.content
    return [row["id"] for row in response.json()["results"]]


def test_the_list_pages_newest_first_with_the_contracts_row(viewer: Client, rows: dict[str, Any]) -> None:
    first = get(viewer, page_size=2)
    second = get(viewer, page_size=2, page=2)

    assert first.json()["count"] == 5 and first.json()["page_size"] == 2
    assert ids(first) + ids(second) == [rows[n].pk for n in ("emil", "dora", "clara", "bernd")]
    anna = next(r for r in get(viewer, page_size=100).json()["results"] if r["id"] == rows["anna"].pk)
    assert anna == {
        "id": rows["anna"].pk,
        "sequence": rows["anna"].registration.sequence,
        "legislation_year": YEAR,
        "status": "qa_created",
        "status_label": "Registrierung eingegangen",
        "created_at": anna["created_at"],
        "updated_at": anna["updated_at"],
        "vin": rows["anna"].registration.vin,
        "vehicle_class": "M1",
        "owner_name": "Anna Albers",
        "owner_type": "private",
        "sub_partner": {"id": rows["meier"].pk, "name": "Elektro Meier"},
        "single_deal": None,
        # a private owner is paid without VAT (issue 46): 85.00, as the batch pays her
        "fee_gross": "85.00" if YEAR == 2026 else anna["fee_gross"],
        "reference": "",  # the partner's own (integrations, issue 49): none set
    }
    clara = next(r for r in get(viewer, page_size=100).json()["results"] if r["id"] == rows["clara"].pk)
    assert (
        clara["single_deal"] == {"id": rows["fleet"].pk, "name": "Flotte Nord"}
        and clara["fee_gross"] == "70.00"  # the deal's net: Clara is a private owner
    )


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"status": "qa_entered"}, ["dora"]),
        (
            {"status": ["qa_entered", "qa_created"], "ordering": "created_at"},
            ["anna", "bernd", "clara", "dora", "emil"],
        ),
        ({"legislation_year": YEAR + 1}, ["bernd"]),
        ({"vehicle_class": "N1"}, ["bernd"]),
        ({"vehicle_class": "m1", "ordering": "last_name"}, ["anna", "clara", "dora", "emil"]),
        ({"single_deal": "fleet"}, ["clara"]),
        ({"sub_partner": "meier", "ordering": "-last_name"}, ["dora", "anna"]),
        ({"q": "brandt"}, ["bernd"]),
        ({"q": "bernd BRA"}, ["bernd"]),
        ({"q": "wvwzzz1kzemil"}, ["emil"]),
        ({"q": "sequence:clara"}, ["clara"]),
        ({"q": "niemand"}, []),
        ({"q": "EMAIL-OF:clara"}, ["clara"]),
        ({"q": "EMAIL-PART:dora Dietz"}, ["dora"]),
    ],
)
def test_filters_and_search(
    viewer: Client, rows: dict[str, Any], params: dict[str, Any], expected: list[str]
) -> None:
    params = dict(params)
    for key in ("single_deal", "sub_partner"):
        if key in params:
            params[key] = rows[params[key]].pk
    if params.get("q", "").startswith("sequence:"):
        params["q"] = str(rows[params["q"].split(":")[1]].registration.sequence)
    if params.get("q", "").startswith("EMAIL-"):
        # the owner's whole address, or a middle part of it beside a word of the name
        kind, rest = params["q"].split(":", 1)
        name, *more = rest.split()
        with schema_context("p_stadtwerk"):
            address = rows[name].registration.owner.email
        params["q"] = " ".join([address if kind == "EMAIL-OF" else address.split("@")[0][2:].upper(), *more])
    response = get(viewer, page_size=100, **params)
    assert ids(response) == [rows[name].pk for name in expected]
    assert response.json()["count"] == len(expected)


def test_counts_are_exact_from_the_rollup_and_a_large_search_is_estimated(
    viewer: Client, rows: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a limit below the five applications
    monkeypatch.setattr(selectors, "COUNT_EXACT_UP_TO", 3)
    # when
    listed = get(viewer, page_size=2).json()
    filtered = get(viewer, page_size=2, vehicle_class="M1", legislation_year=YEAR).json()
    dated = get(
        viewer, page_size=2, created_from=(timezone.localdate() - timedelta(days=1)).isoformat()
    ).json()
    searched = get(viewer, page_size=2, q="WVWZZZ1KZ").json()
    narrow = get(viewer, page_size=2, q="Albers").json()
    past_the_end = get(viewer, page_size=2, page=9).json()
    past_the_end_searched = get(viewer, page_size=2, page=9, q="WVWZZZ1KZ").json()
    # then: without a search the rollups count exactly, whatever the number
    # (quota.models.ApplicationCount; with a date range ApplicationDayCount)
    assert listed == {**listed, "count": 5, "count_exact": True} and len(listed["results"]) == 2
    every = get(viewer, page_size=100, vehicle_class="M1", legislation_year=YEAR).json()["results"]
    assert filtered == {**filtered, "count": len(every), "count_exact": True} and 3 <= len(every) < 5
    assert dated == {**dated, "count": 2, "count_exact": True}
    # a search above the limit shows the planner's estimate (of a test table: any number, at
    # least the limit); below it, the exact count
    assert searched["count_exact"] is False and searched["count"] >= 3 and len(searched["results"]) == 2
    assert narrow == {**narrow, "count": 1, "count_exact": True}
    assert past_the_end == {**past_the_end, "count": 5, "count_exact": True, "results": []}
    assert past_the_end_searched == {**past_the_end_searched, "count": 5, "count_exact": True, "results": []}


def test_the_search_indexes_exist_where_the_server_has_pg_trgm() -> None:
    """common.trigram: the extension (in public) and the GIN indexes in every partner schema
    where the server offers pg_trgm; neither where it does not (the embedded server)."""
    names = {"accounts_user_email_trgm", "billing_client_first_trgm", "billing_client_last_trgm",
             "billing_client_business_trgm", "registrations_vin_trgm"}  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_available_extensions WHERE name = 'pg_trgm'")
        available = cursor.fetchone()[0] == 1
        cursor.execute(
            "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE extname = 'pg_trgm'"
        )
        installed = [row[0] for row in cursor.fetchall()]
        cursor.execute(
            "SELECT schemaname, indexname FROM pg_indexes WHERE indexname = ANY(%s) AND schemaname IN ('p_stadtwerk', 'partner_template')",
            [list(names)],
        )
        found = set(cursor.fetchall())
    assert installed == (["public"] if available else [])
    expected = {(schema, name) for schema in ("p_stadtwerk", "partner_template") for name in names}
    assert found == (expected if available else set())


def test_the_date_range_counts_whole_days(viewer: Client, rows: dict[str, Any]) -> None:
    today = timezone.localdate()
    response = get(viewer, created_from=(today - timedelta(days=1)).isoformat(), created_to=today.isoformat())
    assert sorted(ids(response)) == sorted([rows["emil"].pk, rows["dora"].pk])


@pytest.mark.parametrize("ordering", ["sequence", "-sequence", "status", "-legislation_year", "created_at"])
def test_every_ordering(viewer: Client, rows: dict[str, Any], ordering: str) -> None:
    with schema_context("p_stadtwerk"):
        column = {
            "sequence": "registration__sequence",
            "status": "status",
            "legislation_year": "legislation_year",
        }
        key = column.get(ordering.lstrip("-"), "created_at")
        expected = list(
            QuotaApplication.objects.order_by(
                f"-{key}" if ordering.startswith("-") else key,
                *(["-created_at", "-pk"] if ordering.startswith("-") else ["created_at", "pk"]),
            ).values_list("pk", flat=True)
        )
    assert ids(get(viewer, page_size=100, ordering=ordering)) == expected


@pytest.mark.parametrize(
    "params",
    [
        {"page_size": 101},
        {"page_size": 0},
        {"ordering": "owner_email"},
        {"status": "qa_unknown"},
        {"created_from": "2025-13-01"},
        {"vehicle_class": "M1;DROP"},
    ],
)
def test_bad_parameters_are_field_errors(viewer: Client, params: dict[str, Any]) -> None:
    response = get(viewer, **params)
    assert response.status_code == 400
    assert set(response.json()) == {next(iter(params))}


def test_the_same_queries_at_page_size_10_and_100(viewer: Client) -> None:
    with schema_context("p_stadtwerk"):
        meier = SubPartner.objects.create(name="M", referral_key="m-1")
        deal = SingleDeal.objects.create(
            name="D", deal_key="d-1", price_net=Decimal(1), legislation_years=[YEAR]
        )
        ApplicationFactory.create_batch(60, sub_partner=meier, single_deal=deal)
        ApplicationFactory.create_batch(60)
    counts = []
    for size in (10, 100):
        with CaptureQueriesContext(connection) as queries:
            response = get(viewer, page_size=size, status="qa_created")
        assert response.status_code == 200 and len(response.json()["results"]) == size
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_the_detail_has_scan_reader_fields_masked_iban_history_and_moves(
    viewer: Client, rows: dict[str, Any], tmp_path: Any, settings: Any
) -> None:
    settings.MEDIA_ROOT = tmp_path
    dora = rows["dora"]
    # what staff see is the redacted display copy (the original has no URL at all)
    default_storage.save(dora.registration.display_scan, ContentFile(b"\xff\xd8scan"))

    response = get(viewer, f"{API}{dora.pk}/")

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["id"] == dora.pk and body["status_label"] == "Erfasst"
    assert body["registration"]["vin"] == dora.registration.vin
    assert body["registration"]["vehicle_class"] == "M1" and body["registration"]["needs_review"] is False
    assert body["client"]["iban_masked"] == "DE89 **** **** **** **30 00"
    assert "DE89370400440532013000" not in response.content.decode()
    assert [(h["status"], h["actor"]) for h in body["history"]] == [
        ("qa_created", "System"),
        ("qa_entered", "System"),
    ]
    assert {m["status"] for m in body["allowed_moves"]} >= {"qa_picked_up", "qa_manually_rejected"}
    # the signed scan URL opens without a token, on this partner only
    scan = Client().get(body["registration"]["scan_url"], HTTP_HOST=HOST)
    assert scan.status_code == 200 and b"".join(scan.streaming_content) == b"\xff\xd8scan"  # type: ignore[attr-defined]
    assert Client().get(body["registration"]["scan_url"], HTTP_HOST=OTHER_HOST).status_code == 404


def _shape(value: Any) -> Any:
    """The keys of an answer, all the way down (values such as signed URLs differ per call)."""
    if isinstance(value, dict):
        return {key: _shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shape(item) for item in value]
    return None


def test_the_detail_answers_every_key_the_selector_builds(viewer: Client, rows: dict[str, Any]) -> None:
    """The detail's response schema declares each key (issue 50: typed for the web); a key the
    selector adds and the schema does not declare would be dropped from the answer silently."""
    dora = rows["dora"]

    body = get(viewer, f"{API}{dora.pk}/").json()

    partner = Partner.objects.get(schema_name="p_stadtwerk")
    with schema_context("p_stadtwerk"):
        application = selectors.application_get(dora.pk)
        assert application is not None
        built = selectors.application_detail(
            application, partner=partner, config=PartnerConfig.model_validate(partner.config), language="de"
        )
    assert _shape(body) == _shape(built)


def test_moves_report_each_id_with_the_catalogues_refusal(back_office: Client, rows: dict[str, Any]) -> None:
    anna, dora, emil = rows["anna"], rows["dora"], rows["emil"]
    with schema_context("p_stadtwerk"):
        quota_application_move(application=emil, status=QuotaStatus.TEST, actor=None)

    response = post(
        back_office,
        f"{API}moves/",
        {"ids": [anna.pk, dora.pk, emil.pk, 999999], "status": "qa_picked_up", "reason": "geprüft"},
    )

    assert response.status_code == 200, response.content
    results = response.json()["results"]
    # no double registration met: no notice (issue 47)
    assert results[0] == {"id": anna.pk, "ok": True, "detail": None, "error_code": None, "notice": None}
    assert results[1]["ok"] is True
    assert results[2]["ok"] is False and results[2]["error_code"] == "QA002"
    assert results[2]["detail"] == "Test → In Prüfung: Dieser Statuswechsel ist nicht erlaubt."
    assert results[3]["ok"] is False and results[3]["detail"] == "Diesen Antrag gibt es nicht."
    with schema_context("p_stadtwerk"):
        change = StatusChange.objects.filter(application=anna, status="qa_picked_up").get()
        assert change.reason == "geprüft" and change.actor is not None
        entries = AuditEntry.objects.filter(action="quota_application.move").order_by("pk")
        assert [(e.object_id, e.before, e.after) for e in entries] == [
            (str(anna.pk), {"status": "qa_created"}, {"status": "qa_picked_up", "reason": "geprüft"}),
            (str(dora.pk), {"status": "qa_entered"}, {"status": "qa_picked_up", "reason": "geprüft"}),
        ]


def test_the_platforms_moves_are_never_made_by_hand(admin: Client, rows: dict[str, Any]) -> None:
    """sent_to_uba, the authority's answer and double registration belong to the platform: an
    application marked sent by hand would be in no package and never get an answer."""
    dora = rows["dora"]
    with schema_context("p_stadtwerk"):
        quota_application_move(application=dora, status=QuotaStatus.PICKED_UP, actor=None)
    detail = admin.get(f"{API}{dora.pk}/", HTTP_HOST=HOST).json()
    assert "qa_sent_to_uba" not in {move["status"] for move in detail["allowed_moves"]}
    response = post(admin, f"{API}moves/", {"ids": [dora.pk], "status": "qa_sent_to_uba"})
    assert response.json()["results"][0]["ok"] is False
    assert response.json()["results"][0]["error_code"] == "QA002"
    with schema_context("p_stadtwerk"):
        dora.refresh_from_db()
        assert dora.status == QuotaStatus.PICKED_UP


def test_a_rejection_without_a_reason_is_refused_per_id(admin: Client, rows: dict[str, Any]) -> None:
    response = post(admin, f"{API}moves/", {"ids": [rows["anna"].pk], "status": "qa_manually_rejected"})
    english = admin.post(
        f"{API}moves/", {"ids": [rows["anna"].pk], "status": "qa_manually_rejected"},
        content_type="application/json", HTTP_HOST=HOST, HTTP_ACCEPT_LANGUAGE="en",
    )  # fmt: skip
    assert response.json()["results"][0]["detail"] == "Diese Ablehnung braucht eine Begründung."
    assert english.json()["results"][0]["detail"] == "This rejection needs a reason."


def test_moves_body_rules(admin: Client, rows: dict[str, Any]) -> None:
    too_many = post(admin, f"{API}moves/", {"ids": list(range(1, 502)), "status": "qa_entered"})
    neither = post(admin, f"{API}moves/", {"ids": [rows["anna"].pk]})
    both = post(
        admin, f"{API}moves/", {"ids": [rows["anna"].pk], "status": "qa_entered", "single_deal": None}
    )
    unknown_deal = post(admin, f"{API}moves/", {"ids": [rows["anna"].pk], "single_deal": 999999})
    assert too_many.status_code == 400 and "ids" in too_many.json()
    assert neither.status_code == 400 and neither.json()["error_code"] == "OPS011"
    assert both.status_code == 400 and both.json()["error_code"] == "OPS011"
    assert unknown_deal.status_code == 400 and unknown_deal.json()["single_deal"]["error_code"] == "OPS010"


def test_staff_assign_a_single_deal_within_its_years_and_cap(
    back_office: Client, rows: dict[str, Any]
) -> None:
    with schema_context("p_stadtwerk"):
        SingleDeal.objects.filter(pk=rows["fleet"].pk).update(vehicle_cap=2)
    anna, bernd, dora = rows["anna"], rows["bernd"], rows["dora"]

    response = post(
        back_office, f"{API}moves/", {"ids": [anna.pk, bernd.pk, dora.pk], "single_deal": rows["fleet"].pk}
    )

    results = response.json()["results"]
    assert [r["ok"] for r in results] == [True, False, False]
    assert results[1]["error_code"] == "DEAL002"  # bernd's year is not the deal's
    assert results[2]["error_code"] == "DEAL003"  # clara and anna fill the cap of 2
    removed = post(back_office, f"{API}moves/", {"ids": [anna.pk], "single_deal": None})
    assert removed.json()["results"][0]["ok"] is True
    with schema_context("p_stadtwerk"):
        assert QuotaApplication.objects.get(pk=anna.pk).single_deal_id is None
        assert AuditEntry.objects.filter(action="quota_application.single_deal").count() == 2


def test_the_csv_has_german_headers_labels_bom_and_defused_formulas(
    back_office: Client, rows: dict[str, Any]
) -> None:
    response = get(back_office, f"{API}export.csv", status=["qa_created", "qa_entered"])

    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="antraege-')
    text = b"".join(response.streaming_content).decode("utf-8")  # type: ignore[attr-defined]
    assert text.startswith("\ufeffNummer;Quotenjahr;Status;")
    table = list(csv.reader(io.StringIO(text.lstrip("\ufeff")), delimiter=";"))
    header, body = table[0], table[1:]
    assert len(body) == 5
    by_name = {row[header.index("Nachname")]: dict(zip(header, row, strict=True)) for row in body}
    assert (
        by_name["Dietz"]["Status"] == "Erfasst" and by_name["Albers"]["Status"] == "Registrierung eingegangen"
    )
    assert (
        by_name["Albers"]["Unterpartner"] == "Elektro Meier"
        and by_name["Albers"]["Anteil Unterpartner (%)"] == "10,00"
    )
    assert (
        by_name["Claasen"]["Einzelvertrag"] == "Flotte Nord"
        and by_name["Claasen"]["Prämie brutto (EUR)"] == "70,00"  # private: the deal's net
    )
    assert by_name["Ernst"]["Vorname"] == "'=HYPERLINK(1)"
    assert by_name["Brandt"]["Haltertyp"] == "Privat"
    # the same filters as the list
    only_entered = b"".join(
        get(back_office, f"{API}export.csv", status="qa_entered").streaming_content
    ).decode()
    assert only_entered.count("\n") == 2
    with schema_context("p_stadtwerk"):
        assert AuditEntry.objects.filter(action="quota_application.export").count() == 2


def test_the_filters_call_lists_the_choices(viewer: Client, rows: dict[str, Any]) -> None:
    body = get(viewer, f"{API}filters/").json()
    assert {"value": "qa_entered", "label": "Erfasst"} in body["statuses"]
    assert body["years"] == [YEAR, YEAR + 1]
    assert body["vehicle_classes"] == ["M1", "N1"]
    assert body["sub_partners"] == [{"id": rows["meier"].pk, "name": "Elektro Meier"}]
    assert body["single_deals"] == [{"id": rows["fleet"].pk, "name": "Flotte Nord"}]


def test_roles_viewer_reads_but_neither_moves_nor_exports(viewer: Client, rows: dict[str, Any]) -> None:
    move = post(viewer, f"{API}moves/", {"ids": [rows["anna"].pk], "status": "qa_entered"})
    export = get(viewer, f"{API}export.csv")
    assert move.status_code == 403 and move.json()["detail"] == "Dafür fehlt Ihnen die Berechtigung."
    assert export.status_code == 403
    with schema_context("p_stadtwerk"):
        assert QuotaApplication.objects.get(pk=rows["anna"].pk).status == "qa_created"


def test_without_a_session_or_with_a_bearer_token_every_call_is_401(
    client: Client, rows: dict[str, Any]
) -> None:
    for path in (API, f"{API}{rows['anna'].pk}/", f"{API}filters/", f"{API}export.csv"):
        response = client.get(path, HTTP_HOST=HOST)
        assert response.status_code == 401, path
        assert response.json()["detail"] == "Bitte melden Sie sich an."
    bearer = client.get(API, HTTP_HOST=HOST, HTTP_AUTHORIZATION="Bearer x")
    assert bearer.status_code == 401


def test_a_move_without_the_csrf_header_is_refused(back_office: Client, rows: dict[str, Any]) -> None:
    del back_office.defaults["HTTP_X_CSRFTOKEN"]
    response = post(back_office, f"{API}moves/", {"ids": [rows["anna"].pk], "status": "qa_entered"})
    assert response.status_code == 403


def test_partner_a_ids_on_partner_b_are_404_and_b_staff_see_nothing_of_a(rows: dict[str, Any]) -> None:
    autohaus = Partner.objects.get(subdomain="autohaus")
    other = session(autohaus, "partner_admin", host=OTHER_HOST)
    with schema_context("p_stadtwerk"):
        # an id that B's schema has no row for (ids count per schema)
        anna = ApplicationFactory.create(id=900_000_001)

    detail = get(other, f"{API}{anna.pk}/", host=OTHER_HOST)
    listed = get(other, host=OTHER_HOST, page_size=100)
    moved = post(other, f"{API}moves/", {"ids": [anna.pk], "status": "qa_entered"}, host=OTHER_HOST)

    assert detail.status_code == 404
    assert anna.pk not in ids(listed)
    assert moved.json()["results"] == [
        {
            "id": anna.pk,
            "ok": False,
            "detail": "Diesen Antrag gibt es nicht.",
            "error_code": None,
            "notice": None,
        }
    ]
    with schema_context("p_stadtwerk"):
        assert QuotaApplication.objects.get(pk=anna.pk).status == "qa_created"
    # and a session of B is nobody on A's host
    assert get(other, host=HOST).status_code == 401


def test_a_prepared_page_is_planned_anew_in_another_partners_schema(rows: dict[str, Any]) -> None:
    """The list's statement is prepared on the connection (planned once, then run with new
    parameters); the same text in another partner's schema on the same connection must read
    that schema's tables, never through the first one's plan."""
    filters = selectors.ApplicationFilters()
    with schema_context("p_autohaus"):
        own = ApplicationFactory.create(client__last_name="Autohauskunde")
    pages = []
    for _ in range(3):  # alternating on one connection, each statement prepared
        for schema in ("p_stadtwerk", "p_autohaus"):
            with schema_context(schema):
                pages.append(
                    (
                        schema,
                        selectors.application_page(
                            filters=filters, ordering="-created_at", page=1, page_size=10
                        ),
                    )
                )
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_prepared_statements")
        assert cursor.fetchone()[0] >= 1  # the page really was a prepared statement
    expected = {}
    for schema in ("p_stadtwerk", "p_autohaus"):
        with schema_context(schema):
            expected[schema] = set(
                QuotaApplication.objects.order_by("-created_at", "-pk").values_list("pk", flat=True)[:10]
            )
    assert own.pk in expected["p_autohaus"] and rows["emil"].pk in expected["p_stadtwerk"]
    assert expected["p_autohaus"] != expected["p_stadtwerk"]
    for schema, page in pages:
        ids = {row[0] for row in page.rows}
        assert ids == expected[schema], (schema, ids)
