"""Issue 49: the audit log as CSV and XLSX (one column list), over HTTP: the list's filters, oldest
first, German headers, the moment a real Excel date in local time, before/after as JSON text, a
value that starts like a formula text in both files (the CSV's apostrophe, the XLSX's text cell,
no <f>); only partner admins; the export is itself in the log; another partner's log stays there."""

from __future__ import annotations

import csv
import datetime
import io
import json
import zipfile

import pytest
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context
from openpyxl import load_workbook

from staff.api import AUDIT_COLUMNS
from staff.audit import audit_record
from staff.models import AuditEntry
from tenants.models import Partner
from tests.partner_staff import partner_session, staff_member

pytestmark = pytest.mark.django_db
HOST = "autohaus.localhost"
API = "/api/partner/"


def signed_in(partner: Partner, role: str, host: str = HOST) -> Client:
    member, password = staff_member(partner, role)
    return partner_session(Client(enforce_csrf_checks=True), host, member, password)


def test_the_audit_log_as_csv_and_xlsx() -> None:
    autohaus = Partner.objects.get(subdomain="autohaus")
    admin = signed_in(autohaus, "partner_admin")
    with schema_context(autohaus.schema_name):
        first = audit_record(
            actor=None, action="system.test", object_type="x.y", object_id="1", after={"n": 1}
        )
        second = audit_record(
            actor=None, action="system.test", object_type="x.y", object_id="=2+2", before={"name": "@evil"}
        )
        audit_record(actor=None, action="system.other", object_type="x.y", object_id="3")
        AuditEntry.objects.filter(pk=first.pk).update(created_at=timezone.now() - datetime.timedelta(hours=2))

    as_csv = admin.get(f"{API}audit/export.csv?action=system.test", HTTP_HOST=HOST)
    as_xlsx = admin.get(f"{API}audit/export.xlsx?action=system.test", HTTP_HOST=HOST)

    assert as_csv.status_code == 200 and as_csv["Content-Type"] == "text/csv; charset=utf-8"
    assert 'filename="protokoll-' in as_csv["Content-Disposition"]
    text = b"".join(as_csv.streaming_content).decode("utf-8")  # type: ignore[attr-defined]
    assert text.startswith("\ufeff")
    table = list(csv.reader(io.StringIO(text.lstrip("\ufeff")), delimiter=";"))
    assert table[0] == [c.header for c in AUDIT_COLUMNS] and table[0][:2] == ["Zeitpunkt", "Wer"]
    assert [row[5] for row in table[1:]] == ["1", "'=2+2"]  # the filter, oldest first, defused
    with schema_context(autohaus.schema_name):
        first.refresh_from_db()
    assert table[1][0] == timezone.localtime(first.created_at).strftime("%d.%m.%Y %H:%M")
    assert json.loads(table[1][7]) == {"n": 1} and json.loads(table[2][6]) == {"name": "@evil"}

    data = b"".join(as_xlsx.streaming_content)  # type: ignore[attr-defined]
    sheet = load_workbook(io.BytesIO(data)).active
    assert sheet is not None
    rows = [list(row) for row in sheet.iter_rows()]
    assert [c.value for c in rows[0]] == table[0]
    moment = rows[1][0]
    assert moment.is_date and moment.number_format == "DD.MM.YYYY HH:MM"
    assert abs(moment.value - timezone.localtime(first.created_at).replace(tzinfo=None)) < datetime.timedelta(
        seconds=1
    )
    assert rows[2][5].value == "=2+2" and rows[2][5].data_type == "s" and rows[2][5].quotePrefix
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        xml = [archive.read(n) for n in archive.namelist() if n.startswith("xl/worksheets/")]
    assert xml and not any(b"<f>" in part or b"<f " in part for part in xml)
    assert second.pk  # the second entry is the defused one above
    with schema_context(autohaus.schema_name):
        exports = AuditEntry.objects.filter(action="audit.export").order_by("pk")
        assert [(e.after or {}).get("format") for e in exports] == ["csv", "xlsx"]
        assert (exports[0].after or {}).get("action") == "system.test"

    # only partner admins; the other partner's admin sees only its own log
    assert signed_in(autohaus, "back_office").get(f"{API}audit/export.csv", HTTP_HOST=HOST).status_code == 403
    assert admin.get(f"{API}audit/export.pdf", HTTP_HOST=HOST).status_code == 404
    stadtwerk = Partner.objects.get(subdomain="stadtwerk")
    other = signed_in(stadtwerk, "partner_admin", host="stadtwerk.localhost")
    theirs = other.get(f"{API}audit/export.csv?action=system.test", HTTP_HOST="stadtwerk.localhost")
    assert theirs.status_code == 200
    assert len(b"".join(theirs.streaming_content).decode().strip().splitlines()) == 1  # type: ignore[attr-defined]
    assert Client().get(f"{API}audit/export.csv", HTTP_HOST=HOST).status_code in (401, 403)
