"""UBA packages and the authority's answer (services, real PostgreSQL and storage)."""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Iterator
from typing import Any

import pypdfium2
import pytest
from django.core.files.storage import default_storage
from django_tenants.utils import schema_context

from authority import services
from authority.models import AuthorityAuditEntry, AuthoritySubmission, AuthoritySubmissionItem
from authority.services import AuthorityError, answer_import, submission_create
from quota.models import QuotaApplication, QuotaStatus
from tests.authority.helpers import READY, YEAR, move_along, submitted

pytestmark = pytest.mark.django_db
VINS = ["WVWZZZ1KZAW000001", "WVWZZZ1KZAW000002", "WVWZZZ1KZAW000003"]


@pytest.fixture
def ready(django_capture_on_commit_callbacks: Any) -> Iterator[dict[str, QuotaApplication]]:
    """Two ready applications on autohaus, one on stadtwerk, and some that are not ready."""
    apps = {}
    with schema_context("p_autohaus"):
        apps["a1"] = move_along(
            submitted(
                subdomain="autohaus", vin=VINS[0], with_scan=True, plate="B-AB 123", energy_code="0004"
            ),
            *READY,
        )
        apps["a2"] = move_along(submitted(subdomain="autohaus", vin=VINS[1], with_scan=True), *READY)
        apps["entered"] = move_along(submitted(subdomain="autohaus", vin="WVWZZZ1KZAW000009"), READY[0])
        apps["other_year"] = move_along(
            submitted(subdomain="autohaus", vin="WVWZZZ1KZAW000008", year=YEAR + 1, with_scan=True), *READY
        )
    with schema_context("p_stadtwerk"):
        apps["s1"] = move_along(submitted(subdomain="stadtwerk", vin=VINS[2], with_scan=True), *READY)
        apps["no_vin"] = move_along(submitted(subdomain="stadtwerk", vin=""), *READY)
    yield apps


def _status(subdomain: str, application: QuotaApplication) -> str:
    with schema_context(f"p_{subdomain}"):
        return QuotaApplication.objects.get(pk=application.pk).status


def test_candidates_are_counted_per_partner(ready: dict[str, QuotaApplication]) -> None:
    counts = {
        c.partner.subdomain: (c.ready, c.without_vin)
        for c in services.submission_candidates(legislation_year=YEAR)
    }
    assert counts["autohaus"] == (2, 0)
    assert counts["stadtwerk"] == (1, 1)


