"""One column list, two file formats (issue 49): an export names its columns once (German
header and kind) and yields typed rows (dates, datetimes, Decimals, ints, text); the CSV writes
them in German formats (1.234,56; 29.11.2026), the XLSX as real Excel dates and numbers with a
€ format. Both defuse a text cell a spreadsheet would run as a formula: the CSV with a leading
apostrophe (the applications export's rule), the XLSX as a text cell marked "quote prefix"
(never a formula, shown and edited as the text it is).

The XLSX is written with openpyxl's write-only mode (rows go to a temporary file as they come,
the workbook is never held in memory) into a spooled temporary file the response streams."""

from __future__ import annotations

import csv
import datetime
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import IO, Any, Literal

from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.styles import Font

# A spreadsheet runs a cell that starts with one of these as a formula (=HYPERLINK(...), +cmd|...).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")

Kind = Literal["text", "int", "date", "datetime", "time", "money", "decimal", "percent"]

# German Excel shows these with its own separators (1.234,56 €; 29.11.2026).
XLSX_FORMATS: dict[str, str] = {
    "int": "0",
    "date": "DD.MM.YYYY",
    "datetime": "DD.MM.YYYY HH:MM",
    "time": "HH:MM:SS",
    "money": '#,##0.00 "€"',
    "decimal": "#,##0.00",
    "percent": "0.0%",
}
CSV_CHUNK_ROWS = 500
XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def de_number(value: Decimal | int | float, places: int = 2, *, grouped: bool = True) -> str:
    """1234.5 -> '1.234,50' (grouped) or '1234,50'."""
    quantum = Decimal(1).scaleb(-places)
    text = f"{Decimal(value).quantize(quantum, rounding=ROUND_HALF_UP):{',' if grouped else ''}.{places}f}"
    return text.replace(",", "\x00").replace(".", ",").replace("\x00", ".")


def de_percent(value: Decimal) -> str:
    """19.00 -> '19 %', 7.50 -> '7,5 %'."""
    return f"{Decimal(value).normalize():f}".replace(".", ",") + " %"


def _naive(value: datetime.datetime) -> datetime.datetime:
    """Local wall-clock time (Excel has no time zones)."""
    if value.tzinfo is not None:
        from django.utils import timezone

        value = timezone.localtime(value).replace(tzinfo=None)
    return value


@dataclass(frozen=True)
class Column:
    header: str
    kind: Kind = "text"
    # the CSV's text where the kind's German default is not this export's (e.g. no grouping)
    csv_format: Callable[[Any], str] | None = None

    def csv(self, value: Any) -> Any:
        if value is None or value == "":
            return ""
        if self.csv_format is not None:
            return self.csv_format(value)
        if self.kind == "date":
            return value.strftime("%d.%m.%Y")
        if self.kind == "datetime":
            return _naive(value).strftime("%d.%m.%Y %H:%M")
        if self.kind == "time":
            return (_naive(value) if isinstance(value, datetime.datetime) else value).strftime("%H:%M:%S")
        if self.kind in ("money", "decimal"):
            return de_number(value, 2)
        if self.kind == "percent":
            return de_percent(value)
        return value

    def xlsx(self, value: Any) -> Any:
        if value is None or value == "":
            return None
        if self.kind in ("datetime", "time") and isinstance(value, datetime.datetime):
            value = _naive(value)
            return value.time() if self.kind == "time" else value
        if self.kind in ("money", "decimal"):
            return float(value)
        if self.kind == "percent":
            return float(Decimal(value) / 100)
        return value


def csv_cell(value: object) -> object:
    """Text goes into the CSV as text: a leading apostrophe keeps a spreadsheet from reading it
    as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def headers(columns: Sequence[Column]) -> list[str]:
    return [column.header for column in columns]


def csv_row(columns: Sequence[Column], row: Sequence[Any]) -> list[Any]:
    """One typed row in the CSV's German text (not yet defused: csv_cell does that on writing)."""
    return [column.csv(value) for column, value in zip(columns, row, strict=True)]


class _Echo:
    def write(self, value: str) -> str:
        return value


def csv_chunks(columns: Sequence[Column], rows: Iterable[Sequence[Any]]) -> Iterator[str]:
    """The CSV in chunks of a few hundred rows: BOM (Excel reads the umlauts), `;` (the German
    list separator), formula cells defused."""
    writer = csv.writer(_Echo(), delimiter=";", lineterminator="\r\n")
    yield "\ufeff" + writer.writerow([csv_cell(h) for h in headers(columns)])
    lines: list[str] = []
    for row in rows:
        lines.append(writer.writerow([csv_cell(value) for value in csv_row(columns, row)]))
        if len(lines) == CSV_CHUNK_ROWS:
            yield "".join(lines)
            lines = []
    if lines:
        yield "".join(lines)


def csv_bytes(columns: Sequence[Column], rows: Iterable[Sequence[Any]]) -> bytes:
    return "".join(csv_chunks(columns, rows)).encode("utf-8")


def csv_file(columns: Sequence[Column], rows: Iterable[Sequence[Any]]) -> IO[bytes]:
    """The CSV in a temporary file (in memory up to 16 MB, on disk past that), at its start:
    written while the request is in the partner's schema, streamed afterwards."""
    target = tempfile.SpooledTemporaryFile(max_size=16 * 1024 * 1024)  # noqa: SIM115 (the response closes it)
    for chunk in csv_chunks(columns, rows):
        target.write(chunk.encode("utf-8"))
    target.seek(0)
    return target


def _text_cell(sheet: Any, value: str) -> WriteOnlyCell:
    cell = WriteOnlyCell(sheet, value=ILLEGAL_CHARACTERS_RE.sub("", value))
    # openpyxl takes a string starting with '=' for a formula: this one is text, always.
    cell.data_type = "s"
    if value.startswith(FORMULA_PREFIXES):
        cell.quotePrefix = True  # Excel keeps it text when the cell is edited, too
    return cell


def xlsx_write(
    columns: Sequence[Column], rows: Iterable[Sequence[Any]], target: IO[bytes], *, title: str
) -> None:
    """The rows as one sheet: a bold header row, frozen; typed cells with German formats."""
    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet(title=title[:31])
    sheet.freeze_panes = "A2"
    bold = Font(bold=True)
    header_cells = []
    for header in headers(columns):
        cell = _text_cell(sheet, header)
        cell.font = bold
        header_cells.append(cell)
    sheet.append(header_cells)
    for row in rows:
        cells: list[Any] = []
        for column, raw in zip(columns, row, strict=True):
            value = column.xlsx(raw)
            if isinstance(value, str):
                cells.append(_text_cell(sheet, value))
            elif value is None:
                cells.append(None)
            else:
                cell = WriteOnlyCell(sheet, value=value)
                if column.kind in XLSX_FORMATS:
                    cell.number_format = XLSX_FORMATS[column.kind]
                cells.append(cell)
        sheet.append(cells)
    workbook.save(target)


def xlsx_file(columns: Sequence[Column], rows: Iterable[Sequence[Any]], *, title: str) -> IO[bytes]:
    """The XLSX in a temporary file (in memory up to 16 MB, on disk past that), at its start."""
    target = tempfile.SpooledTemporaryFile(max_size=16 * 1024 * 1024)  # noqa: SIM115 (the response closes it)
    xlsx_write(columns, rows, target, title=title)
    target.seek(0)
    return target
