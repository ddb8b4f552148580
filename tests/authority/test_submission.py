"""UBA packages as the authority takes them, and the authority's answer (services and the
command line, real PostgreSQL and storage): opened and read back in the tests."""

from __future__ import annotations

import csv
import datetime
import io
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pypdfium2
import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import CommandError, call_command
from django.utils import timezone
from django_tenants.utils import schema_context
from openpyxl import Workbook, load_workbook

from authority import package, services
from authority.models import AuthorityAuditEntry, AuthoritySubmission, AuthoritySubmissionItem
from authority.services import AuthorityError, answer_import, submission_create
from common.text import text_problem
from privacy.models import ConsentRecord
from quota.models import QuotaApplication, QuotaStatus
from registrations.vin import kba_check_digit
from tests.authority.helpers import READY, YEAR, move_along, submitted

pytestmark = pytest.mark.django_db
VINS = ["WVWZZZ1KZAW000001", "WVWZZZ1KZAW000002", "WVWZZZ1KZAW000003"]


@pytest.fixture
def ready() -> Iterator[dict[str, QuotaApplication]]:
    """Two ready applications on autohaus, one on stadtwerk, and some that cannot go."""
    apps = {}
    with schema_context("p_autohaus"):
        apps["a1"] = move_along(
            submitted(
                subdomain="autohaus",
                vin=VINS[0],
                with_scan=True,
                holder_name="Mustermann",
                holder_first_names="Erika Maria",
                check_digit="9",
                registration_date=datetime.date(2024, 3, 1),
            ),
            *READY,
        )
        apps["a2"] = move_along(
            submitted(subdomain="autohaus", vin=VINS[1], with_scan=True, vehicle_class="N1"), *READY
        )
        apps["entered"] = move_along(submitted(subdomain="autohaus", vin="WVWZZZ1KZAW000009"), READY[0])
        apps["other_year"] = move_along(
            submitted(subdomain="autohaus", vin="WVWZZZ1KZAW000008", year=YEAR + 1, with_scan=True), *READY
        )
        apps["fresh"] = move_along(
            submitted(subdomain="autohaus", vin="WVWZZZ1KZAW000007", with_scan=True, agreed_days_ago=3),
            *READY,
        )
        apps["no_scan"] = move_along(submitted(subdomain="autohaus", vin="WVWZZZ1KZAW000006"), *READY)
        apps["moped"] = move_along(
            submitted(subdomain="autohaus", vin="WVWZZZ1KZAW000005", with_scan=True, vehicle_class="L1e-B"),
            *READY,
        )
    with schema_context("p_stadtwerk"):
        apps["s1"] = move_along(submitted(subdomain="stadtwerk", vin=VINS[2], with_scan=True), *READY)
        apps["no_vin"] = move_along(submitted(subdomain="stadtwerk", vin=""), *READY)
    yield apps


def _status(subdomain: str, application: QuotaApplication) -> str:
    with schema_context(f"p_{subdomain}"):
        return QuotaApplication.objects.get(pk=application.pk).status


def _build(capture: Any, **kwargs: Any) -> list[AuthoritySubmission]:
    with capture(execute=True):
        submissions = submission_create(legislation_year=YEAR, actor=None, **kwargs)
    for submission in submissions:
        submission.refresh_from_db()
    return submissions


def _archive(submission: AuthoritySubmission) -> zipfile.ZipFile:
    with default_storage.open(submission.file, "rb") as handle:
        return zipfile.ZipFile(io.BytesIO(handle.read()))


def test_candidates_are_counted_per_partner(ready: dict[str, QuotaApplication]) -> None:
    counts = {
        c.partner.subdomain: (c.ready, c.without_vin)
        for c in services.submission_candidates(legislation_year=YEAR)
    }
    assert counts["autohaus"] == (5, 0)
    assert counts["stadtwerk"] == (1, 1)


