"""Authority (UBA) submission: packages per legislation year across partners, and the import
of the authority's answer. Every status move goes through quota.services (the catalogue).

Ready for submission means `qa_picked_up`: the partner's back office checked the document.
Taking an application into a package moves it to `qa_sent_to_uba` at once (in one transaction
with the package row and its items), so no second package and no back-office move can take it
meanwhile; the ZIP itself is built afterwards by a huey task (authority.tasks) from the items.
"""

from __future__ import annotations

import csv
import io
import re
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass, field

from django.db import transaction
from django_tenants.utils import get_public_schema_name, schema_context

from accounts.models import User
from authority import registry
from authority.models import AuthorityAuditEntry, AuthoritySubmission, AuthoritySubmissionItem
from quota.models import QuotaApplication, QuotaStatus
from quota.services import DOUBLE_REGISTRATION_REASON, QuotaError, quota_application_move
from tenants.models import Partner

READY_STATUS = QuotaStatus.PICKED_UP
VIN_PATTERN = re.compile(r"^[A-HJ-NPR-Z0-9]{17}$")
ANSWER_MAX_BYTES = 10 * 1024 * 1024
ANSWER_MAX_ROWS = 100_000
ACCEPTED_WORDS = {"accepted", "accept", "angenommen", "akzeptiert", "ok", "ja"}
REJECTED_WORDS = {"rejected", "reject", "abgelehnt", "nein"}
PARTNERS_MISSING = "Bitte wählen Sie mindestens einen Partner."


class AuthorityError(Exception):
    def __init__(self, message: str, problems: list[str] | None = None):
        self.message = message
        self.problems = problems or []
        super().__init__(message)


def application_number(*, partner: Partner, application: QuotaApplication) -> str:
    """The number the authority and the manifest know an application by: unique across
    partners (each partner counts its own sequence)."""
    return f"{partner.subdomain.upper()}-{application.registration.sequence}-{application.legislation_year}"


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
) -> AuthoritySubmission:
    """Take the ready applications of a year into a new package, move them to `qa_sent_to_uba`
    and queue the building of its file: of every partner, or of the partners picked
    (`partner_ids`, e.g. one whose back office finished early). All or nothing: one transaction
    across the partners' schemas. A vehicle another application holds in the registry (a VIN
    that arrived unclaimed) becomes a double registration instead of going to the authority."""
    from authority.tasks import submission_package_build

    partners = _partners()
    if partner_ids is not None:
        partners = [partner for partner in partners if partner.pk in set(partner_ids)]
        if not partners:
            raise AuthorityError(PARTNERS_MISSING)
    with transaction.atomic():
        submission = AuthoritySubmission.objects.create(legislation_year=legislation_year, created_by=actor)
        reason = f"UBA-Einreichung Nr. {submission.pk}"
        count = doubles = 0
        for partner in partners:
            with schema_context(partner.schema_name):
                applications = list(
                    QuotaApplication.objects.filter(legislation_year=legislation_year, status=READY_STATUS)
                    .exclude(registration__vin="")
                    .select_related("registration")
                    .order_by("pk")
                )
                for application in applications:
                    if limit is not None and count >= limit:
                        break
                    claim = registry.vehicle_claim(
                        vin=application.registration.vin,
                        legislation_year=legislation_year,
                        application_id=application.pk,
                    )
                    assert claim is not None
                    try:
                        if not claim.won:
                            registry.double_registration_record(
                                vin=application.registration.vin,
                                legislation_year=legislation_year,
                                application_id=application.pk,
                                claim=claim,
                            )
                            quota_application_move(
                                application=application,
                                status=QuotaStatus.DOUBLE_REGISTRATION,
                                actor=None,
                                reason=DOUBLE_REGISTRATION_REASON.format(year=legislation_year),
                            )
                            doubles += 1
                            continue
                        quota_application_move(
                            application=application, status=QuotaStatus.SENT_TO_UBA, actor=None, reason=reason
                        )
                    except QuotaError:
                        continue  # moved by someone else since it was read (e.g. a parallel package)
                    AuthoritySubmissionItem.objects.create(
                        submission=submission,
                        partner=partner,
                        application_id=application.pk,
                        application_number=application_number(partner=partner, application=application),
                        vin_hash=registry.vin_hash(application.registration.vin),
                    )
                    count += 1
        if count == 0:
            raise AuthorityError(f"Für {legislation_year} ist kein Antrag bereit zur Einreichung.")
        submission.count = count
        submission.save(update_fields=["count"])
        audit_record(
            actor=actor,
            action="submission_create",
            submission=submission,
            count=count,
            double_registrations=doubles,
            partners=None if partner_ids is None else [partner.subdomain for partner in partners],
        )
        transaction.on_commit(lambda: submission_package_build(submission.pk))
    return submission


