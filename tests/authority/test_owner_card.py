"""What owners see of the money path and of a double registration on their portal card
(spec/customer-portal.md sections 3 and 4), over HTTP with the real middleware."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client as HttpClient
from django_tenants.utils import schema_context

from accounts.tokens import tokens_issue
from quota.models import QuotaStatus as S
from tenants.models import Partner
from tests.authority.helpers import move_along, submitted

pytestmark = pytest.mark.django_db
LIST = "/api/end_user_portal/quota_applications/"
VIN = "WVWZZZ1KZAW555555"


def _cards(client: HttpClient, subdomain: str, owner: object, language: str = "de") -> list[dict]:  # type: ignore[type-arg]
    token = tokens_issue(user=owner, partner=Partner.objects.get(subdomain=subdomain))["access"]  # type: ignore[arg-type]
    response = client.get(
        LIST,
        HTTP_HOST=f"{subdomain}.localhost",
        HTTP_AUTHORIZATION=f"Bearer {token}",
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code == 200
    return response.json()["results"]  # type: ignore[no-any-return]


def test_a_paid_card_says_ausgezahlt_and_shows_the_steps(client: HttpClient) -> None:
    with schema_context("p_stadtwerk"):
        application = submitted(subdomain="stadtwerk", vin=VIN)
        owner = application.registration.owner
        move_along(
            application, S.ENTERED, S.PICKED_UP, S.SENT_TO_UBA, S.ACCEPTED, S.TO_PAY, S.TO_SETTLE, S.PAID
        )
        [card] = _cards(client, "stadtwerk", owner)
    timeline = card["status_timeline"]
    current = next(e for e in timeline if e["position"] == "current")
    assert current["status"] == S.PAID and current["details"]["title"] == "Ausgezahlt"
    assert [e["status"] for e in timeline if e["position"] == "future"] == [S.COMPLETED]
    assert "Auszahlung in Vorbereitung" in [e["details"]["title"] for e in timeline]


def test_a_double_registration_card_gives_the_reason_and_nothing_of_the_other_partner(
    client: HttpClient,
) -> None:
    from authority.models import DoubleRegistration
    from authority.services import double_registration_decide, submission_build_now

    # given: autohaus's application went to the authority first; stadtwerk's, reviewed later,
    # met it in the operator's queue and lost
    with schema_context("p_autohaus"):
        first = move_along(submitted(subdomain="autohaus", vin=VIN, with_scan=True), S.ENTERED, S.PICKED_UP)
        first_owner = first.registration.owner
    submission_build_now(
        partner=Partner.objects.get(subdomain="autohaus"), legislation_year=first.legislation_year, actor=None
    )
    with schema_context("p_stadtwerk"):
        second = move_along(submitted(subdomain="stadtwerk", vin=VIN), S.ENTERED)
    double_registration_decide(conflict=DoubleRegistration.objects.get(), actor=None)
    with schema_context("p_stadtwerk"):
        [card] = _cards(client, "stadtwerk", second.registration.owner)

    current = card["status_timeline"][-1]
    assert current["status"] == S.DOUBLE_REGISTRATION and current["position"] == "current"
    assert current["details"]["title"] == "Abgelehnt: Doppelte Registrierung"
    assert "bereits eine THG-Quote beantragt" in current["details"]["subtitles"][0]
    body = str(card).lower()
    assert "autohaus" not in body and first_owner.email.lower() not in body


def test_the_authoritys_rejection_reason_is_on_the_owners_card(
    client: HttpClient, django_capture_on_commit_callbacks: Any
) -> None:
    from authority.services import answer_import, submission_create

    with schema_context("p_stadtwerk"):
        application = move_along(
            submitted(subdomain="stadtwerk", vin=VIN, with_scan=True), S.ENTERED, S.PICKED_UP
        )
        owner = application.registration.owner
    stadtwerk = Partner.objects.get(subdomain="stadtwerk")
    with django_capture_on_commit_callbacks(execute=True):
        [submission] = submission_create(
            legislation_year=application.legislation_year, actor=None, partner_ids=[stadtwerk.pk]
        )
    submission.refresh_from_db()
    answer_import(
        submission=submission,
        data=f"VIN;result;reason\n{VIN};rejected;Fahrzeug nicht zugelassen\n".encode(),
        actor=None,
    )

    with schema_context("p_stadtwerk"):
        [card] = _cards(client, "stadtwerk", owner)
    assert card["status_timeline"][-1] == {
        "status": S.REJECTED_BY_AUTHORITY,
        "position": "current",
        "details": {"title": "Vom Umweltbundesamt abgelehnt", "subtitles": ["Fahrzeug nicht zugelassen"]},
    }
