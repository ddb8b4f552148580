"""Issue 49, exports and print material over HTTP: a batch statement and a bulk upload's results
as XLSX read back with openpyxl (real dates, numbers with a € format, a formula-like text stays
text: no <f> anywhere in the sheet), the same columns as the CSV; the owner CSV template that the
upload's own check accepts; a sub-partner's link as a QR code that decodes to that link. Roles and
a second partner are refused."""

from __future__ import annotations

import datetime
import io
import zipfile
from decimal import Decimal
from typing import Any

import cv2
import numpy as np
import pytest
from django.test import Client
from django.utils import timezone
from openpyxl import load_workbook

from common.partner_config import PartnerConfig
from operations import reports
from operations.export_api import BULK_RESULT_COLUMNS
from operations.models import BulkUpload, BulkUploadItem, SubPartner
from operations.owner_csv import owner_rows_parse
from staff.models import AuditEntry
from tenants.models import Partner
from tenants.quota_years import QuotaYear, allowed_registration_years, calendar_forget
from tests.factories import ApplicationFactory
from tests.operations.conftest import API, HOST, OTHER_HOST, SessionFactory
from tests.operations.test_settlement_reports import BATCHES, batch_of, csv_lines, to_pay

pytestmark = pytest.mark.django_db
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def sheet_rows(data: bytes) -> tuple[list[Any], list[list[Any]]]:
    """The first sheet's header and rows, as openpyxl reads them back."""
    sheet = load_workbook(io.BytesIO(data)).active
    assert sheet is not None
    rows = [list(row) for row in sheet.iter_rows()]
    return [cell.value for cell in rows[0]], rows[1:]


def no_formula(data: bytes) -> bool:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return not any(
            b"<f>" in archive.read(name) or b"<f " in archive.read(name)
            for name in archive.namelist()
            if name.startswith("xl/worksheets/")
        )


def test_the_batch_statement_as_xlsx_with_real_dates_and_euro_amounts(
    autohaus: Partner, session: SessionFactory
) -> None:
    # given: a business owner (VAT), an account holder that starts like a formula, a failed item
    admin = session("partner_admin")
    company = to_pay(
        client__vehicle_owner_type="business",
        client__is_vat_mandatory=True,
        client__name_of_business="Flotte GmbH",
        client__account_name="Flotte GmbH",
    )
    formula = to_pay(client__account_name="=HYPERLINK(evil)")
    returned = to_pay(client__account_name="Max Rueck")
    batch = batch_of(admin, company, formula, returned, mark_paid=False)
    item = next(i for i in batch["items"] if i["application"]["id"] == returned.pk)
    failed = admin.post(
        f"{BATCHES}{batch['id']}/items/{item['id']}/fail/",
        {"reason": "-Konto erloschen"},
        content_type="application/json",
        HTTP_HOST=HOST,
    )
    assert failed.status_code == 200, failed.content

    # when
    answer = admin.get(f"{BATCHES}{batch['id']}/statement.xlsx", HTTP_HOST=HOST)

    # then: the CSV's columns, typed
    assert answer.status_code == 200 and answer["Content-Type"] == XLSX
    assert "no-store" in answer["Cache-Control"]
    assert f"{batch['reference']}-abrechnung.xlsx" in answer["Content-Disposition"]
    data = b"".join(answer.streaming_content)  # type: ignore[attr-defined]
    header, rows = sheet_rows(data)
    assert header == reports.BATCH_HEADER
    csv_header = csv_lines(admin.get(f"{BATCHES}{batch['id']}/statement.csv", HTTP_HOST=HOST).content)[0]
    assert header == csv_header  # one column list for both
    column = {name: header.index(name) for name in header}
    by_payee = {row[column["Zahlungsempfänger"]].value: row for row in rows}
    flotte = by_payee["Flotte GmbH"]
    assert [flotte[column[c]].value for c in ("Netto", "USt", "Brutto")] == [85, 16.15, 101.15]
    assert flotte[column["Brutto"]].number_format == '#,##0.00 "€"'
    assert flotte[column["USt-Satz"]].value == pytest.approx(0.19)
    assert flotte[column["Quotenjahr"]].value == company.legislation_year
    # a formula is text, kept as typed, marked so that Excel keeps it text when edited
    evil = by_payee["=HYPERLINK(evil)"][column["Zahlungsempfänger"]]
    assert evil.data_type == "s" and evil.quotePrefix
    rueck = by_payee["Max Rueck"]
    assert rueck[column["Fehlergrund"]].value == "-Konto erloschen"
    assert rueck[column["Fehlergrund"]].data_type == "s"
    failed_on = rueck[column["Fehler am"]]
    assert failed_on.is_date and failed_on.value == datetime.datetime.combine(
        timezone.localdate(), datetime.time()
    )
    assert failed_on.number_format == "DD.MM.YYYY"
    total = next(row for row in rows if row[0].value == "Summe (ohne Fehler)")
    assert (total[1].value, total[column["Brutto"]].value) == (2, 186.15)
    assert no_formula(data)

    # a back-office member does not see batches; another partner's staff do not find it
    assert (
        session("back_office").get(f"{BATCHES}{batch['id']}/statement.xlsx", HTTP_HOST=HOST).status_code
        == 403
    )
    other = Partner.objects.get(subdomain="stadtwerk")
    stranger = session("partner_admin", host=OTHER_HOST, partner=other)
    assert stranger.get(f"{BATCHES}{batch['id']}/statement.xlsx", HTTP_HOST=OTHER_HOST).status_code == 404


