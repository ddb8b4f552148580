"""Claims that prove something (issue 47), end to end over HTTP with two partners: owners go
through the registration flow (the real reader reads rendered documents), the partners' staff
review in the partner area, the platform operator builds the UBA packages and decides the
double-registration queue in the platform admin.

Each case failed on the old registry, which claimed at upload whatever the reader read: the
first upload won, the later one turned `qa_double_registration` at once (a squatter won the
claim; the upload's answer told a partner that the VIN was registered elsewhere)."""

from __future__ import annotations

import datetime
import io
import re
import zipfile
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context

from accounts.models import User
from accounts.tokens import tokens_issue
from authority import registry
from authority.models import AuthorityAuditEntry, AuthoritySubmission, DoubleRegistration, VehicleClaim
from privacy.models import ConsentRecord
from quota.models import QuotaApplication, QuotaStatus
from quota.services import vehicle_claims_move
from registrations.models import BevRegistration
from registrations.vin import kba_check_digit
from tenants.models import Partner
from tests.authority.helpers import YEAR, move_along, submitted
from tests.fixtures.zlb import generate
from tests.fixtures.zlb.real import values
from tests.operations.conftest import _sequences_kept
from tests.partner_staff import partner_session, staff_member
from tests.staff_login import client_staff_login

pytestmark = pytest.mark.django_db
__all__ = ["_sequences_kept"]
PUBLIC = "localhost"
QUEUE = "/admin/authority/doubleregistration/"
PACKAGES = "/admin/authority/authoritysubmission/"
PARTNER_API = "/api/partner/quota_applications/"
SEED = 1  # a rendered ZB I the reader reads whole: XP7 (Tesla, Berlin), field 3 'X'
BILLING = {
    "gender": "woman", "first_name": "Anna", "last_name": "Mueller", "account_iban": "DE89370400440532013000",
    "account_name": "Anna Mueller", "charge_card": "", "account_bic": "", "partner_variable": "",
    "street_name": "Hauptstraße", "street_number": "1", "postal_code": "10115", "city": "Berlin",
    "campaign": "", "free_text": "", "full_url_variable_string": "", "vehicle_owner_type": "private",
    "is_vat_mandatory": None, "name_of_business": "", "vat_number": "", "email_promotion_opt_in": False,
}  # fmt: skip


@pytest.fixture(autouse=True)
def _media(tmp_path: Any, settings: Any) -> None:
    settings.MEDIA_ROOT = tmp_path


def document(seed: int = SEED, *, make: str | None = None) -> tuple[bytes, dict[str, str]]:
    """The rendered document of `seed`; with `make`, the same document printed with another make
    in D.1 (the squatter's: someone else's VIN on a document of another make)."""
    if make is None:
        return generate.zlb_document(seed)
    real = values.document_values

    def forged(rng: Any, **kwargs: Any) -> values.Document:
        found = real(rng, **kwargs)
        found.values["D.1"] = found.expected["D.1"] = make
        return found

    values.document_values = forged  # type: ignore[assignment]
    try:
        return generate.zlb_document(seed)
    finally:
        values.document_values = real  # type: ignore[assignment]


def bearer(owner: User, subdomain: str) -> dict[str, str]:
    partner = Partner.objects.get(subdomain=subdomain)
    with schema_context(partner.schema_name):
        return {"Authorization": "Bearer " + tokens_issue(user=owner, partner=partner)["access"]}


