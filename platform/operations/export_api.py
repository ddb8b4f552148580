"""Issue 49's exports and print material under /api/partner/: a settlement batch statement and a
bulk upload's results as XLSX (and the results as CSV; one column list each, common.tables), the
bulk upload's owner CSV template, and a sub-partner link with its QR code (PNG or SVG) to print.

Roles as the screens they belong to: batches partner admins, bulk uploads everyone who sees them
(the template: who may upload), sub-partner links every staff member."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import IO, Any

import qrcode
from django.http import FileResponse, HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404
from django.utils import timezone
from ninja import Router
from qrcode.image.svg import SvgPathFillImage

from common.downloads import download_answer
from common.partner_config import PartnerConfig
from common.tables import XLSX_CONTENT_TYPE, Column, csv_bytes, xlsx_file
from operations import reports
from operations.models import BulkUpload, BulkUploadItem, SettlementBatch, SubPartner
from operations.schemas import BulkUploadYearsOut, SubPartnerLinkOut
from quota.models import QuotaApplication
from staff.audit import audit_record
from staff.auth import staff_auth, staff_role
from tenants.middleware import partner_site_url, request_partner
from tenants.quota_years import allowed_registration_years

router = Router(tags=["partner: exports"])

READ = staff_role("viewer", "back_office", "partner_admin")
WRITE = staff_role("back_office", "partner_admin")
ADMIN = staff_role("partner_admin")


def file_response(target: IO[bytes] | bytes, content_type: str, name: str) -> HttpResponseBase:
    """A download that is never cached; a temporary file is streamed and closed by the response."""
    response: HttpResponseBase
    if isinstance(target, bytes):
        response = HttpResponse(target, content_type=content_type)
    else:
        response = FileResponse(target, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["Cache-Control"] = "private, no-store"
    response["X-Content-Type-Options"] = "nosniff"
    return response


# ---------------------------------------------------------------- settlement batch


@router.get(
    "/settlement_batches/{batch_id}/statement.xlsx",
    auth=ADMIN,
    response={200: None, 404: dict},
    openapi_extra=download_answer("The batch statement as XLSX", XLSX_CONTENT_TYPE),
)
def batch_statement_xlsx(request: HttpRequest, batch_id: int) -> Any:
    batch = get_object_or_404(SettlementBatch, pk=batch_id)
    target = xlsx_file(reports.BATCH_COLUMNS, reports.batch_statement_table(batch), title=batch.reference)
    return file_response(target, XLSX_CONTENT_TYPE, f"{batch.reference}-abrechnung.xlsx")


# ---------------------------------------------------------------- bulk upload results

BULK_RESULT_COLUMNS = [
    Column("Position", "int"), Column("Datei"), Column("Ergebnis"), Column("Fehlercode"),
    Column("Registrierung", "int"), Column("FIN"), Column("Fahrzeugklasse"), Column("Quotenjahre"),
    Column("Anträge"), Column("Halterdaten"), Column("Verarbeitet am", "datetime"),
]  # fmt: skip


def bulk_result_rows(upload: BulkUpload) -> Iterator[list[Any]]:
    """One row per file of the upload, in its order; the applications of each registration."""
    items = upload.items.select_related("registration").defer("owner_data").order_by("position")
    registration_ids = [i.registration_id for i in items if i.registration_id]
    applications: dict[int, list[tuple[int, int]]] = {}
    for registration_id, year, sequence in (
        QuotaApplication.objects.filter(registration_id__in=registration_ids)
        .order_by("legislation_year", "pk")
        .values_list("registration_id", "legislation_year", "registration__sequence")
    ):
        applications.setdefault(registration_id, []).append((year, sequence))
    for item in items.iterator(chunk_size=1000):
        registration = item.registration
        found = applications.get(item.registration_id or 0, [])
        yield [
            item.position,
            item.file_name,
            BulkUploadItem.Status(item.status).label,
            item.error_code,
            registration.sequence if registration else None,
            registration.vin if registration else "",
            (registration.vehicle_class or "M1") if registration else "",
            ", ".join(str(year) for year, _ in found),
            ", ".join(f"{sequence}/{year}" for year, sequence in found),
            "ja" if item.client_id else "nein",
            item.finished_at,
        ]


def _bulk_export(request: HttpRequest, upload_id: int, kind: str) -> HttpResponseBase:
    upload = get_object_or_404(BulkUpload, pk=upload_id)
    # Registration data leaves the system: who exported what is recorded.
    audit_record(
        actor=request.auth,  # type: ignore[arg-type, attr-defined]
        action="bulk_upload.export",
        obj=upload,
        after={"format": kind},
    )
    stem = f"upload-{upload.pk}-ergebnis"
    if kind == "csv":
        return file_response(
            csv_bytes(BULK_RESULT_COLUMNS, bulk_result_rows(upload)), "text/csv; charset=utf-8", f"{stem}.csv"
        )
    target = xlsx_file(BULK_RESULT_COLUMNS, bulk_result_rows(upload), title="Ergebnis")
    return file_response(target, XLSX_CONTENT_TYPE, f"{stem}.xlsx")


@router.get(
    "/bulk_uploads/{upload_id}/results.csv",
    auth=READ,
    response={200: None, 404: dict},
    openapi_extra=download_answer("The upload's results as CSV", "text/csv"),
)
def bulk_results_csv(request: HttpRequest, upload_id: int) -> Any:
    return _bulk_export(request, upload_id, "csv")


@router.get(
    "/bulk_uploads/{upload_id}/results.xlsx",
    auth=READ,
    response={200: None, 404: dict},
    openapi_extra=download_answer("The upload's results as XLSX", XLSX_CONTENT_TYPE),
)
def bulk_results_xlsx(request: HttpRequest, upload_id: int) -> Any:
    return _bulk_export(request, upload_id, "xlsx")


# ---------------------------------------------------------------- the owner CSV template

# The columns operations.owner_csv reads, by the German names it accepts (its ALIASES), and one
# example row that its check takes (tests/operations/test_exports.py parses the template).
OWNER_TEMPLATE = [
    ("Datei", "scan-001.jpg"), ("Haltertyp", "privat"), ("Anrede", "Frau"), ("Vorname", "Erika"),
    ("Nachname", "Mustermann"), ("Firma", ""), ("Vorsteuerabzugsberechtigt", ""), ("USt-IdNr", ""),
    ("E-Mail", "erika.mustermann@example.org"), ("Straße", "Musterstraße"), ("Hausnummer", "1"),
    ("PLZ", "10115"), ("Ort", "Berlin"), ("Kontoinhaber", "Erika Mustermann"),
    ("IBAN", "DE02120300000000202051"),
]  # fmt: skip


@router.get("/bulk_upload_years/", auth=WRITE, response={200: BulkUploadYearsOut})
def bulk_upload_years(request: HttpRequest) -> Any:
    """The quota years an upload may name today (the calendar and the partner's flags,
    tenants.quota_years): the upload dialog's choice; the upload call checks them again."""
    partner = request_partner(request)
    assert partner is not None
    years = allowed_registration_years(PartnerConfig.model_validate(partner.config), timezone.localdate())
    return {"years": years, "default": years[0] if years else None}


