"""The submission package as the authority (Umweltbundesamt) takes it: one ZIP without folders,
one PDF per vehicle with the front side of the registration document named `{VIN}_{year}.pdf`,
and the authority's spreadsheet (`.xlsx`) with one row per vehicle plus the totals in MWh.

Built per partner and year, inside the partner's schema, from applications the back office
picked up whose withdrawal period (14 days from the text-form agreement) is over. All or
nothing: the ZIP is written to a temporary file and stored first; only then, in one transaction,
are the package's items created and the applications moved to `qa_sent_to_uba`. A failure
anywhere leaves every application where it was and the package `failed` with its reason. An
application that cannot go (no usable scan, no valid VIN, still in its withdrawal period, a
class the authority credits nothing for, a vehicle another application was submitted with) is listed in
`left_out` with the reason the operator reads in the platform admin, and stays where it is.
"""

from __future__ import annotations

import datetime
import io
import logging
import tempfile
import zipfile
from dataclasses import dataclass
from decimal import Decimal
from typing import IO, Any

from django.core.files import File
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.utils import timezone
from django_tenants.utils import get_public_schema_name, schema_context
from openpyxl import Workbook
from PIL import Image

from authority import registry
from authority.models import AuthoritySubmission, AuthoritySubmissionItem
from privacy.consents import third_party_agreement_dates
from quota.models import QuotaApplication, QuotaStatus
from quota.services import QuotaError, quota_application_move
from registrations import vin as vin_rules
from registrations.models import BevRegistration
from tenants.models import Partner
from tenants.quota_years import quota_year

logger = logging.getLogger(__name__)

READY_STATUS = QuotaStatus.PICKED_UP
WITHDRAWAL_DAYS = 14
DRIVE = "Elektro"
SHEET_NAME = "Fahrzeuge"
COLUMNS = [
    "Name des Halters",
    "Datum der Zulassung (I)",
    "FIN (E)",
    "Prüfziffer (3)",
    "Antrieb",
    "Fahrzeugklasse",
    "Datum der Vereinbarung in Textform",
    "Anrechenbare Strommenge (kWh)",
]
TOTAL_KWH_LABEL = "Summe (kWh)"
TOTAL_MWH_LABEL = "Summe (MWh)"
PDF_RESOLUTION = 200.0  # dpi the scan is declared at: an A5-ish document at ~2000 px

NO_VIN = "Keine gültige FIN gelesen (bitte im Partnerbereich korrigieren)."
NO_SCAN = "Kein lesbarer Scan der Vorderseite des Fahrzeugscheins gespeichert."
SCAN_GONE = "Das Original des Fahrzeugscheins ist nicht mehr gespeichert."
IN_WITHDRAWAL = "Widerrufsfrist läuft noch bis {date}."
NOT_ELIGIBLE = "Fahrzeugklasse {vehicle_class}: keine anrechenbare Strommenge (nicht quotenberechtigt)."
DOUBLE = (
    "Mögliche Doppelregistrierung: das Fahrzeug ist für {year} schon mit einem anderen Antrag "
    "eingereicht (in der Warteschlange Doppelregistrierungen)."
)
WMI_MISMATCH = "Der Herstellercode der FIN passt nicht zur Marke (D.1): bitte im Partnerbereich prüfen."


class PackageError(Exception):
    pass


def application_number(*, partner: Partner, application: QuotaApplication) -> str:
    """The number the platform admin knows an application by: unique across partners."""
    return f"{partner.subdomain.upper()}-{application.registration.sequence}-{application.legislation_year}"


def scan_pdf(data: bytes) -> bytes:
    """The front side as a one-page PDF: a stored PDF as it is, an image (JPEG, PNG) converted."""
    if data.startswith(b"%PDF"):
        return data
    with Image.open(io.BytesIO(data)) as image:
        image.load()
        page = image.convert("RGB") if image.mode not in ("RGB", "L") else image
        out = io.BytesIO()
        page.save(out, "PDF", resolution=PDF_RESOLUTION)
    return out.getvalue()


@dataclass
class Row:
    """One vehicle of the package (plain data, read inside the partner's schema)."""

    application_id: int
    number: str
    vin: str
    scan: str
    holder: str
    registered_on: datetime.date | None
    check_digit: str
    vehicle_class: str
    agreed_on: datetime.date
    energy_kwh: int