def owner_flow(client: Client, subdomain: str, email: str, data: bytes) -> dict[str, Any]:
    """An owner's whole registration flow on the partner's host: upload (the reader reads it),
    'Weiter' (lock), billing data, billing lock (the application is made). Every answer."""
    host = f"{subdomain}.localhost"
    with schema_context(f"p_{subdomain}"):
        owner = User.objects.create(username=email, email=email)
    auth = bearer(owner, subdomain)
    scan = io.BytesIO(data)
    scan.name = "fahrzeugschein.jpg"
    form = {"partner": subdomain, "source": "", "registration_years": str(YEAR), "zlb_scan": scan}
    answers: dict[str, Any] = {}
    answers["upload"] = client.post("/api/bev_registrations/", form, HTTP_HOST=host, headers=auth)
    assert answers["upload"].status_code == 201, answers["upload"].content
    registration_id = answers["upload"].json()[0]["id"]
    answers["lock"] = client.post(
        f"/api/bev_registrations/{registration_id}/lock/?update_related=True", HTTP_HOST=host, headers=auth
    )
    answers["client"] = client.post(
        "/api/clients/", BILLING, content_type="application/json", HTTP_HOST=host, headers=auth
    )
    assert answers["client"].status_code == 201, answers["client"].content
    answers["client_lock"] = client.post(
        f"/api/clients/{answers['client'].json()['id']}/lock/", HTTP_HOST=host, headers=auth
    )
    answers["cards"] = client.get("/api/end_user_portal/quota_applications/", HTTP_HOST=host, headers=auth)
    for name, answer in answers.items():
        assert answer.status_code in (200, 201), (name, answer.content)
    with schema_context(f"p_{subdomain}"):
        application = QuotaApplication.objects.select_related("registration").get(registration__owner=owner)
        # the owner agreed three weeks ago: the 14-day withdrawal period is over for the package
        past = timezone.now() - datetime.timedelta(days=21)
        QuotaApplication.objects.filter(pk=application.pk).update(created_at=past)
        ConsentRecord.objects.filter(user=owner).update(created_at=past)
    answers["application"] = application
    return answers


def staff(subdomain: str, role: str = "back_office") -> Client:
    member, password = staff_member(Partner.objects.get(subdomain=subdomain), role=role)
    return partner_session(Client(enforce_csrf_checks=True), f"{subdomain}.localhost", member, password)


def review(client: Client, subdomain: str, application: QuotaApplication, *statuses: str) -> list[Any]:
    """The partner's back office moves the application past review; each move's result."""
    results = []
    for status in statuses:
        answer = client.post(
            f"{PARTNER_API}moves/",
            {"ids": [application.pk], "status": status},
            content_type="application/json",
            HTTP_HOST=f"{subdomain}.localhost",
        )
        assert answer.status_code == 200, answer.content
        [result] = answer.json()["results"]
        assert result["ok"], result
        results.append(result)
    return results


@pytest.fixture
def operator(client: Client) -> Client:
    User.objects.create_superuser("plattform", "plattform@example.com", "Plattform_2026!")
    client_staff_login(client, host=PUBLIC, username="plattform", password="Plattform_2026!")
    return client


def build_package(operator: Client, subdomain: str, django_capture_on_commit_callbacks: Any) -> Any:
    partner = Partner.objects.get(subdomain=subdomain)
    with django_capture_on_commit_callbacks(execute=True):
        built = operator.post(
            f"{PACKAGES}add/",
            {"legislation_year": YEAR, "partners": [partner.pk], "build": "1"},
            HTTP_HOST=PUBLIC,
        )
    assert built.status_code == 302, built.content[:500]
    return AuthoritySubmission.objects.filter(partner=partner).latest("pk")


def status_of(subdomain: str, application: QuotaApplication) -> str:
    with schema_context(f"p_{subdomain}"):
        return str(QuotaApplication.objects.get(pk=application.pk).status)


# ---------------------------------------------------------------- 1. the make against the WMI


