"""The optional owner CSV of a bulk upload: one row per scan file name, checked with the flow's
billing rules (billing.validation) before anything is stored.

Encodings: UTF-8 with or without BOM; Windows-1252 (what Excel on a German Windows writes)
when the bytes are not UTF-8 and decode as Windows-1252 without control characters. UTF-16
and anything else is refused with a message that says how to save the file.
"""

from __future__ import annotations

import csv
import io
import unicodedata
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from text_unidecode import unidecode

from billing.validation import client_validate
from common.partner_config import PartnerConfig

MAX_BYTES = 5 * 1024 * 1024

ENCODING = "BULK020"
COLUMNS = "BULK021"
ROWS = "BULK022"
FILES = "BULK023"
EMPTY = "BULK024"

MESSAGES = {
    ENCODING: "Die CSV-Datei ist nicht lesbar. Bitte speichern Sie sie als „CSV UTF-8“ (oder Windows-1252).",
    COLUMNS: "Die Spalten der CSV-Datei passen nicht.",
    ROWS: "Einige Zeilen der CSV-Datei enthalten Fehler.",
    FILES: "CSV-Datei und Archiv passen nicht zusammen: jede Datei braucht genau eine Zeile.",
    EMPTY: "Die CSV-Datei enthält keine Zeilen.",
}

# Column -> field; German headers as a spreadsheet would have them are accepted too.
ALIASES = {
    "file_name": "file_name", "dateiname": "file_name", "datei": "file_name",
    "email": "email", "e-mail": "email", "e_mail": "email",
    "gender": "gender", "anrede": "gender",
    "first_name": "first_name", "vorname": "first_name",
    "last_name": "last_name", "nachname": "last_name", "name": "last_name",
    "street_name": "street_name", "straße": "street_name", "strasse": "street_name",
    "street_number": "street_number", "hausnummer": "street_number", "nr": "street_number",
    "postal_code": "postal_code", "plz": "postal_code", "postleitzahl": "postal_code",
    "city": "city", "ort": "city", "stadt": "city",
    "account_name": "account_name", "kontoinhaber": "account_name",
    "account_iban": "account_iban", "iban": "account_iban",
    "charge_card": "charge_card", "ladekarte": "charge_card",
    "vehicle_owner_type": "vehicle_owner_type", "haltertyp": "vehicle_owner_type", "halter": "vehicle_owner_type",
    "name_of_business": "name_of_business", "firma": "name_of_business",
    "is_vat_mandatory": "is_vat_mandatory", "vorsteuerabzugsberechtigt": "is_vat_mandatory",
    "vat_number": "vat_number", "ust-idnr": "vat_number", "steuernummer": "vat_number",
}  # fmt: skip
REQUIRED = (
    "file_name",
    "email",
    "first_name",
    "last_name",
    "street_name",
    "street_number",
    "postal_code",
    "city",
)
GENDERS = {"frau": "woman", "herr": "man", "divers": "diverse", "keine angabe": "not_specified"}
OWNER_TYPES = {"privat": "private", "private": "private", "gewerblich": "business", "business": "business"}
EMAIL_INVALID = "Bitte geben Sie eine gültige E-Mail-Adresse ein."
YES = {"ja", "yes", "true", "1", "x"}
NO = {"nein", "no", "false", "0", ""}


class CsvRefused(Exception):
    def __init__(self, code: str, details: dict[str, Any] | None = None):
        self.code = code
        self.message = MESSAGES[code]
        self.details = details or {}
        super().__init__(code)

    def as_error(self) -> dict[str, Any]:
        return {"error_code": self.code, "message": self.message, "details": self.details}


@dataclass(frozen=True)
class OwnerRows:
    encoding: str
    rows: dict[str, dict[str, Any]]  # file name -> clean client data plus "email"


