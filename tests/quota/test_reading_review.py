"""The review of what the reader was unsure of (issue 45): the queue of applications whose
correctable fields are unread or below confidence 0.8, with the rule that decided each field and
its box on the display picture; the rule kept with each correction; the report of corrections by
field and rule. Over HTTP through the real middleware with TOTP-verified staff sessions."""

from __future__ import annotations

import datetime
import json
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django_tenants.utils import schema_context

from quota.models import QuotaApplication
from quota.review_selectors import REVIEW_CODES, REVIEW_CONFIDENCE, field_unsure
from registrations.models import BevRegistration, FieldCorrection
from registrations.vin import kba_check_digit
from tenants.models import Partner
from tests.factories import ApplicationFactory
from tests.partner_staff import partner_session, staff_member

pytestmark = pytest.mark.django_db
HOST = "stadtwerk.localhost"
OTHER_HOST = "autohaus.localhost"
API = "/api/partner/quota_applications/"
GOOD_VIN = "WVWZZZ1KZAW000123"
SURE = {"E": 0.95, "B": 1.0, "I": 1.0, "J": 1.0, "10": 1.0}


def session(partner: Partner, role: str, host: str = HOST) -> Client:
    member, password = staff_member(partner, role=role)
    return partner_session(Client(enforce_csrf_checks=True), host, member, password)


def registered(schema: str = "p_stadtwerk", **registration: Any) -> QuotaApplication:
    values = {
        "vin": GOOD_VIN,
        "first_registration": datetime.date(2021, 3, 4),
        "registration_date": datetime.date(2023, 5, 6),
        "energy_code": "0004",
        "is_electric": True,
        "confidence": dict(SURE),
        "decided_by": {
            "E": "field3",
            "B": "agreement",
            "I": "agreement",
            "J": "agreement",
            "10": "confirmed",
        },
        **registration,
    }
    with schema_context(schema):
        return ApplicationFactory.create(**{f"registration__{key}": value for key, value in values.items()})


@pytest.fixture
def stadtwerk() -> Partner:
    return Partner.objects.get(subdomain="stadtwerk")


@pytest.fixture
def queue() -> dict[str, QuotaApplication]:
    """One sure application, one with E unread, one with B read unsure; another partner's
    application with E unread."""
    return {
        "sure": registered(),
        "vin_unread": registered(
            vin="",
            unread=["E"],
            confidence={k: v for k, v in SURE.items() if k != "E"},
            decided_by={"E": "field3_disagrees", "B": "agreement"},
            field_boxes={"E": [0.35, 0.2, 0.62, 0.24], "B": [0.35, 0.1, 0.5, 0.14]},
            needs_review=True,
        ),
        "b_unsure": registered(
            confidence={**SURE, "B": 0.62},
            decided_by={"E": "field3", "B": "majority"},
            field_boxes={"B": [0.35, 0.1, 0.5, 0.14]},
        ),
        "theirs": registered("p_autohaus", vin="", unread=["E"], decided_by={"E": "unread"}),
    }


def correct(client: Client, pk: int, field: str, value: str) -> Any:
    return client.post(
        f"{API}{pk}/corrections/",
        {"field": field, "value": value},
        content_type="application/json",
        HTTP_HOST=HOST,
    )


def test_the_queue_lists_unread_and_unsure_fields_of_this_partner_only(
    stadtwerk: Partner, queue: dict[str, QuotaApplication]
) -> None:
    viewer = session(stadtwerk, "viewer")

    response = viewer.get(f"{API}review/", HTTP_HOST=HOST)

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["count"] == 2 and body["page"] == 1
    rows = {row["id"]: row for row in body["results"]}
    assert set(rows) == {queue["vin_unread"].pk, queue["b_unsure"].pk}  # not the sure one, not theirs
    unread = rows[queue["vin_unread"].pk]
    assert unread["fields"] == [
        {"code": "E", "value": None, "confidence": None, "unread": True,
         "decided_by": "field3_disagrees", "box": [0.35, 0.2, 0.62, 0.24]},
    ]  # fmt: skip
    assert unread["image_url"].startswith("/api/bev_registrations/images/")
    assert rows[queue["b_unsure"].pk]["fields"] == [
        {"code": "B", "value": "2021-03-04", "confidence": 0.62, "unread": False,
         "decided_by": "majority", "box": [0.35, 0.1, 0.5, 0.14]},
    ]  # fmt: skip


def test_the_queue_filters_by_field_pages_and_refuses_an_unknown_field(
    stadtwerk: Partner, queue: dict[str, QuotaApplication]
) -> None:
    viewer = session(stadtwerk, "viewer")

    only_b = viewer.get(f"{API}review/", {"field": "B"}, HTTP_HOST=HOST).json()
    second_page = viewer.get(f"{API}review/", {"page": 2, "page_size": 1}, HTTP_HOST=HOST).json()
    unknown = viewer.get(f"{API}review/", {"field": "Z"}, HTTP_HOST=HOST)

    assert [row["id"] for row in only_b["results"]] == [queue["b_unsure"].pk]
    assert second_page["count"] == 2 and [row["id"] for row in second_page["results"]] == [
        queue["b_unsure"].pk
    ]
    assert unknown.status_code in (400, 422) and unknown["Content-Type"].startswith("application/json")


