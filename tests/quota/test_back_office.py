"""The back office in the Django admin of a partner's host: the partner's own staff only."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.test import Client as HttpClient
from django_tenants.utils import schema_context

from accounts.models import User
from quota.models import QuotaApplication, QuotaStatus
from quota.services import back_office_staff_ensure
from tests.authority.helpers import move_along, submitted
from tests.factories import ApplicationFactory
from tests.staff_login import client_staff_login

pytestmark = pytest.mark.django_db
HOST = "autohaus.localhost"
CHANGELIST = "/admin/quota/quotaapplication/"


@pytest.fixture(autouse=True)
def _in_autohaus() -> Iterator[None]:
    with schema_context("p_autohaus"):
        yield


@pytest.fixture
def staff(client: HttpClient) -> User:
    user = back_office_staff_ensure(username="anna", email="anna@autohaus.example", password="Staff_2026!")
    client_staff_login(client, host=HOST, username="anna", password="Staff_2026!")
    return user


def test_staff_list_search_and_filter_the_applications(client: HttpClient, staff: User) -> None:
    mine = ApplicationFactory.create(registration__owner__email="kundin@example.de")
    other = ApplicationFactory.create(legislation_year=2020)

    listing = client.get(CHANGELIST, HTTP_HOST=HOST)
    searched = client.get(CHANGELIST, {"q": "kundin@example.de"}, HTTP_HOST=HOST)
    filtered = client.get(CHANGELIST, {"legislation_year": "2020"}, HTTP_HOST=HOST)

    assert listing.status_code == 200
    assert (
        str(mine.registration.sequence) in listing.text and str(other.registration.sequence) in listing.text
    )
    assert str(other.registration.sequence) not in searched.text
    assert str(mine.registration.sequence) not in filtered.text


def test_the_change_page_moves_with_a_reason_and_keeps_the_history(client: HttpClient, staff: User) -> None:
    application = ApplicationFactory.create(registration__vin="WVWZZZ1KZ00000007")
    url = f"{CHANGELIST}{application.pk}/change/"

    page = client.get(url, HTTP_HOST=HOST)
    assert "WVWZZZ1KZ00000007" in page.text  # what the document check read
    assert 'value="qa_paid"' not in page.text  # only the catalogue's moves are offered
    reasonless = client.post(
        url, {"move_to": QuotaStatus.REJECTED_BY_PARTNER, "reason": "", **_inline()}, HTTP_HOST=HOST
    )
    assert reasonless.status_code == 200 and "braucht eine Begründung" in reasonless.text

    moved = client.post(url, {"move_to": QuotaStatus.ENTERED, "reason": "", **_inline()}, HTTP_HOST=HOST)

    assert moved.status_code == 302
    application.refresh_from_db()
    assert application.status == QuotaStatus.ENTERED
    last = application.status_changes.last()
    assert last is not None and last.actor == staff
    history = client.get(url, HTTP_HOST=HOST).text
    assert "Erfasst" in history and ">Entered<" not in history


def test_the_back_office_reads_status_names_in_german(client: HttpClient, staff: User) -> None:
    ApplicationFactory.create(status=QuotaStatus.PICKED_UP)
    listing = client.get(CHANGELIST, HTTP_HOST=HOST).text
    # list column and filter: the catalogue's German names, not the English choice labels
    assert "In Prüfung" in listing and "Picked up" not in listing
    assert "Registrierung eingegangen" in listing and "Rejected by partner" not in listing
    filtered = client.get(CHANGELIST, {"status": QuotaStatus.PICKED_UP}, HTTP_HOST=HOST)
    assert filtered.status_code == 200 and "In Prüfung" in filtered.text


def _inline() -> dict[str, str]:
    return {
        "status_changes-TOTAL_FORMS": "0",
        "status_changes-INITIAL_FORMS": "0",
        "status_changes-MIN_NUM_FORMS": "0",
        "status_changes-MAX_NUM_FORMS": "1000",
    }


def test_a_bulk_move_moves_what_the_catalogue_allows_and_reports_the_rest(
    client: HttpClient, staff: User
) -> None:
    fresh = [ApplicationFactory.create() for _ in range(2)]
    paid_already = ApplicationFactory.create(status=QuotaStatus.PAID)
    ids = [str(a.pk) for a in [*fresh, paid_already]]

    form = client.post(CHANGELIST, {"action": "move_selected", "_selected_action": ids}, HTTP_HOST=HOST)
    assert form.status_code == 200 and "Neuer Status" in form.text
    done = client.post(
        CHANGELIST,
        {"action": "move_selected", "_selected_action": ids, "apply": "1", "status": QuotaStatus.PICKED_UP},
        HTTP_HOST=HOST,
        follow=True,
    )

    assert "2 Anträge" in done.text
    assert f"Nr. {paid_already.registration.sequence}" in done.text
    statuses = {a.pk: a.status for a in QuotaApplication.objects.all()}
    assert [statuses[a.pk] for a in fresh] == [QuotaStatus.PICKED_UP] * 2
    assert statuses[paid_already.pk] == QuotaStatus.PAID


NOTICE = "Mögliche Doppelregistrierung"


def _held_on_stadtwerk(vin: str) -> None:
    """The same vehicle reviewed on another partner: its claim is confirmed."""
    with schema_context("p_stadtwerk"):
        move_along(submitted(subdomain="stadtwerk", vin=vin), QuotaStatus.ENTERED)


def test_the_change_pages_move_past_review_tells_of_a_registry_conflict(
    client: HttpClient, staff: User
) -> None:
    """As the partner area's move dialog does (issue 47): the review's notice, nothing of the
    other partner; a move before review and a vehicle nobody else holds tell nothing."""
    _held_on_stadtwerk("WVWZZZ1KZAW600001")
    clashing = submitted(subdomain="autohaus", vin="WVWZZZ1KZAW600001")
    alone = submitted(subdomain="autohaus", vin="WVWZZZ1KZAW600002")

    def move(application: QuotaApplication, status: str) -> str:
        url = f"{CHANGELIST}{application.pk}/change/"
        answer = client.post(url, {"move_to": status, "reason": "", **_inline()}, HTTP_HOST=HOST, follow=True)
        assert answer.status_code == 200 and answer.redirect_chain[0][1] == 302
        return answer.text

    quiet = move(alone, QuotaStatus.ENTERED)
    told = move(clashing, QuotaStatus.ENTERED)

    assert NOTICE not in quiet
    assert NOTICE in told and "Umweltbundesamt" in told and "stadtwerk" not in told.lower()
    assert 'class="warning"' in told
    assert QuotaApplication.objects.get(pk=clashing.pk).status == QuotaStatus.ENTERED


def test_a_bulk_move_past_review_tells_which_applications_meet_a_registry_conflict(
    client: HttpClient, staff: User
) -> None:
    _held_on_stadtwerk("WVWZZZ1KZAW600003")
    clashing = submitted(subdomain="autohaus", vin="WVWZZZ1KZAW600003")
    alone = submitted(subdomain="autohaus", vin="WVWZZZ1KZAW600004")
    ids = [str(clashing.pk), str(alone.pk)]

    done = client.post(
        CHANGELIST,
        {"action": "move_selected", "_selected_action": ids, "apply": "1", "status": QuotaStatus.ENTERED},
        HTTP_HOST=HOST,
        follow=True,
    )

    assert "2 Anträge" in done.text
    assert done.text.count(NOTICE) == 1
    assert f"Nr. {clashing.registration.sequence}: {NOTICE}" in done.text
    assert f"Nr. {alone.registration.sequence}: " not in done.text


def test_the_csv_export(client: HttpClient, staff: User) -> None:
    application = ApplicationFactory.create(registration__owner__email="export@example.de")
    response = client.post(
        CHANGELIST, {"action": "export_csv", "_selected_action": [str(application.pk)]}, HTTP_HOST=HOST
    )
    text = b"".join(response.streaming_content).decode()  # type: ignore[attr-defined]
    lines = text.lstrip("\ufeff").splitlines()
    assert lines[0].startswith("Nummer;Jahr;Status;Statusname;E-Mail")
    assert lines[1].startswith(
        f"{application.registration.sequence};{application.legislation_year};qa_created;created;export@example.de"
    )


def test_the_scan_is_shown_to_staff_only(client: HttpClient, staff: User) -> None:
    application = ApplicationFactory.create()
    default_storage.save(application.registration.display_scan, ContentFile(b"\xff\xd8 image"))
    default_storage.save(application.registration.zlb_scan, ContentFile(b"\xff\xd8 original"))
    url = f"{CHANGELIST}{application.pk}/scan/"
    shown = client.get(url, HTTP_HOST=HOST)
    assert shown.status_code == 200
    assert b"".join(shown.streaming_content) == b"\xff\xd8 image"  # type: ignore[attr-defined]
    client.logout()
    assert client.get(url, HTTP_HOST=HOST).status_code == 302  # to the login


def test_staff_of_one_partner_open_nothing_on_another(client: HttpClient, staff: User) -> None:
    with schema_context("p_stadtwerk"):
        ApplicationFactory.create()
    response = client.get(CHANGELIST, HTTP_HOST="stadtwerk.localhost")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_an_end_user_cannot_enter_the_back_office(client: HttpClient) -> None:
    User.objects.create_user(username="kunde@example.de", email="kunde@example.de", password="Kunde_2026!")
    # given an owner with a right password, the admin's login refuses the account
    response = client.post(
        "/admin/login/", {"username": "kunde@example.de", "password": "Kunde_2026!"}, HTTP_HOST=HOST
    )
    assert response.status_code == 200 and "errornote" in response.text
    assert client.get(CHANGELIST, HTTP_HOST=HOST).status_code == 302


def test_partners_and_applications_stay_on_their_own_hosts(client: HttpClient) -> None:
    User.objects.create_superuser(username="boss", email="boss@autohaus.example", password="Boss_2026!")
    client_staff_login(client, host=HOST, username="boss", password="Boss_2026!")
    # partner onboarding is the public host's business, not a partner's superuser's
    assert client.get("/admin/tenants/partner/", HTTP_HOST=HOST).status_code in (403, 404)


def test_the_public_host_has_no_back_office(client: HttpClient) -> None:
    with schema_context("public"):
        User.objects.create_superuser(username="ops", email="ops@example.de", password="Ops_2026!")
    client_staff_login(client, host="localhost", username="ops", password="Ops_2026!")
    with schema_context("public"):
        response = client.get(CHANGELIST, HTTP_HOST="localhost")
    assert response.status_code == 403