@dataclass
class Selection:
    rows: list[Row]
    left_out: list[dict[str, str]]
    doubles: list[QuotaApplication]


def holder_name(registration: BevRegistration, application: QuotaApplication) -> str:
    """The holder as printed (C.1.1, C.1.2); the billing name where the reader found none."""
    if registration.holder_name:
        first = registration.holder_first_names.strip()
        return f"{registration.holder_name.strip()}, {first}" if first else registration.holder_name.strip()
    client = application.client
    if client.name_of_business:
        return client.name_of_business
    return f"{client.last_name}, {client.first_name}".strip(", ")


def check_digit(registration: BevRegistration) -> str:
    if registration.check_digit:
        return registration.check_digit
    try:
        return vin_rules.kba_check_digit(registration.vin)
    except ValueError:
        return ""


def _scan_usable(name: str) -> bool:
    if not name:
        return False
    try:
        with default_storage.open(name, "rb") as handle:
            head = handle.read(8)
    except OSError:
        return False
    return head.startswith((b"%PDF", b"\xff\xd8", b"\x89PNG"))


def package_select(
    *, partner: Partner, legislation_year: int, today: datetime.date, limit: int | None = None
) -> Selection:
    """The partner's applications that go into the year's package, and those left out with their
    reason. Runs inside the partner's schema; moves nothing."""
    dates = quota_year(legislation_year)
    applications = list(
        QuotaApplication.objects.filter(legislation_year=legislation_year, status=READY_STATUS)
        .select_related("registration", "client")
        .order_by("registration__sequence", "pk")
    )
    agreements = third_party_agreement_dates(
        user_ids={a.registration.owner_id for a in applications}, year=legislation_year
    )
    selection = Selection([], [], [])
    for application in applications:
        registration = application.registration
        number = application_number(partner=partner, application=application)

        def leave(reason: str, number: str = number) -> None:
            selection.left_out.append({"application_number": number, "reason": reason})

        if not registration.vin or not vin_rules.valid(registration.vin):
            leave(NO_VIN)
            continue
        if vin_rules.make_conflict(registration.vin, registration.make):
            leave(WMI_MISMATCH)
            continue
        agreed_at = agreements.get(registration.owner_id) or application.created_at
        agreed_on = timezone.localdate(agreed_at)
        withdrawal_end = agreed_on + datetime.timedelta(days=WITHDRAWAL_DAYS)
        if today <= withdrawal_end:
            leave(IN_WITHDRAWAL.format(date=f"{withdrawal_end:%d.%m.%Y}"))
            continue
        energy = dates.credited_energy_kwh(registration.vehicle_class)
        if energy is None:
            leave(NOT_ELIGIBLE.format(vehicle_class=registration.vehicle_class))
            continue
        # The authority certifies the first submission: one sent before decides (the conflict
        # goes to the operator's queue when the package is stored).
        holder = registry.submitted_holder(vin=registration.vin, legislation_year=legislation_year)
        if holder is not None and (
            holder.partner_id != partner.pk or holder.application_id != application.pk
        ):
            leave(DOUBLE.format(year=legislation_year))
            selection.doubles.append(application)
            continue
        if not _scan_usable(registration.zlb_scan):
            leave(SCAN_GONE if registration.original_deleted_at else NO_SCAN)
            continue
        if limit is not None and len(selection.rows) >= limit:
            continue  # left for the next package, without a reason: nothing is wrong with it
        selection.rows.append(
            Row(
                application_id=application.pk,
                number=number,
                vin=registry.vin_normalise(registration.vin),
                scan=registration.zlb_scan,
                holder=holder_name(registration, application),
                registered_on=registration.registration_date or registration.first_registration,
                check_digit=check_digit(registration),
                vehicle_class=registration.vehicle_type,
                agreed_on=agreed_on,
                energy_kwh=energy,
            )
        )
    return selection


def _text(cell: Any, value: str) -> None:
    """A text cell stays text: openpyxl would take '=…' for a formula."""
    cell.value = value
    cell.data_type = "s"