def test_a_document_of_another_make_with_someone_elses_vin_claims_nothing_and_goes_to_review(
    client: Client,
) -> None:
    """The squat of the issue: a rendered document of another make carrying the real owner's
    VIN, uploaded first on another partner through the public flow."""
    forged, truth = document(make="RENAULT")
    genuine, _ = document()

    # when: the squatter first, the real owner later, each through the whole flow
    squat = owner_flow(client, "stadtwerk", "squat@example.de", forged)
    owner = owner_flow(client, "autohaus", "owner@example.de", genuine)

    # then: both read the same VIN; the squat's maker code (XP7: Tesla) is not its D.1 (Renault)
    with schema_context("p_stadtwerk"):
        squat_registration = BevRegistration.objects.get(pk=squat["application"].registration_id)
    assert squat_registration.vin == truth["E"] and squat_registration.make == "RENAULT"
    assert owner["application"].registration.vin == truth["E"]
    # the squat claims nothing and is flagged for review with its reason on field E
    assert not VehicleClaim.objects.filter(
        partner__subdomain="stadtwerk", application_id=squat["application"].pk
    ).exists()
    assert squat_registration.needs_review is True
    assert squat_registration.decided_by["E"] == "wmi_make_mismatch"
    queue = staff("stadtwerk").get(f"{PARTNER_API}review/", {"field": "E"}, HTTP_HOST="stadtwerk.localhost")
    assert queue.status_code == 200
    [row] = [r for r in queue.json()["results"] if r["id"] == squat["application"].pk]
    assert [f["decided_by"] for f in row["fields"] if f["code"] == "E"] == ["wmi_make_mismatch"]
    # the real owner is untouched: created, its provisional claim held, nothing in the queue
    assert status_of("autohaus", owner["application"]) == QuotaStatus.CREATED
    claim = VehicleClaim.objects.get(vin_hash=registry.vin_hash(truth["E"]))
    assert (claim.partner.subdomain, claim.application_id) == ("autohaus", owner["application"].pk)
    assert claim.confirmed_at is None and claim.submitted_at is None
    assert not DoubleRegistration.objects.exists()


def test_the_wmi_decides_only_where_both_sides_are_known() -> None:
    from registrations.vin import make_conflict

    assert make_conflict("XP70WB155EJ707272", "RENAULT")
    assert make_conflict("WVWZZZ1KZAW000123", "TESLA")
    assert not make_conflict("XP70WB155EJ707272", "TESLA")
    assert not make_conflict("W1KR6FX15J64U4365", "MERCEDES-BENZ")
    assert not make_conflict("TMBJ8AB1234567890", "ŠKODA")
    assert not make_conflict("WMWXP31000T000001", "BMW MINI")
    assert not make_conflict("WVWZZZ1KZAW000123", "")  # D.1 unread
    assert not make_conflict("WVWZZZ1KZAW000123", "ABT E-LINE")  # a make the table does not know
    assert not make_conflict("LZUXXX12345678901", "RENAULT")  # a WMI the table does not know


# ------------------------------- 2. and 3. provisional at upload, confirmed at review, decided
# ------------------------------- by the earlier submission in the operator's queue


