"""Authority (UBA) submission: one package per partner and legislation year, and the import of
the authority's answer. Every status move goes through quota.services (the catalogue).

Ready for submission means `qa_picked_up` (the partner's back office checked the document) and
the withdrawal period over. Creating a submission only records the request and queues the
build (authority.tasks); the build selects, writes and stores the package and only then moves
its applications to `qa_sent_to_uba`, all in one transaction (authority.package): a package
that fails moves nothing, and no answer can be imported for it.
"""

from __future__ import annotations

import csv
import datetime
import io
import re
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass, field
from functools import partial

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils import timezone
from django_tenants.utils import get_public_schema_name, schema_context

from accounts.models import User
from authority import package, registry
from authority.models import (
    AuthorityAuditEntry,
    AuthoritySubmission,
    AuthoritySubmissionItem,
    DoubleRegistration,
)
from authority.tasks import submission_package_build
from common.text import text_clean
from quota import catalogue
from quota.models import QuotaApplication, QuotaStatus
from quota.services import DOUBLE_REGISTRATION_REASON, QuotaError, quota_application_move
from tenants.models import Partner

READY_STATUS = package.READY_STATUS
VIN_PATTERN = re.compile(r"^[A-HJ-NPR-Z0-9]{17}$")
ANSWER_MAX_BYTES = 10 * 1024 * 1024
ANSWER_MAX_ROWS = 100_000
ACCEPTED_WORDS = {
    "accepted",
    "accept",
    "angenommen",
    "akzeptiert",
    "ok",
    "ja",
    "certified",
    "bescheinigt",
    "zertifiziert",
}
REJECTED_WORDS = {
    "rejected",
    "reject",
    "abgelehnt",
    "nein",
    "refused",
    "nicht bescheinigt",
    "nicht zertifiziert",
}
PARTNERS_MISSING = "Bitte wählen Sie mindestens einen Partner."
# The authority gives no reason: a refusal almost always means the quota of this vehicle and year
# was claimed through another provider first. What the owner reads on the card (and in the mail).
AUTHORITY_REFUSAL_REASON = (
    "Das Umweltbundesamt hat die THG-Quote für dieses Fahrzeug für {year} nicht bescheinigt: "
    "Die Quote für dieses Fahrzeug und Jahr wurde bereits beantragt. Welcher Anbieter sie beantragt hat, "
    "kann Ihnen das Umweltbundesamt sagen."
)
application_number = package.application_number


class AuthorityError(Exception):
    def __init__(self, message: str, problems: list[str] | None = None):
        self.message = message
        self.problems = problems or []
        super().__init__(message)


def _partners() -> list[Partner]:
    return list(Partner.objects.exclude(schema_name=get_public_schema_name()).order_by("pk"))


def audit_record(
    *, actor: User | None, action: str, submission: AuthoritySubmission | None, **detail: object
) -> None:
    AuthorityAuditEntry.objects.create(actor=actor, action=action, submission=submission, detail=detail)


@dataclass
class ReadyCount:
    partner: Partner
    ready: int
    without_vin: int


def submission_candidates(*, legislation_year: int) -> list[ReadyCount]:
    """Per partner: how many applications of the year are ready, and how many of those cannot go
    because the reader found no VIN (the back office has to reject or fix them)."""
    counts = []
    for partner in _partners():
        with schema_context(partner.schema_name):
            ready = QuotaApplication.objects.filter(legislation_year=legislation_year, status=READY_STATUS)
            total = ready.count()
            without_vin = ready.filter(registration__vin="").count()
        if total:
            counts.append(ReadyCount(partner, total - without_vin, without_vin))
    return counts