def submission_rebuild(*, submission: AuthoritySubmission, actor: User | None) -> None:
    """Build the file of a package again (after a failure); its applications stay as they are."""
    from authority.tasks import submission_package_build

    with transaction.atomic():
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


def _answer_rows(data: bytes) -> tuple[list[AnswerRow], list[str]]:
    if len(data) > ANSWER_MAX_BYTES:
        raise AuthorityError("Die Antwortdatei ist größer als 10 MB.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("cp1252", errors="replace")
    if "\x00" in text:
        raise AuthorityError("Die Antwortdatei ist keine CSV-Textdatei.")
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise AuthorityError("Die Antwortdatei ist leer.")
    delimiter = ";" if lines[0].count(";") >= lines[0].count(",") else ","
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    header = [column.strip().lower() for column in next(reader)]
    if "vin" not in header or "result" not in header:
        raise AuthorityError(
            "Die erste Zeile muss die Spalten VIN;result;reason nennen (gefunden: "
            + ";".join(header)[:200]
            + ")."
        )
    vin_at, result_at = header.index("vin"), header.index("result")
    reason_at = header.index("reason") if "reason" in header else None
    rows: list[AnswerRow] = []
    problems: list[str] = []
    for line, record in enumerate(reader, start=2):
        if not any(cell.strip() for cell in record):
            continue
        if len(rows) + len(problems) >= ANSWER_MAX_ROWS:
            raise AuthorityError(f"Die Antwortdatei hat mehr als {ANSWER_MAX_ROWS} Zeilen.")
        vin = registry.vin_normalise(_cell(record, vin_at))
        result, reason = _cell(record, result_at).lower(), _cell(record, reason_at)
        if not VIN_PATTERN.match(vin):
            problems.append(f"Zeile {line}: „{_vin_shown(vin)}“ ist keine gültige FIN.")
            continue
        if result in ACCEPTED_WORDS:
            accepted = True
        elif result in REJECTED_WORDS:
            accepted = False
            if not reason:
                problems.append(f"Zeile {line}: {vin}: eine Ablehnung braucht einen Grund (Spalte reason).")
                continue
        else:
            problems.append(
                f"Zeile {line}: {vin}: unbekanntes Ergebnis „{result[:40]}“ (accepted oder rejected)."
            )
            continue
        rows.append(AnswerRow(line, vin, accepted, reason[:500]))
    if not rows and not problems:
        raise AuthorityError("Die Antwortdatei enthält keine Zeilen.")
    return rows, problems


def _cell(record: list[str], at: int | None) -> str:
    return record[at].strip() if at is not None and at < len(record) else ""


def answer_import(*, submission: AuthoritySubmission, data: bytes, actor: User | None) -> AnswerReport:
    """Apply the authority's answer to a package: every row must name a vehicle of this package
    that is still waiting for its answer. Everything is checked first; with any problem nothing
    is applied (AuthorityError with the list), otherwise all moves happen in one transaction."""
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
                        reason=row.reason,
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