def test_a_package_per_partner_with_a_pdf_per_vehicle_named_by_vin_and_the_authoritys_spreadsheet(
    ready: dict[str, QuotaApplication], django_capture_on_commit_callbacks: Any
) -> None:
    autohaus, stadtwerk = _build(django_capture_on_commit_callbacks)

    assert (autohaus.partner_id, stadtwerk.partner_id) == (_pk("autohaus"), _pk("stadtwerk"))
    assert autohaus.status == AuthoritySubmission.Status.READY and autohaus.count == 2
    assert _status("autohaus", ready["a1"]) == QuotaStatus.SENT_TO_UBA
    assert _status("autohaus", ready["a2"]) == QuotaStatus.SENT_TO_UBA
    for kept in ("entered", "fresh", "no_scan", "moped"):
        assert _status("autohaus", ready[kept]) in (QuotaStatus.ENTERED, QuotaStatus.PICKED_UP)
    assert _status("autohaus", ready["other_year"]) == QuotaStatus.PICKED_UP

    archive = _archive(autohaus)
    names = sorted(archive.namelist())
    assert names == sorted([f"{VINS[0]}_{YEAR}.pdf", f"{VINS[1]}_{YEAR}.pdf", f"UBA_autohaus_{YEAR}.xlsx"])
    assert not any("/" in name for name in names)  # no folders
    for name in [n for n in names if n.endswith(".pdf")]:
        pdf = pypdfium2.PdfDocument(archive.read(name))
        assert len(pdf) == 1 and pdf[0].get_size()[0] > 100

    sheet = load_workbook(io.BytesIO(archive.read(f"UBA_autohaus_{YEAR}.xlsx"))).active
    rows = [list(row) for row in sheet.iter_rows(values_only=True)]
    assert rows[0] == package.COLUMNS
    agreed = timezone.localdate() - datetime.timedelta(days=20)
    first, second = rows[1], rows[2]
    assert first[0] == "Mustermann, Erika Maria"  # the holder as printed (C.1.1, C.1.2)
    assert first[1].date() == datetime.date(2024, 3, 1)  # I
    assert first[2:6] == [VINS[0], "9", "Elektro", "M1"]
    assert first[6].date() == agreed and first[7] == 2000
    assert second[0] == "Mustermann, Erika"  # no holder read: the billing name
    assert second[3] == kba_check_digit(VINS[1]) == "0"  # field 3 computed where the reader stored none
    assert second[5] == "N1" and second[7] == 3000
    assert rows[-2][6:] == ["Summe (kWh)", 5000] and rows[-2][0] == "2 Fahrzeuge"
    assert rows[-1][6:] == ["Summe (MWh)", 5]

    left = {entry["application_number"]: entry["reason"] for entry in autohaus.left_out}
    seq = {k: a.registration.sequence for k, a in ready.items()}
    assert left[f"AUTOHAUS-{seq['no_scan']}-{YEAR}"] == package.NO_SCAN
    assert left[f"AUTOHAUS-{seq['fresh']}-{YEAR}"].startswith("Widerrufsfrist läuft noch bis ")
    assert left[f"AUTOHAUS-{seq['moped']}-{YEAR}"].startswith("Fahrzeugklasse L1e-B: keine anrechenbare")
    assert stadtwerk.count == 1
    assert [entry["reason"] for entry in stadtwerk.left_out] == [package.NO_VIN]
    with schema_context("p_autohaus"):
        last = QuotaApplication.objects.get(pk=ready["a1"].pk).status_changes.last()
    assert last is not None and last.status == QuotaStatus.SENT_TO_UBA
    assert AuthorityAuditEntry.objects.filter(action="submission_create", submission=autohaus).exists()


def test_the_agreement_date_is_the_first_terms_consent_for_the_year(
    ready: dict[str, QuotaApplication], django_capture_on_commit_callbacks: Any
) -> None:
    agreed = timezone.now() - datetime.timedelta(days=40)
    with schema_context("p_autohaus"):
        ConsentRecord.objects.create(
            user=ready["a1"].registration.owner,
            kind=ConsentRecord.Kind.TERMS,
            given=True,
            legislation_year=YEAR,
            version="x" * 64,
            channel=ConsentRecord.Channel.WEB,
            created_at=agreed,
        )
    [autohaus] = _build(django_capture_on_commit_callbacks, partner_ids=[_pk("autohaus")])
    sheet = load_workbook(io.BytesIO(_archive(autohaus).read(f"UBA_autohaus_{YEAR}.xlsx"))).active
    assert sheet.cell(2, 7).value.date() == timezone.localdate(agreed)


def _pk(subdomain: str) -> int:
    from tenants.models import Partner

    return Partner.objects.get(subdomain=subdomain).pk


def test_no_ready_application_no_package() -> None:
    with pytest.raises(AuthorityError, match="kein Antrag bereit"):
        submission_create(legislation_year=1999, actor=None)
    assert not AuthoritySubmission.objects.filter(legislation_year=1999).exists()