@router.get(
    "/bulk_uploads/template.csv",
    auth=WRITE,
    response={200: None},
    openapi_extra=download_answer("The owner CSV's template", "text/csv"),
)
def bulk_template_csv(request: HttpRequest) -> Any:
    columns = [Column(header) for header, _ in OWNER_TEMPLATE]
    example = [value for _, value in OWNER_TEMPLATE]
    return file_response(csv_bytes(columns, [example]), "text/csv; charset=utf-8", "halterdaten-vorlage.csv")


# ---------------------------------------------------------------- sub-partner link and QR code


def sub_partner_link(request: HttpRequest, sub_partner: SubPartner) -> str:
    partner = request_partner(request)
    assert partner is not None
    return f"{partner_site_url(partner, request)}?ref={sub_partner.referral_key}"


@router.get(
    "/sub_partners/{int:sub_partner_id}/link/", auth=staff_auth, response={200: SubPartnerLinkOut, 404: dict}
)
def sub_partner_link_out(request: HttpRequest, sub_partner_id: int) -> Any:
    sub_partner = get_object_or_404(SubPartner, pk=sub_partner_id)
    return {"id": sub_partner.pk, "url": sub_partner_link(request, sub_partner)}


def _qr(url: str, kind: str) -> bytes:
    # Error correction M (15 %): still reads from a slightly creased print-out.
    code = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, box_size=12, border=4)
    code.add_data(url)
    code.make(fit=True)
    if kind == "svg":
        return code.make_image(image_factory=SvgPathFillImage).to_string()  # type: ignore[no-any-return]
    out = io.BytesIO()
    code.make_image().save(out)
    return out.getvalue()


@router.get(
    "/sub_partners/{int:sub_partner_id}/qr.{kind}",
    auth=staff_auth,
    response={200: None, 404: dict},
    openapi_extra=download_answer(
        "The referral link as QR code (kind png or svg)", "image/png", "image/svg+xml"
    ),
)
def sub_partner_qr(request: HttpRequest, sub_partner_id: int, kind: str) -> Any:
    if kind not in ("png", "svg"):
        return HttpResponse(status=404)
    sub_partner = get_object_or_404(SubPartner, pk=sub_partner_id)
    content_type = "image/svg+xml" if kind == "svg" else "image/png"
    stamp = timezone.localdate().isoformat()
    return file_response(
        _qr(sub_partner_link(request, sub_partner), kind),
        content_type,
        f"qr-{sub_partner.referral_key}-{stamp}.{kind}",
    )