def _upload_with_results() -> BulkUpload:
    application = ApplicationFactory.create(registration__vin="WVWZZZ1KZAW000001")
    upload = BulkUpload.objects.create(
        status=BulkUpload.Status.READY, file_name="flotte.zip", size=100, file_count=2,
        registration_years=[application.legislation_year],
    )  # fmt: skip
    finished = timezone.now().replace(microsecond=0)
    BulkUploadItem.objects.create(
        upload=upload, position=1, file_name="a.jpg", sha256="a" * 64, size=10,
        status=BulkUploadItem.Status.ACCEPTED, registration=application.registration,
        client=application.client, finished_at=finished,
    )  # fmt: skip
    BulkUploadItem.objects.create(
        upload=upload, position=2, file_name="=cmd|' /C calc'!A0.jpg", sha256="b" * 64, size=10,
        status=BulkUploadItem.Status.REFUSED, error_code="IMGC002", finished_at=finished,
    )  # fmt: skip
    return upload


def test_the_results_of_a_bulk_upload_as_csv_and_xlsx(autohaus: Partner, session: SessionFactory) -> None:
    upload = _upload_with_results()
    viewer = session("viewer")  # whoever follows the uploads may take the results
    url = f"{API}bulk_uploads/{upload.pk}/results"

    as_csv = viewer.get(f"{url}.csv", HTTP_HOST=HOST)
    as_xlsx = viewer.get(f"{url}.xlsx", HTTP_HOST=HOST)

    assert as_csv.status_code == 200 and as_xlsx.status_code == 200
    lines = csv_lines(as_csv.content)
    assert lines[0] == [c.header for c in BULK_RESULT_COLUMNS]
    assert lines[1][:3] == ["1", "a.jpg", "Angenommen"]
    assert lines[2][1] == "'=cmd|' /C calc'!A0.jpg" and lines[2][3] == "IMGC002"
    finished = BulkUploadItem.objects.get(upload=upload, position=1).finished_at
    assert lines[1][-1] == timezone.localtime(finished).strftime("%d.%m.%Y %H:%M")

    data = b"".join(as_xlsx.streaming_content)  # type: ignore[attr-defined]
    header, rows = sheet_rows(data)
    assert header == lines[0]
    first, second = rows
    application = BulkUploadItem.objects.get(upload=upload, position=1).registration.quota_applications.get()  # type: ignore[union-attr]
    assert first[0].value == 1 and first[4].value == application.registration.sequence
    assert first[5].value == "WVWZZZ1KZAW000001" and first[7].value == str(application.legislation_year)
    assert first[-1].is_date and first[-1].value == timezone.localtime(finished).replace(tzinfo=None)
    assert second[1].value == "=cmd|' /C calc'!A0.jpg" and second[1].data_type == "s"
    assert no_formula(data)
    # taking personal data out is recorded
    assert AuditEntry.objects.filter(action="bulk_upload.export", object_id=str(upload.pk)).count() == 2

    other = Partner.objects.get(subdomain="stadtwerk")
    stranger = session("partner_admin", host=OTHER_HOST, partner=other)
    assert stranger.get(f"{url}.xlsx", HTTP_HOST=OTHER_HOST).status_code == 404
    assert Client().get(f"{url}.csv", HTTP_HOST=HOST).status_code in (401, 403)