def test_a_build_that_fails_moves_nothing_and_a_rebuild_sends_it(
    ready: dict[str, QuotaApplication], django_capture_on_commit_callbacks: Any, monkeypatch: Any
) -> None:
    # given: the storage refuses to keep the package (full disk, bucket down)
    def refuse(*args: Any, **kwargs: Any) -> str:
        raise OSError("bucket unreachable")

    monkeypatch.setattr(package, "_store", refuse)
    [autohaus] = _build(django_capture_on_commit_callbacks, partner_ids=[_pk("autohaus")])

    assert autohaus.status == AuthoritySubmission.Status.FAILED
    assert autohaus.error == "Das Paket konnte nicht gespeichert werden (OSError)."
    assert _status("autohaus", ready["a1"]) == QuotaStatus.PICKED_UP  # nothing moved
    assert not autohaus.items.exists()
    with pytest.raises(AuthorityError, match="nicht übermittelt"):
        answer_import(submission=autohaus, data=f"VIN;result\n{VINS[0]};accepted\n".encode(), actor=None)

    monkeypatch.undo()
    with django_capture_on_commit_callbacks(execute=True):
        services.submission_rebuild(submission=autohaus, actor=None)
    autohaus.refresh_from_db()
    assert autohaus.status == AuthoritySubmission.Status.READY and autohaus.count == 2
    assert _status("autohaus", ready["a1"]) == QuotaStatus.SENT_TO_UBA


def test_an_unreadable_scan_is_left_out_with_its_reason(
    ready: dict[str, QuotaApplication], django_capture_on_commit_callbacks: Any
) -> None:
    with schema_context("p_autohaus"):
        scan = ready["a2"].registration.zlb_scan
        default_storage.delete(scan)
        default_storage.save(scan, ContentFile(b"kein Bild"))
    [autohaus] = _build(django_capture_on_commit_callbacks, partner_ids=[_pk("autohaus")])

    assert autohaus.status == AuthoritySubmission.Status.READY and autohaus.count == 1
    number = f"AUTOHAUS-{ready['a2'].registration.sequence}-{YEAR}"
    assert {"application_number": number, "reason": package.NO_SCAN} in autohaus.left_out
    assert _status("autohaus", ready["a2"]) == QuotaStatus.PICKED_UP


def test_the_command_line_builds_the_package_as_the_admin_does(
    ready: dict[str, QuotaApplication], tmp_path: Path
) -> None:
    out = tmp_path / "paket.zip"
    printed = io.StringIO()
    call_command("uba_package", "autohaus", str(YEAR), "--out", str(out), stdout=printed)

    assert sorted(zipfile.ZipFile(out).namelist()) == sorted(
        [f"{VINS[0]}_{YEAR}.pdf", f"{VINS[1]}_{YEAR}.pdf", f"UBA_autohaus_{YEAR}.xlsx"]
    )
    assert "2 Fahrzeuge, 3 nicht im Paket" in printed.getvalue()
    assert "Widerrufsfrist läuft noch bis" in printed.getvalue()
    assert _status("autohaus", ready["a1"]) == QuotaStatus.SENT_TO_UBA
    with pytest.raises(CommandError, match="kein Antrag bereit"):
        call_command("uba_package", "autohaus", str(YEAR), "--out", str(out), stdout=io.StringIO())


def _sent(capture: Any) -> AuthoritySubmission:
    [autohaus] = _build(capture, partner_ids=[_pk("autohaus")])
    return autohaus


def xlsx(rows: list[list[str]]) -> bytes:
    book = Workbook()
    for row in rows:
        book.active.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_the_answer_maps_each_vin_to_certified_or_refused_and_keeps_the_file(
    ready: dict[str, QuotaApplication], django_capture_on_commit_callbacks: Any
) -> None:
    submission = _sent(django_capture_on_commit_callbacks)
    answer = xlsx([["FIN", "Ergebnis"], [VINS[0], "bescheinigt"], [VINS[1].lower(), "abgelehnt"]])

    report = answer_import(submission=submission, data=answer, actor=None)

    assert (report.accepted, report.rejected, report.unanswered) == (1, 1, 0)
    assert _status("autohaus", ready["a1"]) == QuotaStatus.ACCEPTED
    with schema_context("p_autohaus"):
        refused = QuotaApplication.objects.get(pk=ready["a2"].pk)
        last = refused.status_changes.last()
    assert refused.status == QuotaStatus.REJECTED_BY_AUTHORITY
    # the authority gives no reason: the owner reads that the quota was claimed already
    assert last is not None and last.reason == services.AUTHORITY_REFUSAL_REASON.format(year=YEAR)
    submission.refresh_from_db()
    assert submission.status == AuthoritySubmission.Status.ANSWERED
    with default_storage.open(submission.answer_file, "rb") as kept:
        assert kept.read() == answer