def test_the_earlier_submission_not_the_earlier_upload_keeps_the_vehicle(
    client: Client, operator: Client, django_capture_on_commit_callbacks: Any
) -> None:
    data, truth = document()
    vin = truth["E"]
    # given: the same vehicle uploaded on autohaus first, on stadtwerk later (the same make: a
    # perfect copy passes every check of the document itself)
    first = owner_flow(Client(), "autohaus", "first@example.de", data)["application"]
    later = owner_flow(Client(), "stadtwerk", "later@example.de", data)["application"]

    # then: both provisional, nobody is a double registration, nothing in the queue
    assert status_of("autohaus", first) == status_of("stadtwerk", later) == QuotaStatus.CREATED
    claims = VehicleClaim.objects.filter(vin_hash=registry.vin_hash(vin))
    assert claims.count() == 2 and not claims.filter(confirmed_at__isnull=False).exists()
    assert not DoubleRegistration.objects.exists()

    # when: stadtwerk reviews first; a provisional claim elsewhere makes no conflict
    stadtwerk, autohaus = staff("stadtwerk"), staff("autohaus")
    quiet = review(stadtwerk, "stadtwerk", later, QuotaStatus.ENTERED, QuotaStatus.PICKED_UP)
    assert all(result["notice"] is None for result in quiet)
    assert not DoubleRegistration.objects.exists()
    # autohaus reviews: two confirmed claims are a conflict, told in the review's answer
    [told] = review(autohaus, "autohaus", first, QuotaStatus.ENTERED)
    assert "Mögliche Doppelregistrierung" in told["notice"] and "stadtwerk" not in told["notice"]
    review(autohaus, "autohaus", first, QuotaStatus.PICKED_UP)
    conflict = DoubleRegistration.objects.get()
    assert conflict.status == DoubleRegistration.Status.OPEN
    assert (conflict.partner.subdomain, conflict.application_id) == ("autohaus", first.pk)
    assert (conflict.holder_partner.subdomain, conflict.holder_application_id) == ("stadtwerk", later.pk)
    # nobody was rejected at review: the queue decides
    assert status_of("autohaus", first) == status_of("stadtwerk", later) == QuotaStatus.PICKED_UP

    # the operator's queue lists it; both documents side by side
    listing = operator.get(QUEUE, HTTP_HOST=PUBLIC)
    assert listing.status_code == 200 and "Dokumente vergleichen" in listing.text
    page = operator.get(f"{QUEUE}{conflict.pk}/compare/", HTTP_HOST=PUBLIC)
    assert page.status_code == 200
    assert page.text.count(vin) == 2 and 'data-side="application"' in page.text
    assert 'data-side="holder"' in page.text and page.text.count("nicht eingereicht") == 2
    for side in ("application", "holder"):
        picture = operator.get(f"{QUEUE}{conflict.pk}/document/{side}/", HTTP_HOST=PUBLIC)
        assert picture.status_code == 200
        assert b"".join(picture.streaming_content)[:3] == b"\xff\xd8\xff"  # type: ignore[attr-defined]
    # before either went to the authority, nothing can be decided
    early = operator.post(f"{QUEUE}{conflict.pk}/compare/", {"decide": "1"}, HTTP_HOST=PUBLIC)
    assert early.status_code == 400 and "frühere Einreichung" in early.text
    assert DoubleRegistration.objects.get().status == DoubleRegistration.Status.OPEN

    # when: stadtwerk's package goes first (the later upload), then autohaus's
    sent = build_package(operator, "stadtwerk", django_capture_on_commit_callbacks)
    assert sent.status == AuthoritySubmission.Status.READY and sent.count == 1
    left = build_package(operator, "autohaus", django_capture_on_commit_callbacks)

    # then: autohaus's is left out with the reason, still picked up, nothing decided by itself
    assert left.status == AuthoritySubmission.Status.FAILED
    assert [entry["reason"] for entry in left.left_out] == [
        f"Mögliche Doppelregistrierung: das Fahrzeug ist für {YEAR} schon mit einem anderen Antrag "
        "eingereicht (in der Warteschlange Doppelregistrierungen)."
    ]
    assert status_of("stadtwerk", later) == QuotaStatus.SENT_TO_UBA
    assert status_of("autohaus", first) == QuotaStatus.PICKED_UP
    assert DoubleRegistration.objects.get().status == DoubleRegistration.Status.OPEN
    page = operator.get(f"{QUEUE}{conflict.pk}/compare/", HTTP_HOST=PUBLIC)
    assert f"UBA-Einreichung Nr. {sent.pk} am" in page.text

    # when: the operator decides
    decided = operator.post(f"{QUEUE}{conflict.pk}/compare/", {"decide": "1"}, HTTP_HOST=PUBLIC)

    # then: the earlier submission keeps it; the earlier upload is the double registration
    assert decided.status_code == 302
    assert status_of("stadtwerk", later) == QuotaStatus.SENT_TO_UBA
    assert status_of("autohaus", first) == QuotaStatus.DOUBLE_REGISTRATION
    conflict.refresh_from_db()
    assert (conflict.status, conflict.kept) == (DoubleRegistration.Status.DECIDED, "holder")
    assert conflict.decided_by is not None and conflict.decided_by.username == "plattform"
    holder = registry.vehicle_holder(vin=vin, legislation_year=YEAR)
    assert holder is not None and (holder.partner.subdomain, holder.application_id) == ("stadtwerk", later.pk)
    assert not VehicleClaim.objects.filter(partner__subdomain="autohaus", application_id=first.pk).exists()
    assert AuthorityAuditEntry.objects.filter(action="double_registration_decide").count() == 1
    with schema_context("p_autohaus"):
        reason = QuotaApplication.objects.get(pk=first.pk).status_changes.last()
        assert reason is not None and "bereits eine THG-Quote beantragt" in reason.reason
        assert "stadtwerk" not in reason.reason.lower()
    # decided once
    again = operator.post(f"{QUEUE}{conflict.pk}/compare/", {"decide": "1"}, HTTP_HOST=PUBLIC)
    assert again.status_code == 400 and "bereits erledigt" in again.text and 'name="decide"' not in again.text
    assert status_of("stadtwerk", later) == QuotaStatus.SENT_TO_UBA


