"""Issue 49: the applications export as XLSX beside the CSV, over HTTP: the same filters and the
same columns (one list, APPLICATION_COLUMNS), read back with openpyxl: German headers, dates as
real Excel dates, the premium a number with a € format, a name that starts like a formula a text
cell (never a formula); roles and the audit entry as for the CSV; another partner's staff get
nothing of this partner."""

# ruff: noqa: F811 (the fixtures are test_partner_applications')
from __future__ import annotations

import csv
import datetime
import io
import zipfile
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context
from openpyxl import load_workbook

from operations import application_selectors as selectors
from registrations.models import BevRegistration
from staff.models import AuditEntry
from tenants.models import Partner
from tests.operations.test_partner_applications import (  # noqa: F401 (fixtures)
    API,
    HOST,
    OTHER_HOST,
    back_office,
    get,
    rows,
    session,
    stadtwerk,
    viewer,
)

pytestmark = pytest.mark.django_db
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def workbook_of(response: Any) -> tuple[bytes, Any]:
    data = b"".join(response.streaming_content)
    return data, load_workbook(io.BytesIO(data)).active


def test_the_xlsx_has_the_csvs_columns_typed_and_no_formula(
    back_office: Client, rows: dict[str, Any]
) -> None:
    # given: a first registration date on one vehicle
    with schema_context("p_stadtwerk"):
        BevRegistration.objects.filter(pk=rows["anna"].registration_id).update(
            first_registration=datetime.date(2021, 5, 3)
        )

    # when
    response = get(back_office, f"{API}export.xlsx", status=["qa_created", "qa_entered"])

    # then
    assert response.status_code == 200 and response["Content-Type"] == XLSX
    assert response["Content-Disposition"].startswith('attachment; filename="antraege-')
    data, sheet = workbook_of(response)
    table = [list(row) for row in sheet.iter_rows()]
    header = [cell.value for cell in table[0]]
    csv_text = b"".join(
        get(back_office, f"{API}export.csv", status=["qa_created", "qa_entered"]).streaming_content
    )
    csv_table = list(csv.reader(io.StringIO(csv_text.decode().lstrip("\ufeff")), delimiter=";"))
    assert header == csv_table[0] == selectors.CSV_HEADER and header[:3] == ["Nummer", "Quotenjahr", "Status"]
    assert table[0][0].font.b  # the header row is bold
    body = {row[header.index("Nachname")].value: row for row in table[1:]}
    assert len(body) == 5 == len(csv_table) - 1
    col = header.index
    albers, claasen, ernst = body["Albers"], body["Claasen"], body["Ernst"]
    assert albers[col("Nummer")].value == rows["anna"].registration.sequence
    assert albers[col("Status")].value == "Registrierung eingegangen"
    assert albers[col("Anteil Unterpartner (%)")].value == 10
    # the premium a number with the € format; the CSV keeps its German text
    assert claasen[col("Prämie brutto (EUR)")].value == 70
    assert claasen[col("Prämie brutto (EUR)")].number_format == '#,##0.00 "€"'
    # dates are dates, in local time
    created = albers[col("Angelegt")]
    assert created.is_date and created.number_format == "DD.MM.YYYY HH:MM"
    with schema_context("p_stadtwerk"):
        rows["anna"].refresh_from_db()
    local = timezone.localtime(rows["anna"].created_at).replace(tzinfo=None)
    assert abs(created.value - local) < datetime.timedelta(seconds=1)
    first_registration = albers[col("Erstzulassung")]
    assert first_registration.is_date and first_registration.value.date() == datetime.date(2021, 5, 3)
    # a formula stays text: the value as typed, a text cell with the quote prefix, no <f> in the sheet
    name = ernst[col("Vorname")]
    assert name.value == "=HYPERLINK(1)" and name.data_type == "s" and name.quotePrefix
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        sheets = [archive.read(n) for n in archive.namelist() if n.startswith("xl/worksheets/")]
    assert sheets and not any(b"<f>" in xml or b"<f " in xml for xml in sheets)
    # the list's filters; recorded like the CSV
    _, entered = workbook_of(get(back_office, f"{API}export.xlsx", status="qa_entered"))
    assert entered.max_row == 2
    with schema_context("p_stadtwerk"):
        formats = [
            (e.after or {}).get("format")
            for e in AuditEntry.objects.filter(action="quota_application.export")
        ]
    assert sorted(formats, key=str) == sorted([None, "xlsx", "xlsx"], key=str)


def test_viewers_and_other_partners_get_no_xlsx(viewer: Client, rows: dict[str, Any]) -> None:
    assert get(viewer, f"{API}export.xlsx").status_code == 403
    other = session(Partner.objects.get(subdomain="autohaus"), "partner_admin", host=OTHER_HOST)
    elsewhere = get(other, f"{API}export.xlsx", host=OTHER_HOST)
    assert elsewhere.status_code == 200
    _, sheet = workbook_of(elsewhere)
    names = {row[6].value for row in sheet.iter_rows(min_row=2)}
    assert not names & {"Albers", "Brandt", "Claasen", "Dietz", "Ernst"}
    assert Client().get(f"{API}export.xlsx", HTTP_HOST=HOST).status_code in (401, 403)