def test_another_partners_staff_sees_only_their_own_queue(queue: dict[str, QuotaApplication]) -> None:
    other = session(Partner.objects.get(subdomain="autohaus"), "viewer", host=OTHER_HOST)

    theirs = other.get(f"{API}review/", HTTP_HOST=OTHER_HOST)
    ours = other.get(f"{API}review/", HTTP_HOST=HOST)  # their session means nothing on our host

    assert [row["id"] for row in theirs.json()["results"]] == [queue["theirs"].pk]
    assert ours.status_code in (401, 403)


def test_a_correction_keeps_the_rule_leaves_the_queue_and_feeds_the_report(
    stadtwerk: Partner, queue: dict[str, QuotaApplication]
) -> None:
    back_office = session(stadtwerk, "back_office")
    viewer = session(stadtwerk, "viewer")

    refused = correct(viewer, queue["b_unsure"].pk, "B", "05.03.2021")  # a viewer reads only
    fixed = correct(back_office, queue["b_unsure"].pk, "B", "05.03.2021")
    same = correct(back_office, queue["vin_unread"].pk, "E", GOOD_VIN)
    again = correct(back_office, queue["vin_unread"].pk, "E", GOOD_VIN)  # the same value: no failure

    assert refused.status_code == 403
    assert fixed.status_code == same.status_code == again.status_code == 200
    detail = fixed.json()["registration"]
    assert detail["decided_by"]["B"] == "majority" and detail["field_boxes"]["B"] == [0.35, 0.1, 0.5, 0.14]
    assert detail["corrections"][0]["rule"] == "majority"
    assert {"check_digit", "holder_name", "holder_first_names"} <= set(detail)
    with schema_context("p_stadtwerk"):
        assert list(FieldCorrection.objects.values_list("code", "rule")) == [
            ("B", "majority"), ("E", "field3_disagrees"), ("E", "field3_disagrees"),
        ]  # fmt: skip
    assert viewer.get(f"{API}review/", HTTP_HOST=HOST).json()["count"] == 0

    report = viewer.get(f"{API}review/report/", HTTP_HOST=HOST)

    assert report.status_code == 200
    rows = {(row["code"], row["rule"]): row for row in report.json()["results"]}
    assert rows[("B", "majority")] == {
        "code": "B",
        "rule": "majority",
        "stored": 1,
        "corrected": 1,
        "share": 1.0,
    }
    assert rows[("E", "field3_disagrees")]["corrected"] == 1  # twice corrected, one value
    assert rows[("B", "agreement")] == {
        "code": "B",
        "rule": "agreement",
        "stored": 2,
        "corrected": 0,
        "share": 0.0,
    }
    assert rows[("E", "field3")]["stored"] == 2
    assert ("E", "unread") not in rows  # the other partner's registration
    assert report.json()["results"][0]["corrected"] == 1


def test_field_3_is_corrected_only_with_the_vins_own_check_digit(
    stadtwerk: Partner, queue: dict[str, QuotaApplication]
) -> None:
    back_office = session(stadtwerk, "back_office")
    right = kba_check_digit(GOOD_VIN)
    wrong = str((int(right) + 1) % 10) if right != "X" else "0"

    refused = correct(back_office, queue["b_unsure"].pk, "3", wrong)
    letter = correct(back_office, queue["b_unsure"].pk, "3", "A")
    taken = correct(back_office, queue["b_unsure"].pk, "3", right.lower())

    assert refused.status_code == letter.status_code == 400
    assert refused.json() == {
        "value": {
            "error_code": "READ011",
            "message": "Die Prüfziffer (Feld 3) ist eine Ziffer oder X und muss zur FIN passen.",
        }
    }
    assert taken.status_code == 200
    fields = {field["code"]: field for field in taken.json()["registration"]["fields"]}
    assert fields["3"]["value"] == right and fields["3"]["source"] == "corrected"
    assert taken.json()["registration"]["check_digit"] == right


@pytest.mark.parametrize("code", ["E", "3", "B", "I", "J", "10", "P.3", "D.1", "D.3", "A", "2.1", "X"])
def test_the_queue_index_keeps_the_python_rule_for_every_code(code: str) -> None:
    """The queue's SQL function (registrations 0010, behind its partial index) answers as
    field_unsure does: unread, unsure below 0.8, sure at 0.8, a non-numeric confidence and a
    code outside the correctable fields never unsure; the planner takes the index for the
    queue's count."""
    cases = [
        ([code], {}),
        ([], {code: REVIEW_CONFIDENCE - 0.01}),
        ([], {code: REVIEW_CONFIDENCE}),
        ([], {code: "0.1"}),
        ([], {}),
    ]
    with schema_context("p_stadtwerk"), connection.cursor() as cursor:
        for unread, confidence in cases:
            registration = BevRegistration(unread=unread, confidence=confidence)
            expected = any(field_unsure(registration, each) for each in REVIEW_CODES)
            cursor.execute(
                "SELECT registrations_unsure(%s::varchar[], %s::jsonb)",
                [unread, json.dumps(confidence)],
            )
            assert cursor.fetchone()[0] is expected, (code, unread, confidence)
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(
            "EXPLAIN SELECT count(*) FROM registrations_bevregistration AS r"
            " WHERE registrations_unsure(r.unread, r.confidence)"
        )
        plan = " ".join(row[0] for row in cursor.fetchall())
    assert "registrations_unsure_idx" in plan, plan
