"""German number and date formats for the partner's documents and reports (1.234,56; 29.11.2026)
and the spreadsheet-safe CSV the accountant opens in Excel: UTF-8 with BOM, semicolons, every
cell that a spreadsheet would run as a formula defused (quota.admin.csv_cell, the applications
export's rule)."""

from __future__ import annotations

import csv
import datetime
import io
from collections.abc import Iterable
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from quota.admin import csv_cell

CENT = Decimal("0.01")


def de_number(value: Decimal | int | float, places: int = 2) -> str:
    """1234.5 -> '1.234,50' (places 2); 2.0 -> '2,000' (places 3)."""
    quantum = Decimal(1).scaleb(-places)
    text = f"{Decimal(value).quantize(quantum, rounding=ROUND_HALF_UP):,.{places}f}"
    return text.replace(",", "\x00").replace(".", ",").replace("\x00", ".")


def de_money(value: Decimal) -> str:
    return de_number(value, 2)


def de_euro(value: Decimal) -> str:
    return f"{de_money(value)} €"


def de_percent(value: Decimal) -> str:
    """19.00 -> '19 %', 7.50 -> '7,5 %'."""
    text = f"{Decimal(value).normalize():f}".replace(".", ",")
    return f"{text} %"


def de_date(value: datetime.date | None) -> str:
    return value.strftime("%d.%m.%Y") if value else ""


def csv_bytes(header: list[str], rows: Iterable[list[Any]]) -> bytes:
    """The whole CSV: UTF-8 with BOM (Excel reads the umlauts), `;` (the German list separator),
    formula cells defused."""
    out = io.StringIO()
    out.write("\ufeff")
    writer = csv.writer(out, delimiter=";", lineterminator="\r\n")
    writer.writerow([csv_cell(value) for value in header])
    for row in rows:
        writer.writerow([csv_cell(value) for value in row])
    return out.getvalue().encode("utf-8")
