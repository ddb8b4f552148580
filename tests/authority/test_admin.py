"""The platform admin's UBA pages over HTTP, through every middleware and the staff login with
its second factor, on the public host; nothing of it on a partner's host."""

from __future__ import annotations

import io
import zipfile
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client as HttpClient
from django_tenants.utils import schema_context

from accounts.models import User
from authority.models import AuthorityAuditEntry, AuthoritySubmission, VehicleClaim
from quota.models import QuotaApplication, QuotaStatus
from quota.services import back_office_staff_ensure
from tenants.models import Partner
from tests.authority.helpers import READY, YEAR, move_along, submitted
from tests.staff_login import client_staff_login

pytestmark = pytest.mark.django_db
PUBLIC = "localhost"
BASE = "/admin/authority/authoritysubmission/"
VINS = ["WVWZZZ1KZAW100001", "WVWZZZ1KZAW100002"]


@pytest.fixture
def admin_client(client: HttpClient) -> HttpClient:
    User.objects.create_superuser("plattform", "plattform@example.com", "Plattform_2026!")
    client_staff_login(client, host=PUBLIC, username="plattform", password="Plattform_2026!")
    return client


@pytest.fixture
def ready() -> list[QuotaApplication]:
    with schema_context("p_autohaus"):
        a = move_along(submitted(subdomain="autohaus", vin=VINS[0], with_scan=True), *READY)
    with schema_context("p_wallbox"):
        b = move_along(submitted(subdomain="wallbox", vin=VINS[1], with_scan=True), *READY)
    return [a, b]


def test_the_platform_admin_builds_downloads_and_answers_a_package(
    admin_client: HttpClient, ready: list[QuotaApplication], django_capture_on_commit_callbacks: Any
) -> None:
    # given: the year's ready applications, counted per partner
    preview = admin_client.get(f"{BASE}add/", {"legislation_year": YEAR}, HTTP_HOST=PUBLIC)
    assert preview.status_code == 200
    assert "autohaus" in preview.text and "wallbox" in preview.text
    assert 'id="partner-autohaus" checked' in preview.text and 'id="partner-wallbox" checked' in preview.text

    # when: the package is built (both partners stay picked)
    with django_capture_on_commit_callbacks(execute=True):
        built = admin_client.post(
            f"{BASE}add/",
            {"legislation_year": YEAR, "partners": partner_ids("autohaus", "wallbox"), "build": "1"},
            HTTP_HOST=PUBLIC,
        )
    assert built.status_code == 302
    # one package per partner, each built and stored before its applications moved
    submission, other = AuthoritySubmission.objects.order_by("pk")
    assert (submission.partner, other.partner) == tuple(
        Partner.objects.get(subdomain=s) for s in ("autohaus", "wallbox")
    )
    assert submission.status == other.status == AuthoritySubmission.Status.READY
    assert submission.count == other.count == 1
    listing = admin_client.get(built["Location"], HTTP_HOST=PUBLIC)
    assert listing.status_code == 200 and "autohaus" in listing.text and "wallbox" in listing.text
    page = admin_client.get(f"{BASE}{submission.pk}/change/", HTTP_HOST=PUBLIC)
    assert (
        "ZIP herunterladen" in page.text and f"AUTOHAUS-{ready[0].registration.sequence}-{YEAR}" in page.text
    )

    download = admin_client.get(f"{BASE}{submission.pk}/download/", HTTP_HOST=PUBLIC)
    assert download.status_code == 200
    archive = zipfile.ZipFile(io.BytesIO(b"".join(download.streaming_content)))  # type: ignore[attr-defined]
    assert sorted(archive.namelist()) == [f"UBA_autohaus_{YEAR}.xlsx", f"{VINS[0]}_{YEAR}.pdf"]

    # then: a bad answer is refused with every problem listed, and nothing moves
    bad = admin_client.post(
        f"{BASE}{submission.pk}/answer/",
        {
            "answer": SimpleUploadedFile(
                "antwort.csv",
                f"VIN;result;reason\n{VINS[0]};accepted;\nWVWZZZ1KZAW999999;accepted;\n".encode(),
            )
        },
        HTTP_HOST=PUBLIC,
    )
    assert bad.status_code == 400
    assert (
        "nichts wurde geändert" in bad.text
        and "WVWZZZ1KZAW999999 ist in dieser Einreichung unbekannt" in bad.text
    )
    with schema_context("p_autohaus"):
        assert QuotaApplication.objects.get(pk=ready[0].pk).status == QuotaStatus.SENT_TO_UBA

    good = admin_client.post(
        f"{BASE}{submission.pk}/answer/",
        {"answer": SimpleUploadedFile("antwort.csv", f"VIN;result\n{VINS[0]};bescheinigt\n".encode())},
        HTTP_HOST=PUBLIC,
        follow=True,
    )
    assert "1 angenommen, 0 abgelehnt, 0 noch ohne Antwort" in good.text
    refused = admin_client.post(
        f"{BASE}{other.pk}/answer/",
        {"answer": SimpleUploadedFile("antwort.csv", f"FIN;Ergebnis\n{VINS[1]};abgelehnt\n".encode())},
        HTTP_HOST=PUBLIC,
        follow=True,
    )
    assert "0 angenommen, 1 abgelehnt, 0 noch ohne Antwort" in refused.text
    with schema_context("p_autohaus"):
        assert QuotaApplication.objects.get(pk=ready[0].pk).status == QuotaStatus.ACCEPTED
    with schema_context("p_wallbox"):
        assert QuotaApplication.objects.get(pk=ready[1].pk).status == QuotaStatus.REJECTED_BY_AUTHORITY
    actions = set(AuthorityAuditEntry.objects.values_list("action", flat=True))
    assert {"submission_create", "submission_download", "answer_refused", "answer_import"} <= actions
    assert {entry.actor.username for entry in AuthorityAuditEntry.objects.filter(action="answer_import")} == {  # type: ignore[union-attr]
        "plattform"
    }