def decode(data: bytes) -> tuple[str, str]:
    """(text, encoding name)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in data[:1000]:
        raise CsvRefused(ENCODING, {"encoding": "utf-16"})
    if data.startswith(b"\xef\xbb\xbf"):
        try:
            return data[3:].decode("utf-8"), "utf-8-sig"
        except UnicodeDecodeError:
            raise CsvRefused(ENCODING) from None
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        text = data.decode("cp1252")  # five bytes are undefined there and refused by Python
    except UnicodeDecodeError:
        raise CsvRefused(ENCODING) from None
    if any(unicodedata.category(c) == "Cc" and c not in "\r\n\t" for c in text):
        raise CsvRefused(ENCODING)
    return text, "windows-1252"


def _delimiter(header_line: str) -> str:
    return ";" if header_line.count(";") >= header_line.count(",") else ","


def _columns(header: list[str]) -> list[str]:
    fields, unknown = [], []
    for raw in header:
        key = raw.strip().lower()
        if key not in ALIASES:
            unknown.append(raw.strip())
        fields.append(ALIASES.get(key, ""))
    missing = [name for name in REQUIRED if name not in fields]
    twice = sorted({f for f in fields if f and fields.count(f) > 1})
    if unknown or missing or twice:
        raise CsvRefused(COLUMNS, {"unknown": unknown, "missing": missing, "twice": twice})
    return fields


def _row_data(values: dict[str, str]) -> dict[str, Any]:
    data: dict[str, Any] = {key: value.strip() for key, value in values.items() if key}
    gender = data.get("gender", "")
    data["gender"] = GENDERS.get(gender.lower(), gender)
    owner_type = data.get("vehicle_owner_type", "").lower()
    data["vehicle_owner_type"] = OWNER_TYPES.get(owner_type, owner_type or "private")
    vat = data.get("is_vat_mandatory", "").lower()
    data["is_vat_mandatory"] = True if vat in YES else False if vat in NO else vat
    if data["vehicle_owner_type"] == "private":
        data.pop("is_vat_mandatory")
    if not data.get("account_name") and data.get("account_iban"):
        # The holder defaults to the owner, transliterated: a SEPA holder has no umlauts.
        data["account_name"] = unidecode(f"{data.get('first_name', '')} {data.get('last_name', '')}").strip()
    return data


def owner_data_validate(
    values: dict[str, Any], config: PartnerConfig
) -> tuple[dict[str, Any], dict[str, Any]]:
    """One owner's data (a CSV row, or the form of a bulk upload without CSV): the flow's
    billing rules plus the e-mail. Returns the clean data with "email", and the errors."""
    values = dict(values)
    email = values.pop("email", "")
    email = email.strip() if isinstance(email, str) else ""
    clean, found = client_validate(values, config)
    try:
        validate_email(email)
    except ValidationError:
        found["email"] = [EMAIL_INVALID]
    return {**clean, "email": email.lower()}, found


def owner_rows_parse(data: bytes, *, file_names: list[str], config: PartnerConfig) -> OwnerRows:
    """The rows, keyed by file name; every problem of every row at once, or nothing."""
    if len(data) > MAX_BYTES:
        raise CsvRefused(COLUMNS, {"max_bytes": MAX_BYTES})
    text, encoding = decode(data)
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise CsvRefused(EMPTY)
    try:
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=_delimiter(lines[0]), strict=True)
        header = next(reader)
        fields = _columns(header)
        raw_rows = [row for row in reader if any(cell.strip() for cell in row)]
    except csv.Error:
        raise CsvRefused(COLUMNS) from None
    if not raw_rows:
        raise CsvRefused(EMPTY)
    rows: dict[str, dict[str, Any]] = {}
    problems: list[dict[str, Any]] = []
    known = {name.casefold(): name for name in file_names}
    unknown_files, twice = [], []
    for number, row in enumerate(raw_rows, start=2):
        if len(row) != len(fields):
            problems.append({"row": number, "errors": {"row": ["Falsche Anzahl Spalten."]}})
            continue
        values = _row_data(dict(zip(fields, row, strict=True)))
        file_name = known.get(values.pop("file_name").casefold())
        if file_name is None:
            unknown_files.append(row[fields.index("file_name")])
            continue
        if file_name in rows:
            twice.append(file_name)
            continue
        clean, found = owner_data_validate(values, config)
        if found:
            problems.append({"row": number, "file_name": file_name, "errors": found})
        rows[file_name] = clean
    missing = [name for name in file_names if name not in rows]
    if unknown_files or twice or missing:
        raise CsvRefused(FILES, {"unknown_files": unknown_files, "rows_twice": twice, "without_row": missing})
    if problems:
        raise CsvRefused(ROWS, {"rows": problems[:50]})
    return OwnerRows(encoding=encoding, rows=rows)