def test_the_owner_csv_template_is_what_the_upload_accepts(
    autohaus: Partner, session: SessionFactory
) -> None:
    answer = session("back_office").get(f"{API}bulk_uploads/template.csv", HTTP_HOST=HOST)

    assert answer.status_code == 200 and answer["Content-Type"].startswith("text/csv")
    assert "halterdaten-vorlage.csv" in answer["Content-Disposition"]
    assert answer.content.startswith(b"\xef\xbb\xbf")
    parsed = owner_rows_parse(
        answer.content, file_names=["scan-001.jpg"], config=PartnerConfig.model_validate(autohaus.config)
    )
    row = parsed.rows["scan-001.jpg"]
    assert (row["first_name"], row["last_name"], row["email"]) == (
        "Erika", "Mustermann", "erika.mustermann@example.org",
    )  # fmt: skip
    # viewers do not upload, so they get no template
    assert session("viewer").get(f"{API}bulk_uploads/template.csv", HTTP_HOST=HOST).status_code == 403


def test_the_upload_dialog_offers_only_open_quota_years(autohaus: Partner, session: SessionFactory) -> None:
    back_office = session("back_office")
    today = timezone.localdate()
    # the law's calendar for this year: closed once its registration cut-off passed
    QuotaYear.objects.filter(year=today.year).update(registration_cutoff=today - datetime.timedelta(days=1))
    calendar_forget()
    try:
        answer = back_office.get(f"{API}bulk_upload_years/", HTTP_HOST=HOST)
        expected = allowed_registration_years(PartnerConfig.model_validate(autohaus.config), today)
        refused = session("viewer").get(f"{API}bulk_upload_years/", HTTP_HOST=HOST)
    finally:
        calendar_forget()  # the next test reads the calendar of its database again

    assert answer.status_code == 200
    body = answer.json()
    assert today.year not in body["years"] and body["years"] == expected
    assert body["default"] == (expected[0] if expected else None)
    assert refused.status_code == 403


def _decoded(png: bytes) -> str:
    image = cv2.imdecode(np.frombuffer(png, dtype=np.uint8), cv2.IMREAD_GRAYSCALE)
    assert image is not None
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(image)
    return str(text)


def test_a_sub_partner_link_as_a_qr_code_to_print(autohaus: Partner, session: SessionFactory) -> None:
    sub = SubPartner.objects.create(name="Elektro Blitz", referral_key="BLITZ", fee_share_percent=Decimal(10))
    viewer = session("viewer")

    link = viewer.get(f"{API}sub_partners/{sub.pk}/link/", HTTP_HOST=HOST)
    png = viewer.get(f"{API}sub_partners/{sub.pk}/qr.png", HTTP_HOST=HOST)
    svg = viewer.get(f"{API}sub_partners/{sub.pk}/qr.svg", HTTP_HOST=HOST)

    url = link.json()["url"]
    assert url == f"http://{autohaus.primary_domain()}/?ref=BLITZ"
    assert png.status_code == 200 and png["Content-Type"] == "image/png"
    assert png.content.startswith(b"\x89PNG") and _decoded(png.content) == url
    assert svg.status_code == 200 and svg["Content-Type"] == "image/svg+xml"
    assert b"<svg" in svg.content and 'filename="qr-BLITZ-' in svg["Content-Disposition"]
    assert viewer.get(f"{API}sub_partners/{sub.pk}/qr.gif", HTTP_HOST=HOST).status_code == 404

    other = Partner.objects.get(subdomain="stadtwerk")
    stranger = session("partner_admin", host=OTHER_HOST, partner=other)
    assert stranger.get(f"{API}sub_partners/{sub.pk}/qr.png", HTTP_HOST=OTHER_HOST).status_code == 404