def partner_ids(*subdomains: str) -> list[int]:
    return [Partner.objects.get(subdomain=subdomain).pk for subdomain in subdomains]


def test_a_package_of_the_partners_picked_leaves_the_others_ready(
    admin_client: HttpClient, ready: list[QuotaApplication], django_capture_on_commit_callbacks: Any
) -> None:
    # when: only the Autohaus is picked
    with django_capture_on_commit_callbacks(execute=True):
        built = admin_client.post(
            f"{BASE}add/",
            {"legislation_year": YEAR, "partners": partner_ids("autohaus"), "build": "1"},
            HTTP_HOST=PUBLIC,
        )

    # then: its application went to the authority, the wallbox partner's is still ready
    assert built.status_code == 302
    submission = AuthoritySubmission.objects.get()
    assert submission.count == 1 and submission.partner == Partner.objects.get(subdomain="autohaus")
    assert [item.partner.subdomain for item in submission.items.all()] == ["autohaus"]
    with schema_context("p_autohaus"):
        assert QuotaApplication.objects.get(pk=ready[0].pk).status == QuotaStatus.SENT_TO_UBA
    with schema_context("p_wallbox"):
        assert QuotaApplication.objects.get(pk=ready[1].pk).status == QuotaStatus.PICKED_UP
    entry = AuthorityAuditEntry.objects.get(action="submission_create")
    assert entry.detail["partner"] == "autohaus"
    preview = admin_client.get(f"{BASE}add/", {"legislation_year": YEAR}, HTTP_HOST=PUBLIC)
    assert 'id="partner-autohaus"' not in preview.text and 'id="partner-wallbox" checked' in preview.text


def test_a_package_without_a_partner_picked_is_refused_and_nothing_moves(
    admin_client: HttpClient, ready: list[QuotaApplication]
) -> None:
    page = admin_client.post(
        f"{BASE}add/", {"legislation_year": YEAR, "build": "1"}, HTTP_HOST=PUBLIC, follow=True
    )

    assert page.status_code == 200 and "Bitte wählen Sie mindestens einen Partner." in page.text
    # the table again, with nothing picked
    assert 'id="partner-autohaus">' in page.text and 'id="partner-wallbox">' in page.text
    assert not AuthoritySubmission.objects.exists()
    with schema_context("p_autohaus"):
        assert QuotaApplication.objects.get(pk=ready[0].pk).status == QuotaStatus.PICKED_UP


def test_the_registry_is_searched_by_vin_and_shows_only_hashes(
    admin_client: HttpClient, ready: list[QuotaApplication]
) -> None:
    listing = admin_client.get("/admin/authority/vehicleclaim/", {"q": VINS[0].lower()}, HTTP_HOST=PUBLIC)
    assert listing.status_code == 200
    assert VINS[0] not in listing.text
    assert (
        VehicleClaim.objects.get(application_id=ready[0].pk, partner__subdomain="autohaus").vin_hash[:16]
        in listing.text
    )
    assert "1 Ergebnis" in listing.text or "1 result" in listing.text


def test_an_empty_year_is_refused_with_a_message(admin_client: HttpClient) -> None:
    page = admin_client.post(f"{BASE}add/", {"legislation_year": 2023, "build": "1"}, HTTP_HOST=PUBLIC)
    assert page.status_code == 200 and "kein Antrag bereit" in page.text
    assert not AuthoritySubmission.objects.exists()


def test_a_partners_host_has_no_authority_pages(client: HttpClient) -> None:
    with schema_context("p_autohaus"):
        back_office_staff_ensure(username="anna", email="anna@autohaus.example", password="Staff_2026!")
        User.objects.filter(username="anna").update(is_superuser=True)
    client_staff_login(client, host="autohaus.localhost", username="anna", password="Staff_2026!")
    for url in (
        f"{BASE}",
        f"{BASE}add/",
        "/admin/authority/vehicleclaim/",
        "/admin/authority/doubleregistration/",
    ):
        assert client.get(url, HTTP_HOST="autohaus.localhost").status_code in (403, 404), url


def test_without_the_second_factor_nothing_opens(client: HttpClient) -> None:
    User.objects.create_superuser("halb", "halb@example.com", "Plattform_2026!")
    page = client.get("/admin/login/", HTTP_HOST=PUBLIC)
    token = page.text.split('name="csrfmiddlewaretoken" value="', 1)[1].split('"', 1)[0]
    client.post(
        "/admin/login/",
        {"username": "halb", "password": "Plattform_2026!", "csrfmiddlewaretoken": token},
        HTTP_HOST=PUBLIC,
    )
    response = client.get(f"{BASE}add/", HTTP_HOST=PUBLIC)
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