def submission_create(
    *,
    legislation_year: int,
    actor: User | None,
    limit: int | None = None,
    partner_ids: Collection[int] | None = None,
) -> list[AuthoritySubmission]:
    """One package per partner (of every partner with ready applications, or of those picked):
    recorded `building`, and built by a huey task after the commit (authority.tasks). Nothing
    moves here."""
    partners = _partners()
    if partner_ids is not None:
        partners = [partner for partner in partners if partner.pk in set(partner_ids)]
        if not partners:
            raise AuthorityError(PARTNERS_MISSING)
    ready = {count.partner.pk for count in submission_candidates(legislation_year=legislation_year)}
    partners = [partner for partner in partners if partner.pk in ready]
    if not partners:
        raise AuthorityError(f"Für {legislation_year} ist kein Antrag bereit zur Einreichung.")
    submissions = []
    with transaction.atomic():
        for partner in partners:
            submission = AuthoritySubmission.objects.create(
                legislation_year=legislation_year, partner=partner, created_by=actor, limit=limit
            )
            audit_record(
                actor=actor, action="submission_create", submission=submission, partner=partner.subdomain
            )
            transaction.on_commit(partial(submission_package_build, submission.pk))
            submissions.append(submission)
    return submissions


def submission_build_now(
    *, partner: Partner, legislation_year: int, actor: User | None, today: datetime.date | None = None
) -> AuthoritySubmission:
    """The command line's way (manage.py uba_package): the same package, built in this process."""
    submission = AuthoritySubmission.objects.create(
        legislation_year=legislation_year, partner=partner, created_by=actor
    )
    audit_record(actor=actor, action="submission_create", submission=submission, partner=partner.subdomain)
    return package.submission_package_store(submission_id=submission.pk, today=today)


def submission_rebuild(*, submission: AuthoritySubmission, actor: User | None) -> None:
    """A failed package is built again from the start (nothing of it moved); a ready one gets its
    file written again from its items."""
    with transaction.atomic():
        if submission.status == AuthoritySubmission.Status.FAILED:
            AuthoritySubmission.objects.filter(pk=submission.pk).update(
                status=AuthoritySubmission.Status.BUILDING, error=""
            )
        audit_record(actor=actor, action="submission_rebuild", submission=submission)
        transaction.on_commit(lambda: submission_package_build(submission.pk))


# ---- the authority's answer ---------------------------------------------------------------


@dataclass
class AnswerRow:
    line: int
    vin: str
    accepted: bool
    reason: str
    item: AuthoritySubmissionItem | None = None


@dataclass
class AnswerReport:
    accepted: int = 0
    rejected: int = 0
    unanswered: int = 0
    problems: list[str] = field(default_factory=list)


def _vin_shown(vin: str) -> str:
    return vin if len(vin) <= 17 else vin[:17] + "…"


VIN_HEADERS = ("vin", "fin", "fahrzeug-identifizierungsnummer")
RESULT_HEADERS = ("result", "ergebnis", "status")
REASON_HEADERS = ("reason", "grund", "bemerkung")


def _records(data: bytes) -> list[list[str]]:
    """The answer's rows as text: the authority's spreadsheet (.xlsx) or a CSV (; or ,)."""
    if data.startswith(b"PK\x03\x04"):
        from openpyxl import load_workbook

        try:
            book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        except Exception:  # noqa: BLE001 - any broken workbook is the same answer to the operator
            raise AuthorityError("Die Antwortdatei ist keine lesbare Excel-Datei (.xlsx).") from None
        sheet = book.worksheets[0]
        records: list[list[str]] = []
        for values in sheet.iter_rows(values_only=True):
            if len(records) > ANSWER_MAX_ROWS + 1:
                raise AuthorityError(f"Die Antwortdatei hat mehr als {ANSWER_MAX_ROWS} Zeilen.")
            records.append(["" if value is None else str(value) for value in values])
        book.close()
        return records
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("cp1252", errors="replace")
    if "\x00" in text:
        raise AuthorityError("Die Antwortdatei ist weder eine CSV-Textdatei noch eine Excel-Datei.")
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise AuthorityError("Die Antwortdatei ist leer.")
    delimiter = ";" if lines[0].count(";") >= lines[0].count(",") else ","
    return list(csv.reader(io.StringIO(text), delimiter=delimiter))


def _column(header: list[str], names: tuple[str, ...]) -> int | None:
    for name in names:
        if name in header:
            return header.index(name)
    return None