def test_a_partial_csv_answer_leaves_the_rest_waiting(
    ready: dict[str, QuotaApplication], django_capture_on_commit_callbacks: Any
) -> None:
    submission = _sent(django_capture_on_commit_callbacks)
    report = answer_import(
        submission=submission, data=f"vin,result,reason\n{VINS[0]},accepted,\n".encode(), actor=None
    )
    assert (report.accepted, report.unanswered) == (1, 1)
    submission.refresh_from_db()
    assert submission.status == AuthoritySubmission.Status.READY
    with pytest.raises(AuthorityError) as refused:
        answer_import(submission=submission, data=f"VIN;result\n{VINS[0]};accepted\n".encode(), actor=None)
    assert "schon beantwortet" in refused.value.problems[0]


def test_the_authoritys_reasons_pass_the_text_rules_of_every_field(
    ready: dict[str, QuotaApplication], django_capture_on_commit_callbacks: Any
) -> None:
    submission = _sent(django_capture_on_commit_callbacks)
    reason = '<a href="https://evil.example">Quote</a> schon\u202e\u0007 vergeben\u200b 🚗\r\nbeim <b>Amt</b>'
    out = io.StringIO()
    csv.writer(out, delimiter=";").writerows(
        [["FIN", "Ergebnis", "Grund"], [VINS[0], "bescheinigt", ""], [VINS[1], "abgelehnt", reason]]
    )
    answer = out.getvalue().encode()

    answer_import(submission=submission, data=answer, actor=None)

    with schema_context("p_autohaus"):
        last = QuotaApplication.objects.get(pk=ready["a2"].pk).status_changes.last()
    assert last is not None and last.reason == "Quote schon vergeben beim Amt"
    item = AuthoritySubmissionItem.objects.get(submission=submission, result="rejected")
    assert item.reason == "Quote schon vergeben beim Amt"
    assert text_problem(item.reason) is None


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
            f"{VINS[0]};accepted;\n{VINS[1]};vielleicht;\n",
            "Zeile 3: WVWZZZ1KZAW000002: unbekanntes Ergebnis „vielleicht“",
        ),
        (f"{VINS[0]};accepted;\nKEINE-FIN;accepted;\n", "Zeile 3: „KEINEFIN“ ist keine gültige FIN."),
    ],
)
def test_unknown_duplicate_and_malformed_rows_are_reported_and_nothing_is_applied(
    ready: dict[str, QuotaApplication], django_capture_on_commit_callbacks: Any, rows: str, problem: str
) -> None:
    submission = _sent(django_capture_on_commit_callbacks)

    with pytest.raises(AuthorityError) as refused:
        answer_import(submission=submission, data=("VIN;result;reason\n" + rows).encode(), actor=None)

    assert refused.value.message == "Die Antwort wurde nicht eingespielt: nichts wurde geändert."
    assert any(p.startswith(problem) for p in refused.value.problems), refused.value.problems
    assert _status("autohaus", ready["a1"]) == QuotaStatus.SENT_TO_UBA  # the good row waits too
    assert not submission.items.exclude(result="").exists()
    assert AuthorityAuditEntry.objects.filter(action="answer_refused", submission=submission).exists()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "leer"),
        (b"Nummer;Ergebnis\nX;Y\n", "VIN \\(oder FIN\\)"),
        (b"VIN;result;reason\n", "keine Zeilen"),
        (b"\x00\x01PK\x03\x04", "weder eine CSV"),
        (b"PK\x03\x04 kaputt", "keine lesbare Excel"),
    ],
)
def test_a_file_that_is_no_answer_is_refused(
    ready: dict[str, QuotaApplication], django_capture_on_commit_callbacks: Any, data: bytes, message: str
) -> None:
    submission = _sent(django_capture_on_commit_callbacks)
    with pytest.raises(AuthorityError, match=message):
        answer_import(submission=submission, data=data, actor=None)


def test_an_application_is_in_one_package_only(
    ready: dict[str, QuotaApplication], django_capture_on_commit_callbacks: Any
) -> None:
    _sent(django_capture_on_commit_callbacks)
    again = _sent(django_capture_on_commit_callbacks)  # only the ones left out are still ready
    assert again.status == AuthoritySubmission.Status.FAILED and "kein Antrag bereit" in again.error
    assert len(again.left_out) == 3
    assert AuthoritySubmissionItem.objects.count() == 2