def spreadsheet(rows: list[Row]) -> bytes:
    """The authority's spreadsheet: one row per vehicle, then the totals in kWh and in MWh."""
    book = Workbook()
    sheet = book.active
    sheet.title = SHEET_NAME
    sheet.append(COLUMNS)
    for row in rows:
        sheet.append([None, row.registered_on, None, None, DRIVE, None, row.agreed_on, row.energy_kwh])
        at = sheet.max_row
        _text(sheet.cell(at, 1), row.holder)
        _text(sheet.cell(at, 3), row.vin)
        _text(sheet.cell(at, 4), row.check_digit)
        _text(sheet.cell(at, 6), row.vehicle_class)
        for column in (2, 7):
            sheet.cell(at, column).number_format = "DD.MM.YYYY"
    total = sum(row.energy_kwh for row in rows)
    sheet.append([])
    sheet.append([f"{len(rows)} Fahrzeuge", None, None, None, None, None, TOTAL_KWH_LABEL, total])
    sheet.append([None, None, None, None, None, None, TOTAL_MWH_LABEL, float(Decimal(total) / 1000)])
    for letter, width in zip("ABCDEFGH", (32, 14, 20, 8, 10, 10, 18, 16), strict=True):
        sheet.column_dimensions[letter].width = width
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def spreadsheet_name(partner: Partner, year: int) -> str:
    return f"UBA_{partner.subdomain}_{year}.xlsx"