def _answer_rows(data: bytes) -> tuple[list[AnswerRow], list[str]]:
    if len(data) > ANSWER_MAX_BYTES:
        raise AuthorityError("Die Antwortdatei ist größer als 10 MB.")
    records = _records(data)
    if not records or not any(cell.strip() for cell in records[0]):
        raise AuthorityError("Die Antwortdatei ist leer.")
    header = [column.strip().lower() for column in records[0]]
    vin_at, result_at = _column(header, VIN_HEADERS), _column(header, RESULT_HEADERS)
    if vin_at is None or result_at is None:
        raise AuthorityError(
            "Die erste Zeile muss die Spalten VIN (oder FIN) und result (oder Ergebnis) nennen (gefunden: "
            + ";".join(header)[:200]
            + ")."
        )
    reason_at = _column(header, REASON_HEADERS)
    rows: list[AnswerRow] = []
    problems: list[str] = []
    for line, record in enumerate(records[1:], start=2):
        if not any(cell.strip() for cell in record):
            continue
        if len(rows) + len(problems) >= ANSWER_MAX_ROWS:
            raise AuthorityError(f"Die Antwortdatei hat mehr als {ANSWER_MAX_ROWS} Zeilen.")
        vin = registry.vin_normalise(_cell(record, vin_at))
        result, reason = " ".join(_cell(record, result_at).lower().split()), _cell(record, reason_at)
        if not VIN_PATTERN.match(vin):
            problems.append(f"Zeile {line}: „{_vin_shown(vin)}“ ist keine gültige FIN.")
            continue
        if result in ACCEPTED_WORDS:
            accepted = True
        elif result in REJECTED_WORDS:
            accepted = False  # the authority gives no reason: the owner reads ours (answer_import)
        else:
            problems.append(
                f"Zeile {line}: {vin}: unbekanntes Ergebnis „{result[:40]}“ (bescheinigt oder abgelehnt)."
            )
            continue
        # the authority's text reaches owners (card, mail) and staff: the rules of every field
        rows.append(AnswerRow(line, vin, accepted, text_clean(reason)[:500]))
    if not rows and not problems:
        raise AuthorityError("Die Antwortdatei enthält keine Zeilen.")
    return rows, problems


def _cell(record: list[str], at: int | None) -> str:
    return record[at].strip() if at is not None and at < len(record) else ""


