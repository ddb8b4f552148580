"""The owner's agreement in text form naming the partner as third party ("Dritter", 38. BImSchV
§ 5 Abs. 2), recorded per year by the flow and the portal (privacy.consents), shown in the partner
area's application detail and exported with the applications' CSV (issue 48). Over HTTP with a
staff session, the clock frozen where the times are recorded."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from django.test import Client
from django_tenants.utils import schema_context
from freezegun import freeze_time

# The API's schemas are built when the URL conf is first imported: before any frozen clock.
import config.urls_public  # noqa: F401
import config.urls_tenant  # noqa: F401
from common.partner_config import PartnerConfig
from privacy.consents import consents_record_terms
from privacy.models import ConsentRecord
from tenants.models import Partner
from tests.factories import ApplicationFactory
from tests.partner_staff import partner_session, staff_member

pytestmark = pytest.mark.django_db
HOST = "stadtwerk.localhost"
API = "/api/partner/quota_applications/"
YEAR = 2026


def session(role: str) -> Client:
    member, password = staff_member(Partner.objects.get(subdomain="stadtwerk"), role=role)
    return partner_session(Client(enforce_csrf_checks=True), HOST, member, password)


@pytest.fixture
def applications() -> dict[str, Any]:
    """Anna agreed in the flow on 15 June 2026 (and again under changed terms in the portal a month
    later); Bernd's application came from a B2B upload (no terms page, no record); Clara agreed
    for 2027 only."""
    partner = Partner.objects.get(subdomain="stadtwerk")
    config = PartnerConfig.model_validate(partner.config)
    with schema_context("p_stadtwerk"):
        anna = ApplicationFactory.create(client__last_name="Albers", legislation_year=YEAR)
        bernd = ApplicationFactory.create(client__last_name="Brandt", legislation_year=YEAR)
        clara = ApplicationFactory.create(client__last_name="Claasen", legislation_year=YEAR)
        owner = anna.registration.owner
        with freeze_time("2026-06-15 10:04:05"):  # 12:04:05 in Berlin
            consents_record_terms(user=owner, config=config, years=[YEAR], channel=ConsentRecord.Channel.WEB)
        changed = config.model_copy(
            update={
                "pages": config.pages.model_copy(
                    update={"terms": config.pages.terms.model_copy(update={"agreed": "Neue AGB akzeptiert."})}
                )
            }
        )
        with freeze_time("2026-07-15 09:00:00"):
            consents_record_terms(
                user=owner, config=changed, years=[YEAR], channel=ConsentRecord.Channel.PORTAL
            )
        with freeze_time("2026-06-20 08:00:00"):
            consents_record_terms(
                user=clara.registration.owner,
                config=config,
                years=[YEAR + 1],
                channel=ConsentRecord.Channel.WEB,
            )
        first = ConsentRecord.objects.filter(user=owner, legislation_year=YEAR, kind="terms").earliest(
            "created_at"
        )
    return {"anna": anna, "bernd": bernd, "clara": clara, "version": first.version, "label": first.label}


def test_the_detail_shows_the_first_agreement_of_the_applications_year(applications: dict[str, Any]) -> None:
    viewer = session("viewer")

    anna = viewer.get(f"{API}{applications['anna'].pk}/", HTTP_HOST=HOST)

    assert anna.status_code == 200, anna.content
    assert anna.json()["agreement"] == {
        "legislation_year": YEAR,
        "agreed_at": "2026-06-15T12:04:05+02:00",
        "text_version": applications["version"],
        "text": applications["label"],
        "channel": "web",
        "channel_label": "Registrierung",
    }
    assert len(applications["version"]) == 64  # SHA-256 of the text shown
    # the rest of the detail is passed as before
    assert anna.json()["registration"]["holder_mismatch"] is None and anna.json()["history"]


def test_no_agreement_is_shown_where_none_was_recorded_for_that_owner_and_year(
    applications: dict[str, Any],
) -> None:
    viewer = session("viewer")

    bernd = viewer.get(f"{API}{applications['bernd'].pk}/", HTTP_HOST=HOST).json()
    clara = viewer.get(f"{API}{applications['clara'].pk}/", HTTP_HOST=HOST).json()

    # another owner's agreement is never shown, nor the owner's own of another year
    assert bernd["agreement"] is None
    assert clara["agreement"] is None


def test_the_export_has_the_agreements_columns(applications: dict[str, Any]) -> None:
    back_office = session("back_office")

    response = back_office.get(f"{API}export.csv", HTTP_HOST=HOST)

    assert response.status_code == 200, response.content
    text = b"".join(response.streaming_content).decode("utf-8").lstrip("\ufeff")  # type: ignore[attr-defined]
    table = list(csv.reader(io.StringIO(text), delimiter=";"))
    header, body = table[0], table[1:]
    assert header[-4:] == [
        "Vereinbarung Dritter (Datum)",
        "Vereinbarung Dritter (Uhrzeit)",
        "Vereinbarung Dritter (Textversion)",
        "Vereinbarung Dritter (Kanal)",
    ]
    by_name = {row[header.index("Nachname")]: row[-4:] for row in body}
    assert by_name["Albers"] == ["15.06.2026", "12:04:05", applications["version"], "Registrierung"]
    assert by_name["Brandt"] == ["", "", "", ""]
    assert by_name["Claasen"] == ["", "", "", ""]


def test_the_openapi_document_describes_the_agreement() -> None:
    from config.api import api

    schema = api.get_openapi_schema()
    detail = schema["paths"]["/api/partner/quota_applications/{application_id}/"]["get"]["responses"][200]
    ref = detail["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    components = schema["components"]["schemas"]
    assert "agreement" in components[ref]["properties"]
    assert set(components["ThirdPartyAgreementOut"]["required"]) >= {"agreed_at", "text_version", "channel"}