def test_only_the_operator_sees_and_decides_the_queue(client: Client) -> None:
    with schema_context("p_autohaus"):
        first = move_along(submitted(subdomain="autohaus", vin="WVWZZZ1KZAW300001"), QuotaStatus.ENTERED)
    with schema_context("p_stadtwerk"):
        move_along(submitted(subdomain="stadtwerk", vin="WVWZZZ1KZAW300001"), QuotaStatus.ENTERED)
    conflict = DoubleRegistration.objects.get()
    # a partner's admin on its own host: no queue, no documents, no decision
    with schema_context("p_autohaus"):
        User.objects.create_superuser("anna", "anna@autohaus.example", "Staff_2026!")
    client_staff_login(client, host="autohaus.localhost", username="anna", password="Staff_2026!")
    for url in (QUEUE, f"{QUEUE}{conflict.pk}/compare/", f"{QUEUE}{conflict.pk}/document/holder/"):
        assert client.get(url, HTTP_HOST="autohaus.localhost").status_code in (403, 404), url
    refused = client.post(f"{QUEUE}{conflict.pk}/compare/", {"decide": "1"}, HTTP_HOST="autohaus.localhost")
    assert refused.status_code in (403, 404)
    # a platform staff member who may only look: the page, but no decision
    viewer = Client()
    looker = User.objects.create_user("sicht", "sicht@example.com", "Plattform_2026!", is_staff=True)
    from django.contrib.auth.models import Permission

    looker.user_permissions.add(Permission.objects.get(codename="view_doubleregistration"))
    client_staff_login(viewer, host=PUBLIC, username="sicht", password="Plattform_2026!")
    page = viewer.get(f"{QUEUE}{conflict.pk}/compare/", HTTP_HOST=PUBLIC)
    assert page.status_code == 200 and 'name="decide"' not in page.text
    assert viewer.post(f"{QUEUE}{conflict.pk}/compare/", {"decide": "1"}, HTTP_HOST=PUBLIC).status_code == 404
    assert DoubleRegistration.objects.get().status == DoubleRegistration.Status.OPEN
    with schema_context("p_autohaus"):
        assert QuotaApplication.objects.get(pk=first.pk).status == QuotaStatus.ENTERED


def test_a_released_side_settles_its_open_conflict() -> None:
    with schema_context("p_autohaus"):
        first = move_along(submitted(subdomain="autohaus", vin="WVWZZZ1KZAW300002"), QuotaStatus.ENTERED)
    with schema_context("p_stadtwerk"):
        move_along(submitted(subdomain="stadtwerk", vin="WVWZZZ1KZAW300002"), QuotaStatus.ENTERED)
    assert DoubleRegistration.objects.get().status == DoubleRegistration.Status.OPEN
    with schema_context("p_autohaus"):
        move_along(first, QuotaStatus.REJECTED_BY_PARTNER)
    assert DoubleRegistration.objects.get().status == DoubleRegistration.Status.WITHDRAWN


# ---------------------------------------------------------------- 4. no oracle in any answer

_ID = re.compile(r"\d+")
_SIGNED = re.compile(r"/images/[^/]+/")  # a scan's signed, token-bound address
VARYING = {
    *("id", "sequence", "uuid", "vin", "email", "username", "file_name", "owner_name", "account_iban"),
    *("size", "position", "sha256"),  # a file's own in a bulk upload
}