def answer_import(*, submission: AuthoritySubmission, data: bytes, actor: User | None) -> AnswerReport:
    """Apply the authority's answer to a package: every row must name a vehicle of this package
    that is still waiting for its answer. Everything is checked first; with any problem nothing
    is applied (AuthorityError with the list), otherwise all moves happen in one transaction."""
    if submission.status not in (AuthoritySubmission.Status.READY, AuthoritySubmission.Status.ANSWERED):
        # A package that was never built and stored never reached the authority.
        raise AuthorityError(
            f"UBA-Einreichung Nr. {submission.pk} ist nicht übermittelt ({submission.get_status_display()}): "
            "für sie gibt es keine Antwort."
        )
    rows, problems = _answer_rows(data)
    items = {item.vin_hash: item for item in submission.items.select_related("partner")}
    seen: dict[str, int] = {}
    for row in rows:
        digest = registry.vin_hash(row.vin)
        if digest in seen:
            problems.append(f"Zeile {row.line}: {row.vin} steht schon in Zeile {seen[digest]}.")
            continue
        seen[digest] = row.line
        item = items.get(digest)
        if item is None:
            elsewhere = (
                AuthoritySubmissionItem.objects.filter(
                    vin_hash=digest, submission__legislation_year=submission.legislation_year
                )
                .exclude(submission=submission)
                .values_list("submission_id", flat=True)
                .first()
            )
            if elsewhere is not None:
                problems.append(
                    f"Zeile {row.line}: {row.vin} gehört zur UBA-Einreichung Nr. {elsewhere}, nicht zu dieser."
                )
            else:
                problems.append(f"Zeile {row.line}: {row.vin} ist in dieser Einreichung unbekannt.")
            continue
        if item.result:
            problems.append(f"Zeile {row.line}: {row.vin} ({item.application_number}) ist schon beantwortet.")
            continue
        row.item = item
    # The applications must still be waiting for the authority (one query per partner).
    by_partner: dict[int, list[AnswerRow]] = defaultdict(list)
    for row in rows:
        if row.item is not None:
            by_partner[row.item.partner_id].append(row)
    for partner_rows in by_partner.values():
        items_here = [r.item for r in partner_rows if r.item is not None]
        with schema_context(items_here[0].partner.schema_name):
            statuses = dict(
                QuotaApplication.objects.filter(pk__in=[i.application_id for i in items_here]).values_list(
                    "pk", "status"
                )
            )
        for row in partner_rows:
            assert row.item is not None
            status = statuses.get(row.item.application_id)
            if status != QuotaStatus.SENT_TO_UBA:
                now = "gelöscht" if status is None else QuotaStatus(status).label
                problems.append(
                    f"Zeile {row.line}: {row.vin} ({row.item.application_number}) wartet nicht mehr auf die "
                    f"Antwort (Status: {now})."
                )
    if problems:
        audit_record(actor=actor, action="answer_refused", submission=submission, problems=problems[:50])
        raise AuthorityError(
            "Die Antwort wurde nicht eingespielt: nichts wurde geändert.", sorted(problems, key=_line)
        )
    report = AnswerReport()
    with transaction.atomic():
        for row in sorted(rows, key=lambda r: (r.item.partner_id, r.line)):  # type: ignore[union-attr]
            item = row.item
            assert item is not None
            with schema_context(item.partner.schema_name):
                application = QuotaApplication(pk=item.application_id)
                try:
                    quota_application_move(
                        application=application,
                        status=QuotaStatus.ACCEPTED if row.accepted else QuotaStatus.REJECTED_BY_AUTHORITY,
                        actor=None,
                        reason=row.reason
                        or (
                            ""
                            if row.accepted
                            else AUTHORITY_REFUSAL_REASON.format(year=submission.legislation_year)
                        ),
                    )
                except QuotaError as refused:  # moved in the meantime: the whole answer waits
                    raise AuthorityError(
                        "Die Antwort wurde nicht eingespielt: nichts wurde geändert.",
                        [f"Zeile {row.line}: {row.vin}: {refused.message}"],
                    ) from None
            item.result = (
                AuthoritySubmissionItem.Result.ACCEPTED
                if row.accepted
                else AuthoritySubmissionItem.Result.REJECTED
            )
            item.reason = row.reason
            item.save(update_fields=["result", "reason"])
            if row.accepted:
                report.accepted += 1
            else:
                report.rejected += 1
        # The authority's answer is kept beside the package it answers.
        stored = default_storage.save(
            f"authority/{submission.legislation_year}/uba-{submission.legislation_year}-{submission.pk}-antwort"
            f"-{timezone.now():%Y%m%d%H%M%S}{'.xlsx' if data.startswith(b'PK') else '.csv'}",
            ContentFile(data),
        )
        AuthoritySubmission.objects.filter(pk=submission.pk).update(answer_file=stored)
        report.unanswered = submission.items.filter(result="").count()
        if report.unanswered == 0:
            AuthoritySubmission.objects.filter(pk=submission.pk).update(
                status=AuthoritySubmission.Status.ANSWERED
            )
        audit_record(
            actor=actor,
            action="answer_import",
            submission=submission,
            accepted=report.accepted,
            rejected=report.rejected,
            unanswered=report.unanswered,
        )
    return report


def _line(problem: str) -> int:
    match = re.match(r"Zeile (\d+)", problem)
    return int(match.group(1)) if match else 0


# ---- the double-registration queue ----------------------------------------------------------

NOT_SUBMITTED_YET = (
    "Noch keiner der beiden Anträge ist beim Umweltbundesamt eingereicht: Es entscheidet die "
    "frühere Einreichung. Bitte entscheiden Sie, sobald einer der beiden in einem Paket ist."
)
ALREADY_DECIDED = "Diese Doppelregistrierung ist bereits erledigt."


