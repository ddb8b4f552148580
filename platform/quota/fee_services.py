"""The partner admin's fee table (issue 49): each save is the next version, with who and when,
checked against the platform's bounds (common.payout_bounds) and recorded in the partner's
audit log in the same transaction. Prices are read in quota.amounts."""

from __future__ import annotations

from typing import Any

from django.db import connection, transaction
from django.utils import timezone
from pydantic import ValidationError

from common.partner_config import PartnerConfig
from common.payout_bounds import german_euros, payout_in_bounds, payout_max
from quota.amounts import FeeTableRow, config_fee_rows
from quota.models import FeeTableVersion
from staff.audit import audit_record
from staff.models import StaffMember

ROW_INVALID = "FEE001"  # a row's year, class, amount or VAT mode is not valid
OUT_OF_BOUNDS = "FEE002"  # an amount outside the platform's bounds for its year and class
DUPLICATE = "FEE003"  # two rows for one year and class
STALE = "FEE004"  # saved on top of an older version than the current one
TOO_MANY = "FEE005"  # more rows than a table holds

MAX_ROWS = 200
AMOUNT_FIELDS = {"private_payout": "Auszahlung privat", "business_net": "Netto gewerblich"}

MESSAGES: dict[str, tuple[str, str]] = {
    ROW_INVALID: (
        "Zeile {row}: bitte Quotenjahr, Fahrzeugklasse, Beträge ab 0,00 € und die Umsatzsteuer prüfen.",
        "Row {row}: please check the year, the vehicle class, amounts from € 0.00 and the VAT.",
    ),
    OUT_OF_BOUNDS: (
        "Zeile {row} ({label}): Der Betrag muss über 0,00 € und höchstens {ceiling} je Fahrzeug der "
        "Klasse {vehicle_class} im Quotenjahr {legislation_year} liegen (Grenze der Plattform).",
        "Row {row} ({label}): the amount must be above € 0.00 and at most {ceiling} per "
        "{vehicle_class} vehicle in {legislation_year} (the platform's bound).",
    ),
    DUPLICATE: (
        "Zeile {row}: Für {legislation_year} und {vehicle_class} gibt es schon einen Preis.",
        "Row {row}: there is already a price for {legislation_year} and {vehicle_class}.",
    ),
    STALE: (
        "Die Preise wurden inzwischen geändert (Version {current}). Bitte laden Sie die Seite neu.",
        "The prices were changed meanwhile (version {current}). Please reload the page.",
    ),
    TOO_MANY: (
        "Höchstens {limit} Zeilen je Preistabelle.",
        "At most {limit} rows per fee table.",
    ),
}


class FeeTableError(Exception):
    """Refused input: answered {"fees": {"error_code", "message", "details"}} (400; 409 for a
    stale version), the message in the request's language."""

    def __init__(self, code: str, *, status: int = 400, **details: Any):
        self.code = code
        self.status = status
        self.details = details
        super().__init__(code)

    def body(self, language: str) -> dict[str, Any]:
        german, english = MESSAGES[self.code]
        message = (english if language == "en" else german).format(**self.details)
        return {"fees": {"error_code": self.code, "message": message, "details": self.details}}


def _rows_checked(rows: list[dict[str, Any]]) -> list[FeeTableRow]:
    if len(rows) > MAX_ROWS:
        raise FeeTableError(TOO_MANY, limit=MAX_ROWS)
    checked: list[FeeTableRow] = []
    seen: set[tuple[int, str]] = set()
    for number, raw in enumerate(rows, start=1):
        try:
            row = FeeTableRow.model_validate(raw)
        except ValidationError as error:
            fields = sorted({str(e["loc"][0]) for e in error.errors() if e.get("loc")})
            raise FeeTableError(ROW_INVALID, row=number, fields=fields) from None
        key = (row.legislation_year, row.vehicle_class)
        if key in seen:
            raise FeeTableError(
                DUPLICATE, row=number, legislation_year=row.legislation_year, vehicle_class=row.vehicle_class
            )
        seen.add(key)
        for field, label in AMOUNT_FIELDS.items():
            amount = getattr(row, field)
            if not payout_in_bounds(amount, row.legislation_year, row.vehicle_class):
                ceiling = payout_max(row.legislation_year, row.vehicle_class)
                raise FeeTableError(
                    OUT_OF_BOUNDS,
                    row=number,
                    field=field,
                    label=label,
                    legislation_year=row.legislation_year,
                    vehicle_class=row.vehicle_class,
                    amount=str(amount),
                    min_exclusive="0.00",
                    max=str(ceiling),
                    ceiling=german_euros(ceiling),
                )
        checked.append(row)
    return sorted(checked, key=lambda row: (row.legislation_year, row.vehicle_class))


def _label(member: StaffMember) -> str:
    email = member.user.email
    return f"{member.name} <{email}>" if email else member.name


def fee_table_save(
    *,
    actor: StaffMember,
    config: PartnerConfig,
    rows: list[dict[str, Any]],
    base_version: int,
    note: str = "",
) -> FeeTableVersion | None:
    """The partner admin's table as the next version, valid from now (None: unchanged, nothing
    written). `base_version` is the version the admin edited: another admin's save meanwhile
    is never overwritten unseen. The first save keeps the configuration's table as version 0."""
    checked = _rows_checked(rows)
    stored = [row.stored() for row in checked]
    with transaction.atomic():
        # One save at a time (readers go on): the next number and the comparison with the
        # current version hold, the first save's version 0 included.
        with connection.cursor() as cursor:
            cursor.execute(f"LOCK TABLE {FeeTableVersion._meta.db_table} IN SHARE ROW EXCLUSIVE MODE")
        current = FeeTableVersion.objects.order_by("-number").first()
        if current is None:
            before = [row.stored() for row in config_fee_rows(config)]
            current_number = 0
        else:
            before, current_number = current.rows, current.number
        if base_version != current_number:
            raise FeeTableError(STALE, status=409, current=current_number)
        if stored == before:
            return None
        now = timezone.now()
        if current is None:
            FeeTableVersion.objects.create(
                number=0,
                rows=before,
                valid_from=now,  # read as "from the start" (quota.amounts.fee_schedule)
                created_at=now,
                created_by_label="Einrichtung durch die Plattform",
                note="Preise aus der Einrichtung",
            )
        version = FeeTableVersion.objects.create(
            number=current_number + 1,
            rows=stored,
            valid_from=now,
            created_at=now,
            created_by=actor.user,
            created_by_label=_label(actor)[:300],
            note=note[:300],
        )
        audit_record(
            actor=actor,
            action="fee_table.update",
            obj=version,
            before={"version": current_number, "rows": before},
            after={"version": version.number, "rows": stored, "note": version.note},
        )
    return version