def _shape(value: Any, key: str = "") -> Any:
    """The answer with what differs between two owners anyway (ids, numbers, names, dates,
    the VIN itself) blanked: what is left must not differ."""
    if isinstance(value, dict):
        return {k: _shape(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_shape(v, key) for v in value]
    if key in VARYING or key.endswith(("_id", "_at", "_url", "_date")) or key in ("created", "date"):
        return "…"
    if isinstance(value, str):
        return _ID.sub("#", _SIGNED.sub("/images/…/", value))
    return value


def _diff(a: Any, b: Any) -> str:
    import difflib
    import json

    before, after = (json.dumps(x, indent=1, sort_keys=True, default=str).splitlines() for x in (a, b))
    return "\n".join(difflib.unified_diff(before, after, lineterm="", n=1))


def test_the_flows_answers_for_a_vin_claimed_elsewhere_and_a_fresh_one_are_the_same(client: Client) -> None:
    taken_vin = "WVWZZZ1KZAW400001"
    # given: the vehicle reviewed and confirmed on autohaus
    with schema_context("p_autohaus"):
        move_along(submitted(subdomain="autohaus", vin=taken_vin), QuotaStatus.ENTERED, QuotaStatus.PICKED_UP)
    assert VehicleClaim.objects.get(vin_hash=registry.vin_hash(taken_vin)).confirmed_at is not None

    # when: two owners on stadtwerk, one with the taken vehicle, one with a fresh one; each the
    # billing and its lock over HTTP (the call that makes the application and its claim), then
    # the portal's cards and the partner area's list and detail before review
    answers = {}
    for label, vin in (("taken", taken_vin), ("fresh", "WVWZZZ1KZAW400002")):
        with schema_context("p_stadtwerk"):
            owner = User.objects.create(username=f"{label}@example.de", email=f"{label}@example.de")
            from tests.factories import RegistrationFactory

            registration = RegistrationFactory.create(
                owner=owner, vin=vin, registration_years=[YEAR], check_digit=kba_check_digit(vin)
            )
        auth = bearer(owner, "stadtwerk")
        host = "stadtwerk.localhost"
        created = client.post(
            "/api/clients/", BILLING, content_type="application/json", HTTP_HOST=host, headers=auth
        )
        locked = client.post(f"/api/clients/{created.json()['id']}/lock/", HTTP_HOST=host, headers=auth)
        cards = client.get("/api/end_user_portal/quota_applications/", HTTP_HOST=host, headers=auth)
        with schema_context("p_stadtwerk"):
            application = QuotaApplication.objects.get(registration=registration)
        viewer = staff("stadtwerk", "viewer")
        listing = viewer.get(PARTNER_API, HTTP_HOST=host)
        [row] = [r for r in listing.json()["results"] if r["id"] == application.pk]
        detail = viewer.get(f"{PARTNER_API}{application.pk}/", HTTP_HOST=host)
        answers[label] = [(r.status_code, _shape(r.json())) for r in (created, locked, cards, detail)]
        answers[label].append((listing.status_code, _shape(row)))

    # then: the same answers apart from ids; nobody is a double registration
    for taken, fresh in zip(answers["taken"], answers["fresh"], strict=True):
        assert taken == fresh, _diff(taken, fresh)
    with schema_context("p_stadtwerk"):
        assert set(QuotaApplication.objects.values_list("status", flat=True)) == {QuotaStatus.CREATED}
    assert DoubleRegistration.objects.count() == 0


def test_the_bulk_uploads_answers_for_a_vin_claimed_elsewhere_and_a_fresh_one_are_the_same(
    django_capture_on_commit_callbacks: Any,
) -> None:
    taken, truth = document(SEED)
    fresh, _ = document(3)
    # given: the vehicle of the first document reviewed on autohaus
    with schema_context("p_autohaus"):
        move_along(submitted(subdomain="autohaus", vin=truth["E"]), QuotaStatus.ENTERED)
    admin = staff("stadtwerk", "partner_admin")
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as written:
        written.writestr("a.jpg", taken)
        written.writestr("b.jpg", fresh)
    header = "file_name;email;gender;first_name;last_name;street_name;street_number;postal_code;city;account_iban;vehicle_owner_type"
    rows = [
        f"{name};{email};Frau;Anna;Müller;Hauptstraße;1;10115;Berlin;DE89370400440532013000;privat"
        for name, email in (("a.jpg", "a@flotte.example"), ("b.jpg", "b@flotte.example"))
    ]
    owners = (header + "\n" + "\n".join(rows) + "\n").encode()

    # when (the upload's task runs at the commit, in the partner's schema as the worker would)
    with schema_context("p_stadtwerk"), django_capture_on_commit_callbacks(execute=True):
        created = admin.post(
            "/api/partner/bulk_uploads/",
            {
                "archive": SimpleUploadedFile("flotte.zip", archive.getvalue(), "application/zip"),
                "owners_csv": SimpleUploadedFile("halter.csv", owners, "text/csv"),
            },
            HTTP_HOST="stadtwerk.localhost",
        )
    assert created.status_code == 201, created.content
    progress = admin.get(
        f"/api/partner/bulk_uploads/{created.json()['id']}/", HTTP_HOST="stadtwerk.localhost"
    )

    # then: both accepted alike, both applications created; nothing tells one from the other
    items = {item["file_name"]: item for item in progress.json()["items"]}
    assert items["a.jpg"]["status"] == items["b.jpg"]["status"] == "accepted"
    assert _shape(items["a.jpg"]) == _shape(items["b.jpg"]), _diff(
        _shape(items["a.jpg"]), _shape(items["b.jpg"])
    )
    assert [a["status"] for a in items["a.jpg"]["applications"]] == [QuotaStatus.CREATED]
    assert DoubleRegistration.objects.count() == 0


# ---------------------------------------------------------------- 5. a corrected VIN


def test_a_corrected_vin_past_review_moves_a_confirmed_claim_and_meets_its_conflict() -> None:
    misread, right = "WVWZZZ1KZAW500001", "WVWZZZ1KZAW500002"
    with schema_context("p_autohaus"):
        other = move_along(submitted(subdomain="autohaus", vin=right), QuotaStatus.ENTERED)
    with schema_context("p_stadtwerk"):
        application = move_along(submitted(subdomain="stadtwerk", vin=misread), QuotaStatus.ENTERED)
    assert not DoubleRegistration.objects.exists()

    client = staff("stadtwerk")
    answer = client.post(
        f"{PARTNER_API}{application.pk}/corrections/",
        {"field": "E", "value": right},
        content_type="application/json",
        HTTP_HOST="stadtwerk.localhost",
    )

    assert answer.status_code == 200, answer.content
    claim = VehicleClaim.objects.get(partner__subdomain="stadtwerk")
    assert (claim.vin_hash, claim.application_id) == (registry.vin_hash(right), application.pk)
    assert claim.confirmed_at is not None  # it had passed review: still confirmed
    assert not VehicleClaim.objects.filter(vin_hash=registry.vin_hash(misread)).exists()
    conflict = DoubleRegistration.objects.get()
    assert (conflict.holder_partner.subdomain, conflict.holder_application_id) == ("autohaus", other.pk)


def test_a_corrected_vin_moves_the_claim_in_one_transaction() -> None:
    misread, right = "WVWZZZ1KZAW500003", "WVWZZZ1KZAW500004"
    with schema_context("p_stadtwerk"):
        application = move_along(submitted(subdomain="stadtwerk", vin=misread), QuotaStatus.ENTERED)
        registration = BevRegistration.objects.get(pk=application.registration_id)
        with pytest.raises(RuntimeError), transaction.atomic():
            BevRegistration.objects.filter(pk=registration.pk).update(vin=right)
            registration.vin = right
            vehicle_claims_move(registration=registration)
            assert VehicleClaim.objects.get(application_id=application.pk).vin_hash == registry.vin_hash(
                right
            )
            raise RuntimeError("the audit entry failed")
    claim = VehicleClaim.objects.get(application_id=application.pk)
    assert claim.vin_hash == registry.vin_hash(misread) and claim.confirmed_at is not None


def test_correcting_d1_to_another_make_releases_the_claim_and_flags_the_vin() -> None:
    vin = "WVWZZZ1KZAW500005"
    with schema_context("p_stadtwerk"):
        application = submitted(subdomain="stadtwerk", vin=vin, make="VOLKSWAGEN")
    assert VehicleClaim.objects.filter(application_id=application.pk).exists()

    answer = staff("stadtwerk").post(
        f"{PARTNER_API}{application.pk}/corrections/",
        {"field": "D.1", "value": "TESLA"},
        content_type="application/json",
        HTTP_HOST="stadtwerk.localhost",
    )

    assert answer.status_code == 200, answer.content
    assert not VehicleClaim.objects.filter(application_id=application.pk).exists()
    assert answer.json()["registration"]["decided_by"]["E"] == "wmi_make_mismatch"