def test_a_package_takes_the_ready_applications_of_the_year_and_holds_a_pdf_per_vehicle_and_a_manifest(
    ready: dict[str, QuotaApplication], django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        submission = submission_create(legislation_year=YEAR, actor=None)

    submission.refresh_from_db()
    assert submission.status == AuthoritySubmission.Status.READY and submission.count == 3
    assert _status("autohaus", ready["a1"]) == QuotaStatus.SENT_TO_UBA
    assert _status("stadtwerk", ready["s1"]) == QuotaStatus.SENT_TO_UBA
    assert _status("autohaus", ready["entered"]) == QuotaStatus.ENTERED
    assert _status("autohaus", ready["other_year"]) == QuotaStatus.PICKED_UP
    assert _status("stadtwerk", ready["no_vin"]) == QuotaStatus.PICKED_UP
    with default_storage.open(submission.file, "rb") as handle:
        archive = zipfile.ZipFile(io.BytesIO(handle.read()))
    names = sorted(archive.namelist())
    seq = {k: a.registration.sequence for k, a in ready.items()}
    numbers = sorted(
        [f"AUTOHAUS-{seq['a1']}-{YEAR}", f"AUTOHAUS-{seq['a2']}-{YEAR}", f"STADTWERK-{seq['s1']}-{YEAR}"]
    )
    assert names == sorted([*(f"{n}.pdf" for n in numbers), "manifest.csv"])
    for name in [n for n in names if n.endswith(".pdf")]:
        pdf = pypdfium2.PdfDocument(archive.read(name))
        assert len(pdf) == 1 and pdf[0].get_size()[0] > 100
    rows = list(csv.DictReader(io.StringIO(archive.read("manifest.csv").decode()), delimiter=";"))
    assert [r["application_number"] for r in rows] == numbers
    first = next(r for r in rows if r["vin"] == VINS[0])
    assert first == {
        "application_number": f"AUTOHAUS-{seq['a1']}-{YEAR}",
        "vin": VINS[0],
        "plate": "B-AB 123",
        "first_registration": "",
        "vehicle_class": "M1",
        "energy_code": "0004",
        "owner_name": "Erika Mustermann",
        "file": f"AUTOHAUS-{seq['a1']}-{YEAR}.pdf",
    }
    # the owner's timeline: sent to the authority
    with schema_context("p_autohaus"):
        last = QuotaApplication.objects.get(pk=ready["a1"].pk).status_changes.last()
    assert last is not None and last.status == QuotaStatus.SENT_TO_UBA
    assert AuthorityAuditEntry.objects.filter(action="submission_create", submission=submission).exists()


def test_no_ready_application_no_package(django_capture_on_commit_callbacks: Any) -> None:
    with pytest.raises(AuthorityError, match="kein Antrag bereit"):
        submission_create(legislation_year=1999, actor=None)
    assert not AuthoritySubmission.objects.filter(legislation_year=1999).exists()


def test_a_missing_scan_fails_the_build_and_a_rebuild_repairs_it(
    ready: dict[str, QuotaApplication], django_capture_on_commit_callbacks: Any
) -> None:
    with schema_context("p_autohaus"):
        scan = ready["a2"].registration.zlb_scan
        with default_storage.open(scan, "rb") as handle:
            kept = handle.read()
        default_storage.delete(scan)
    with django_capture_on_commit_callbacks(execute=True):
        submission = submission_create(legislation_year=YEAR, actor=None)
    submission.refresh_from_db()
    assert submission.status == AuthoritySubmission.Status.FAILED
    assert str(ready["a2"].registration.sequence) in submission.error
    with schema_context("p_autohaus"):
        from django.core.files.base import ContentFile

        default_storage.save(scan, ContentFile(kept))
    with django_capture_on_commit_callbacks(execute=True):
        services.submission_rebuild(submission=submission, actor=None)
    submission.refresh_from_db()
    assert submission.status == AuthoritySubmission.Status.READY and submission.file


def _sent(ready: dict[str, QuotaApplication], capture: Any) -> AuthoritySubmission:
    with capture(execute=True):
        return submission_create(legislation_year=YEAR, actor=None)


def test_the_answer_moves_each_application_with_the_reason_on_the_owners_timeline(
    ready: dict[str, QuotaApplication], django_capture_on_commit_callbacks: Any
) -> None:
    submission = _sent(ready, django_capture_on_commit_callbacks)
    answer = (
        "VIN;result;reason\r\n"
        f"{VINS[0]};accepted;\r\n"
        f"{VINS[1].lower()};rejected;Fahrzeug bereits bei einem anderen Quotenhändler gemeldet\r\n"
        f"{VINS[2]};angenommen;\r\n"
    ).encode("cp1252")

    report = answer_import(submission=submission, data=answer, actor=None)

    assert (report.accepted, report.rejected, report.unanswered) == (2, 1, 0)
    assert _status("autohaus", ready["a1"]) == QuotaStatus.ACCEPTED
    assert _status("stadtwerk", ready["s1"]) == QuotaStatus.ACCEPTED
    with schema_context("p_autohaus"):
        rejected = QuotaApplication.objects.get(pk=ready["a2"].pk)
        last = rejected.status_changes.last()
    assert rejected.status == QuotaStatus.REJECTED_BY_AUTHORITY
    assert last is not None and last.reason == "Fahrzeug bereits bei einem anderen Quotenhändler gemeldet"
    submission.refresh_from_db()
    assert submission.status == AuthoritySubmission.Status.ANSWERED
    assert set(submission.items.values_list("result", flat=True)) == {"accepted", "rejected"}


def test_a_partial_answer_leaves_the_rest_waiting(
    ready: dict[str, QuotaApplication], django_capture_on_commit_callbacks: Any
) -> None:
    submission = _sent(ready, django_capture_on_commit_callbacks)
    report = answer_import(
        submission=submission, data=f"vin,result,reason\n{VINS[0]},accepted,\n".encode(), actor=None
    )
    assert (report.accepted, report.unanswered) == (1, 2)
    submission.refresh_from_db()
    assert submission.status == AuthoritySubmission.Status.READY
    again = answer_import(
        submission=submission, data=f"VIN;result\n{VINS[1]};accepted\n".encode(), actor=None
    )
    assert again.unanswered == 1
    with pytest.raises(AuthorityError) as refused:
        answer_import(submission=submission, data=f"VIN;result\n{VINS[0]};accepted\n".encode(), actor=None)
    assert "schon beantwortet" in refused.value.problems[0]


@pytest.mark.parametrize(
    ("rows", "problem"),
    [
        (
            f"{VINS[0]};accepted;\nWVWZZZ1KZAW999999;accepted;\n",
            "Zeile 3: WVWZZZ1KZAW999999 ist in dieser Einreichung unbekannt.",
        ),
        (
            f"{VINS[0]};accepted;\n{VINS[0]};rejected;doppelt\n",
            "Zeile 3: WVWZZZ1KZAW000001 steht schon in Zeile 2.",
        ),
        (
            f"{VINS[0]};accepted;\n{VINS[1]};rejected;\n",
            "Zeile 3: WVWZZZ1KZAW000002: eine Ablehnung braucht einen Grund",
        ),
        (
            f"{VINS[0]};accepted;\n{VINS[1]};vielleicht;\n",
            "Zeile 3: WVWZZZ1KZAW000002: unbekanntes Ergebnis „vielleicht“",
        ),
        (f"{VINS[0]};accepted;\nKEINE-FIN;accepted;\n", "Zeile 3: „KEINEFIN“ ist keine gültige FIN."),
    ],
)
def test_unknown_duplicate_and_malformed_rows_are_reported_and_nothing_is_applied(
    ready: dict[str, QuotaApplication], django_capture_on_commit_callbacks: Any, rows: str, problem: str
) -> None:
    submission = _sent(ready, django_capture_on_commit_callbacks)

    with pytest.raises(AuthorityError) as refused:
        answer_import(submission=submission, data=("VIN;result;reason\n" + rows).encode(), actor=None)

    assert refused.value.message == "Die Antwort wurde nicht eingespielt: nichts wurde geändert."
    assert any(p.startswith(problem) for p in refused.value.problems), refused.value.problems
    assert _status("autohaus", ready["a1"]) == QuotaStatus.SENT_TO_UBA  # the good row waits too
    assert not submission.items.exclude(result="").exists()
    assert AuthorityAuditEntry.objects.filter(action="answer_refused", submission=submission).exists()


def test_a_row_of_another_package_and_a_moved_application_are_mismatches(
    ready: dict[str, QuotaApplication], django_capture_on_commit_callbacks: Any
) -> None:
    submission = _sent(ready, django_capture_on_commit_callbacks)
    with schema_context("p_autohaus"):
        later = move_along(submitted(subdomain="autohaus", vin="WVWZZZ1KZAW000077", with_scan=True), *READY)
    second = _sent(ready, django_capture_on_commit_callbacks)
    with schema_context("p_stadtwerk"):
        # moved by hand after it was sent: the answer for it no longer fits
        move_along(QuotaApplication.objects.get(pk=ready["s1"].pk), QuotaStatus.DOUBLE_REGISTRATION)

    with pytest.raises(AuthorityError) as refused:
        answer_import(
            submission=submission,
            data=f"VIN;result;reason\n{VINS[0]};accepted;\nWVWZZZ1KZAW000077;accepted;\n{VINS[2]};accepted;\n".encode(),
            actor=None,
        )

    problems = refused.value.problems
    assert (
        problems[0]
        == f"Zeile 3: WVWZZZ1KZAW000077 gehört zur UBA-Einreichung Nr. {second.pk}, nicht zu dieser."
    )
    assert problems[1].startswith(f"Zeile 4: {VINS[2]} (STADTWERK-") and "wartet nicht mehr" in problems[1]
    assert _status("autohaus", ready["a1"]) == QuotaStatus.SENT_TO_UBA
    assert _status("autohaus", later) == QuotaStatus.SENT_TO_UBA


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "leer"),
        (b"FIN;Ergebnis\nX;Y\n", "VIN;result;reason"),
        (b"VIN;result;reason\n", "keine Zeilen"),
        (b"\x00\x01PK\x03\x04", "keine CSV"),
    ],
)
def test_a_file_that_is_no_answer_is_refused(
    ready: dict[str, QuotaApplication], django_capture_on_commit_callbacks: Any, data: bytes, message: str
) -> None:
    submission = _sent(ready, django_capture_on_commit_callbacks)
    with pytest.raises(AuthorityError, match=message):
        answer_import(submission=submission, data=data, actor=None)


def test_an_application_is_in_one_package_only(
    ready: dict[str, QuotaApplication], django_capture_on_commit_callbacks: Any
) -> None:
    _sent(ready, django_capture_on_commit_callbacks)
    with pytest.raises(AuthorityError):
        _sent(ready, django_capture_on_commit_callbacks)
    assert AuthoritySubmissionItem.objects.count() == 3