@dataclass
class ConflictSide:
    """One application of a conflict as the operator sees it (read inside its partner's schema)."""

    role: str  # "application" or "holder"
    partner: Partner
    application_id: int
    number: str = ""
    status: str = ""
    status_label: str = ""
    vin: str = ""
    make: str = ""
    check_digit: str = ""
    document: str = ""  # the stored picture of the document (display copy, holder blacked out)
    submission_id: int | None = None
    submitted_at: datetime.datetime | None = None
    exists: bool = False


def _side(role: str, partner: Partner, application_id: int) -> ConflictSide:
    side = ConflictSide(role=role, partner=partner, application_id=application_id)
    item = (
        AuthoritySubmissionItem.objects.filter(partner=partner, application_id=application_id)
        .select_related("submission")
        .first()
    )
    if item is not None:
        side.submission_id, side.submitted_at = item.submission_id, item.submission.created_at
    with schema_context(partner.schema_name):
        application = (
            QuotaApplication.objects.filter(pk=application_id).select_related("registration").first()
        )
        if application is not None:
            registration = application.registration
            side.exists = True
            side.number = package.application_number(partner=partner, application=application)
            side.status = application.status
            info = catalogue.CATALOGUE.get(application.status)
            side.status_label = info.title_de if info else application.status
            side.vin, side.make = registration.vin, registration.make
            side.check_digit = registration.check_digit
            side.document = registration.display_scan or registration.resized_image
    return side


def double_registration_sides(conflict: DoubleRegistration) -> tuple[ConflictSide, ConflictSide]:
    """Both applications of a conflict, the one whose review found it first."""
    return (
        _side("application", conflict.partner, conflict.application_id),
        _side("holder", conflict.holder_partner, conflict.holder_application_id),
    )


def _earlier(sides: tuple[ConflictSide, ConflictSide]) -> ConflictSide | None:
    submitted = [side for side in sides if side.submitted_at is not None]
    if not submitted:
        return None
    return min(submitted, key=lambda side: (side.submitted_at, side.submission_id or 0))


def double_registration_decide(*, conflict: DoubleRegistration, actor: User | None) -> ConflictSide:
    """The operator's decision: the application submitted to the authority earlier keeps the
    vehicle (the authority certifies only the first submission per vehicle and year); the other
    one becomes `qa_double_registration` with the owner's reason, and its claim is released.
    Refused while neither was submitted. Returns the side that keeps the vehicle."""
    with transaction.atomic():
        conflict = DoubleRegistration.objects.select_for_update().get(pk=conflict.pk)
        if conflict.status != DoubleRegistration.Status.OPEN:
            raise AuthorityError(ALREADY_DECIDED)
        sides = double_registration_sides(conflict)
        kept = _earlier(sides)
        if kept is None:
            raise AuthorityError(NOT_SUBMITTED_YET)
        lost = sides[1] if kept is sides[0] else sides[0]
        with schema_context(lost.partner.schema_name):
            application = QuotaApplication.objects.filter(pk=lost.application_id).first()
            if application is not None and QuotaStatus.DOUBLE_REGISTRATION in catalogue.allowed_moves(
                application.status
            ):
                quota_application_move(
                    application=application,
                    status=QuotaStatus.DOUBLE_REGISTRATION,
                    actor=None,
                    reason=DOUBLE_REGISTRATION_REASON.format(year=conflict.legislation_year),
                )
            registry.vehicle_release(application_id=lost.application_id)
        DoubleRegistration.objects.filter(pk=conflict.pk).update(
            status=DoubleRegistration.Status.DECIDED,
            decided_at=timezone.now(),
            decided_by=actor,
            kept=kept.role,
        )
        audit_record(
            actor=actor,
            action="double_registration_decide",
            submission=None,
            conflict=conflict.pk,
            kept=f"{kept.partner.subdomain}:{kept.application_id}",
            lost=f"{lost.partner.subdomain}:{lost.application_id}",
        )
    return kept