def package_write(*, partner: Partner, legislation_year: int, rows: list[Row], spool: IO[bytes]) -> None:
    """The ZIP into `spool` (inside the partner's schema: the scans are its files)."""
    with zipfile.ZipFile(spool, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for row in rows:
            try:
                with default_storage.open(row.scan, "rb") as handle:
                    pdf = scan_pdf(handle.read())
            except (OSError, Image.UnidentifiedImageError) as error:
                raise PackageError(
                    f"{row.number}: der Fahrzeugschein kann nicht gelesen werden ({error.__class__.__name__})."
                ) from None
            archive.writestr(f"{row.vin}_{legislation_year}.pdf", pdf)
        archive.writestr(spreadsheet_name(partner, legislation_year), spreadsheet(rows))


def _store(submission: AuthoritySubmission, spool: IO[bytes]) -> str:
    """Under `authority/` (the platform's, no partner prefix): stored from the public schema."""
    spool.seek(0)
    year = submission.legislation_year
    with schema_context(get_public_schema_name()):
        return default_storage.save(f"authority/{year}/uba-{year}-{submission.pk}.zip", File(spool))


def _unstore(name: str) -> None:
    with schema_context(get_public_schema_name()):
        default_storage.delete(name)


def _failed(
    submission: AuthoritySubmission, reason: str, left_out: list[dict[str, str]]
) -> AuthoritySubmission:
    AuthoritySubmission.objects.filter(pk=submission.pk).update(
        status=AuthoritySubmission.Status.FAILED, error=reason[:500], left_out=left_out
    )
    submission.refresh_from_db()
    return submission


def submission_package_store(
    *, submission_id: int, today: datetime.date | None = None
) -> AuthoritySubmission:
    """Select, build, store, and only then move: the package ends `ready` with its applications
    `qa_sent_to_uba`, or `failed` with the reason and nothing moved. A package that is ready
    (its applications already moved) only gets its file written again from its items."""
    submission = AuthoritySubmission.objects.select_related("partner").get(pk=submission_id)
    if submission.status in (AuthoritySubmission.Status.READY, AuthoritySubmission.Status.ANSWERED):
        return _file_rewrite(submission)
    partner = submission.partner
    if partner is None:
        return _failed(submission, "Diese Einreichung nennt keinen Partner.", [])
    year = submission.legislation_year
    with schema_context(partner.schema_name):
        selection = package_select(
            partner=partner,
            legislation_year=year,
            today=today or timezone.localdate(),
            limit=submission.limit,
        )
        if not selection.rows:
            return _failed(
                submission, f"Für {year} ist bei {partner.subdomain} kein Antrag bereit.", selection.left_out
            )
        with tempfile.TemporaryFile() as spool:
            try:
                package_write(partner=partner, legislation_year=year, rows=selection.rows, spool=spool)
                name = _store(submission, spool)
            except PackageError as error:
                return _failed(submission, str(error), selection.left_out)
            except OSError as error:  # the storage did not keep it: nothing is sent
                logger.exception("authority package not stored", extra={"submission": submission.pk})
                return _failed(
                    submission,
                    f"Das Paket konnte nicht gespeichert werden ({error.__class__.__name__}).",
                    selection.left_out,
                )
        try:
            with transaction.atomic():
                _move_all(submission, partner, selection)
                submission.file, submission.count = name, len(selection.rows)
                submission.status, submission.error = AuthoritySubmission.Status.READY, ""
                submission.left_out = selection.left_out
                submission.save(update_fields=["file", "count", "status", "error", "left_out"])
        except (QuotaError, IntegrityError) as moved:  # moved or packed meanwhile: nothing is sent
            _unstore(name)
            detail = (
                moved.message
                if isinstance(moved, QuotaError)
                else "ein Antrag ist schon in einem anderen Paket."
            )
            return _failed(submission, f"Nichts übermittelt: {detail}", selection.left_out)
    logger.info("authority package stored", extra={"submission": submission.pk, "count": submission.count})
    return submission


def _move_all(submission: AuthoritySubmission, partner: Partner, selection: Selection) -> None:
    """Inside the partner's schema and the caller's transaction: items, then the moves."""
    reason = f"UBA-Einreichung Nr. {submission.pk}"
    for row in selection.rows:
        earlier = registry.vehicle_submit(
            vin=row.vin, legislation_year=submission.legislation_year, application_id=row.application_id
        )
        if earlier is not None:  # submitted elsewhere since it was selected
            raise QuotaError(
                "QA001", f"{row.number}: das Fahrzeug ist inzwischen mit einem anderen Antrag eingereicht."
            )
        AuthoritySubmissionItem.objects.create(
            submission=submission,
            partner=partner,
            application_id=row.application_id,
            application_number=row.number,
            vin_hash=registry.vin_hash(row.vin),
        )
        quota_application_move(
            application=QuotaApplication(pk=row.application_id),
            status=QuotaStatus.SENT_TO_UBA,
            actor=None,
            reason=reason,
        )
    # Left out because another application of the vehicle went first: a conflict for the
    # operator's queue (authority.services.double_registration_decide), no verdict here.
    for application in selection.doubles:
        registry.vehicle_submit(  # refused: it records the conflict and changes nothing else
            vin=application.registration.vin,
            legislation_year=submission.legislation_year,
            application_id=application.pk,
        )


def _file_rewrite(submission: AuthoritySubmission) -> AuthoritySubmission:
    """The file of a package whose applications went out, written again from its items."""
    partner = submission.partner
    if partner is None:
        return submission
    items = {item.application_id: item for item in submission.items.all()}
    with schema_context(partner.schema_name):
        applications = (
            QuotaApplication.objects.filter(pk__in=items)
            .select_related("registration", "client")
            .order_by("registration__sequence", "pk")
        )
        agreements = third_party_agreement_dates(
            user_ids={a.registration.owner_id for a in applications}, year=submission.legislation_year
        )
        dates = quota_year(submission.legislation_year)
        rows = [
            Row(
                application_id=a.pk,
                number=items[a.pk].application_number,
                vin=registry.vin_normalise(a.registration.vin),
                scan=a.registration.zlb_scan,
                holder=holder_name(a.registration, a),
                registered_on=a.registration.registration_date or a.registration.first_registration,
                check_digit=check_digit(a.registration),
                vehicle_class=a.registration.vehicle_type,
                agreed_on=timezone.localdate(agreements.get(a.registration.owner_id) or a.created_at),
                energy_kwh=dates.credited_energy_kwh(a.registration.vehicle_class) or 0,
            )
            for a in applications
        ]
        with tempfile.TemporaryFile() as spool:
            try:
                package_write(
                    partner=partner, legislation_year=submission.legislation_year, rows=rows, spool=spool
                )
            except PackageError as error:
                AuthoritySubmission.objects.filter(pk=submission.pk).update(error=str(error)[:500])
                submission.refresh_from_db()
                return submission
            name = _store(submission, spool)
    previous = submission.file
    AuthoritySubmission.objects.filter(pk=submission.pk).update(file=name, error="")
    if previous and previous != name:
        _unstore(previous)
    submission.refresh_from_db()
    return submission
