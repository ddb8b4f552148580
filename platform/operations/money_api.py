"""Partner area (issue 17): bulk uploads and settlement batches with SEPA XML, at /api/partner/.

Bulk uploads: back office and partner admins upload and roll back, viewers follow progress.
Settlement batches (payee names, IBANs, money): partner admins only. Every write is audited.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from django.core.paginator import Paginator
from django.db import transaction
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404
from django.utils import timezone
from ninja import Query, Router, Schema, Status
from pydantic import Field
from text_unidecode import unidecode

from billing.masking import iban_masked
from billing.models import Client
from common.crypto import encrypted_fields
from common.downloads import download_answer
from common.partner_config import PartnerConfig
from common.text import CleanText
from operations import bulk, settlement
from operations.archive import ArchiveRefused
from operations.models import BulkUpload, BulkUploadItem, SettlementBatch, SettlementItem, SettlementSettings
from operations.owner_csv import CsvRefused
from operations.schemas import (
    BatchCreatedOut,
    BatchDetailOut,
    BatchPageOut,
    BatchPaidOut,
    BulkDetailOut,
    BulkItemOut,
    BulkPageOut,
    BulkRollbackOut,
    BulkSummaryOut,
    SettlementItemOut,
    SettlementSettingsOut,
)
from operations.sepa import SepaInvalid
from operations.tasks import bulk_item_run
from quota import catalogue
from quota.models import QuotaApplication
from staff.audit import audit_record
from staff.auth import staff_role
from tenants.middleware import request_partner
from tenants.models import Partner
from tenants.quota_years import allowed_registration_years, year_closed_message

router = Router(tags=["partner: bulk uploads and settlement"])

READ = staff_role("viewer", "back_office", "partner_admin")
WRITE = staff_role("back_office", "partner_admin")
ADMIN = staff_role("partner_admin")

ARCHIVE_MISSING = "Bitte wählen Sie ein ZIP-Archiv mit Scans aus."
YEARS_INVALID = "Bitte wählen Sie ein angebotenes Quotenjahr."
VERSION_INVALID = "Bitte wählen Sie die Version 09 oder 03."

BULK_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["archive"],
                    "properties": {
                        "archive": {
                            "type": "string",
                            "format": "binary",
                            "description": "ZIP of scans (JPEG, PNG, PDF), at most 500 files and 200 MB.",
                        },
                        "owners_csv": {
                            "type": "string",
                            "format": "binary",
                            "description": "Optional owner data, one row per file name (UTF-8 or Windows-1252).",
                        },
                        "registration_years": {
                            "type": "string",
                            "description": "Comma-separated quota years offered by the partner; default the first.",
                        },
                    },
                }
            }
        },
    }
}


def _partner(request: HttpRequest) -> Partner:
    partner = request_partner(request)
    assert partner is not None
    return partner


def _config(request: HttpRequest) -> PartnerConfig:
    return PartnerConfig.model_validate(_partner(request).config)


def _user(request: HttpRequest) -> Any:
    return request.auth.user  # type: ignore[attr-defined]


def _page(queryset: Any, page: int, page_size: int) -> tuple[int, list[Any]]:
    paginator = Paginator(queryset, page_size)
    if page > max(paginator.num_pages, 1):
        return paginator.count, []
    return paginator.count, list(paginator.page(page).object_list)


# ---------------------------------------------------------------- bulk uploads


def _bulk_summary(upload: BulkUpload, counts: dict[str, int] | None = None) -> dict[str, Any]:
    if counts is None:
        counts = {status: 0 for status in BulkUploadItem.Status.values}
        for status in upload.items.values_list("status", flat=True):
            counts[status] += 1
    done = upload.file_count - counts.get(BulkUploadItem.Status.PENDING, 0)
    return {
        "id": upload.pk,
        "status": upload.status,
        "status_label": BulkUpload.Status(upload.status).label,
        "file_name": upload.file_name,
        "size": upload.size,
        "file_count": upload.file_count,
        "has_csv": upload.has_csv,
        "csv_encoding": upload.csv_encoding,
        "registration_years": upload.registration_years,
        "counts": counts,
        "progress": round(done / upload.file_count, 4) if upload.file_count else 1.0,
        "created_at": upload.created_at.isoformat(),
        "finished_at": upload.finished_at.isoformat() if upload.finished_at else None,
        "rolled_back_at": upload.rolled_back_at.isoformat() if upload.rolled_back_at else None,
        "can_roll_back": upload.status in bulk.FINISHED,
    }


def _bulk_detail(upload: BulkUpload) -> dict[str, Any]:
    items = list(upload.items.select_related("registration").order_by("position"))
    applications: dict[int, list[dict[str, Any]]] = {}
    registration_ids = [item.registration_id for item in items if item.registration_id]
    for application in QuotaApplication.objects.filter(registration_id__in=registration_ids).order_by("pk"):
        applications.setdefault(application.registration_id, []).append(
            {
                "id": application.pk,
                "legislation_year": application.legislation_year,
                "status": application.status,
            }
        )
    counts = {status: 0 for status in BulkUploadItem.Status.values}
    for item in items:
        counts[item.status] += 1
    return {
        **_bulk_summary(upload, counts),
        "items": [_bulk_item(item, applications.get(item.registration_id or 0, [])) for item in items],
    }


def _bulk_item(item: BulkUploadItem, applications: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": item.pk,
        "position": item.position,
        "file_name": item.file_name,
        "size": item.size,
        "status": item.status,
        "status_label": BulkUploadItem.Status(item.status).label,
        "error_code": item.error_code or None,
        "details": item.error_details,
        "registration": (
            {
                "id": item.registration.pk,
                "sequence": item.registration.sequence,
                "vin": item.registration.vin,
                "needs_review": item.registration.needs_review,
            }
            if item.registration
            else None
        ),
        # Without a CSV the owner data is added per accepted scan (bulk_upload_owner).
        "has_owner": item.client_id is not None,
        "applications": applications,
    }


def _years(raw: str, config: PartnerConfig) -> list[int]:
    today = timezone.localdate()
    allowed = allowed_registration_years(config, today)
    if not raw.strip():
        if not allowed:
            raise _BodyError({"registration_years": [YEARS_INVALID]})
        return allowed[:1]
    try:
        years = sorted({int(part) for part in raw.split(",") if part.strip()})
    except ValueError:
        years = []
    if not years:
        raise _BodyError({"registration_years": [YEARS_INVALID]})
    closed = [year for year in years if year not in allowed]
    if closed:
        # Closed on the quota-year calendar (or not offered): the message names the next open year.
        raise _BodyError({"registration_years": [year_closed_message(closed[0], today, config)]})
    return years


class _BodyError(Exception):
    def __init__(self, body: dict[str, Any]):
        self.body = body


def _enqueue(schema_name: str, item_id: int) -> None:
    bulk_item_run(schema_name, item_id)


@router.post(
    "/bulk_uploads/",
    auth=WRITE,
    response={201: BulkSummaryOut, 400: dict, 413: dict, 429: dict},
    openapi_extra=BULK_BODY,
)
def bulk_upload_create(request: HttpRequest) -> Any:
    partner = _partner(request)
    try:
        bulk.bulk_upload_budget_take(partner=partner)  # before the body is parsed
    except bulk.BulkThrottled as throttled:
        response = JsonResponse({"detail": throttled.message, "error_code": throttled.code}, status=429)
        response["Retry-After"] = str(throttled.retry_after)
        return response
    archive = request.FILES.get("archive")
    if archive is None:
        return Status(400, {"archive": {"error_code": "BULK000", "message": ARCHIVE_MISSING}})
    csv_file = request.FILES.get("owners_csv")
    try:
        years = _years(
            request.POST.get("registration_years", ""), PartnerConfig.model_validate(partner.config)
        )
        with transaction.atomic():
            upload = bulk.bulk_upload_create(
                partner=partner,
                actor=_user(request),
                upload=archive,
                file_name=archive.name or "upload.zip",
                size=archive.size or 0,
                owner_csv=csv_file.read() if csv_file is not None else None,
                registration_years=years,
                enqueue=_enqueue,
            )
            audit_record(
                actor=request.auth,  # type: ignore[attr-defined]
                action="bulk_upload.create",
                obj=upload,
                after={
                    "file_name": upload.file_name,
                    "file_count": upload.file_count,
                    "has_csv": upload.has_csv,
                },
            )
    except _BodyError as error:
        return Status(400, error.body)
    except ArchiveRefused as refused:
        return Status(400, {"archive": refused.as_error()})
    except CsvRefused as refused:
        return Status(
            400,
            {"status": BulkUpload.Status.CSV_FAILED.value, "owners_csv": refused.as_error()},
        )
    upload.refresh_from_db()
    return Status(201, _bulk_summary(upload))


@router.get("/bulk_uploads/", auth=READ, response=BulkPageOut)
def bulk_upload_list(
    request: HttpRequest, page: int = Query(1, ge=1), page_size: int = Query(25, ge=1, le=100)
) -> dict[str, Any]:
    counted = BulkUpload.objects.annotate(
        **{
            f"n_{status}": Count("items", filter=Q(items__status=status))
            for status in BulkUploadItem.Status.values
        }
    ).order_by("-created_at", "-pk")  # Meta.ordering does not apply to a GROUP BY query
    count, rows = _page(counted, page, page_size)
    results = [
        _bulk_summary(u, {status: getattr(u, f"n_{status}") for status in BulkUploadItem.Status.values})
        for u in rows
    ]
    return {"count": count, "page": page, "page_size": page_size, "results": results}


@router.get("/bulk_uploads/{upload_id}/", auth=READ, response={200: BulkDetailOut, 404: dict})
def bulk_upload_progress(request: HttpRequest, upload_id: int) -> Any:
    return _bulk_detail(get_object_or_404(BulkUpload, pk=upload_id))


@router.post(
    "/bulk_uploads/{upload_id}/rollback/", auth=WRITE, response={200: BulkRollbackOut, 404: dict, 409: dict}
)
def bulk_upload_rollback(request: HttpRequest, upload_id: int) -> Any:
    upload = get_object_or_404(BulkUpload, pk=upload_id)
    try:
        with transaction.atomic():
            upload, removed = bulk.bulk_upload_rollback(upload=upload)
            audit_record(
                actor=request.auth,  # type: ignore[attr-defined]
                action="bulk_upload.rollback",
                obj=upload,
                after={"status": upload.status, "removed": removed},
            )
    except bulk.BulkError as error:
        return Status(409, {"detail": error.message, "error_code": error.code, **error.details})
    return {**_bulk_summary(upload), "removed": removed}


class OwnerIn(Schema):
    """One owner's data, as a row of the owner CSV (operations/owner_csv.py) in the flow's values."""

    email: str
    gender: str = ""
    first_name: str = ""
    last_name: str = ""
    street_name: str = ""
    street_number: str = ""
    postal_code: str = ""
    city: str = ""
    account_name: str = ""
    account_iban: str = ""
    charge_card: str = ""
    vehicle_owner_type: str = "private"
    name_of_business: str = ""
    is_vat_mandatory: bool | None = None
    vat_number: str = ""


@router.post(
    "/bulk_uploads/{upload_id}/items/{item_id}/owner/",
    auth=WRITE,
    response={200: BulkItemOut, 400: dict, 404: dict, 409: dict},
)
def bulk_upload_owner(request: HttpRequest, upload_id: int, item_id: int, payload: OwnerIn) -> Any:
    item = get_object_or_404(BulkUploadItem, pk=item_id, upload_id=upload_id)
    data = payload.dict()
    if data["vehicle_owner_type"] != "business":
        data.pop("is_vat_mandatory")
    if not data["account_name"] and data["account_iban"]:
        # As in the CSV: the holder defaults to the owner, transliterated (SEPA has no umlauts).
        data["account_name"] = unidecode(f"{data['first_name']} {data['last_name']}").strip()
    try:
        with transaction.atomic():
            applications = bulk.bulk_item_owner_set(
                partner=_partner(request), item=item, data=data, actor=_user(request)
            )
            audit_record(
                actor=request.auth,  # type: ignore[attr-defined]
                action="bulk_upload.owner",
                obj=item.upload,
                # Which file got an owner and what it created; never the personal data itself.
                after={"item": item.pk, "applications": [a.pk for a in applications]},
            )
    except bulk.BulkError as error:
        if error.code == bulk.OWNER_INVALID:
            return Status(400, error.details["errors"])
        if error.code == bulk.STAFF_EMAIL:
            return Status(400, {"email": [error.message], "error_code": error.code})
        return Status(409, {"detail": error.message, "error_code": error.code})
    item = BulkUploadItem.objects.select_related("registration").get(pk=item.pk)
    rows = QuotaApplication.objects.filter(registration_id=item.registration_id).order_by("pk")
    return _bulk_item(
        item, [{"id": a.pk, "legislation_year": a.legislation_year, "status": a.status} for a in rows]
    )


# ---------------------------------------------------------------- settlement batches


def _money(value: Any) -> str:
    return str(value.quantize(settlement.CENT))


def _batch_summary(batch: SettlementBatch) -> dict[str, Any]:
    return {
        "id": batch.pk,
        "reference": batch.reference,
        "status": batch.status,
        "status_label": SettlementBatch.Status(batch.status).label,
        "execution_date": batch.execution_date.isoformat(),
        "created_at": batch.created_at.isoformat(),
        "paid_at": batch.paid_at.isoformat() if batch.paid_at else None,
        "totals": settlement.settlement_totals(batch),
        "sepa_file": _sepa_file(batch),
        # Four eyes: whether the batch needs a second admin's approval, and whose it has.
        "approval": {
            "required": batch.approval_required,
            "approved": batch.approved_at is not None,
            "approved_at": batch.approved_at.isoformat() if batch.approved_at else None,
            "approved_by": batch.approved_by.email if batch.approved_by else None,
            "created_by": batch.created_by.email if batch.created_by else None,
        },
    }


def _sepa_file(batch: SettlementBatch) -> dict[str, Any] | None:
    """The kept SEPA file's facts (never its bytes), and the warning a paid batch's file gets."""
    if not batch.sepa_built_at:
        return None
    paid = batch.status == SettlementBatch.Status.SETTLED
    return {
        "version": batch.sepa_version,
        "msg_id": batch.sepa_msg_id,
        "built_at": batch.sepa_built_at.isoformat(),
        "downloads": batch.sepa_downloads,
        "warning": settlement.MESSAGES[settlement.PAID_AGAIN] if paid else None,
    }


# The screen shows the stored masked IBAN and the owner type: neither the item's IBAN nor the
# owner's encrypted billing data is loaded, so listing a batch decrypts nothing (issue 19). The
# charge card number is loaded: it is what the partner credits (empty on SEPA items, and an
# empty value is never decrypted).
_ITEM_DEFERRED = ("iban", *(f"application__client__{name}" for name in encrypted_fields(Client)))


def _items(items: QuerySet[SettlementItem]) -> QuerySet[SettlementItem]:
    return items.select_related("application__registration", "application__client").defer(*_ITEM_DEFERRED)


def _card_masked(number: str) -> str:
    return f"**** {number[-4:]}" if number else ""


def _item(item: SettlementItem) -> dict[str, Any]:
    """One item; an erased owner's item has no application any more (`application.id` and
    status null, `erased` true) and only what it kept itself: number, year, amounts, the
    masked IBAN, no name."""
    application = item.application
    return {
        "id": item.pk,
        "application": {
            "id": application.pk if application else None,
            "sequence": item.sequence,
            "legislation_year": item.legislation_year,
            "status": application.status if application else None,
            "status_label": catalogue.CATALOGUE[application.status].title_de if application else "Gelöscht",
        },
        "erased": application is None or item.owner_id is None,
        "payee_name": item.payee_name,
        "owner_type": application.client.vehicle_owner_type if application else None,
        "method": item.method,
        "status": item.status,
        "net": _money(item.net),
        "vat_percent": _money(item.vat_percent),
        "vat": _money(item.vat),
        "gross": _money(item.gross),
        "iban_masked": item.iban_masked,
        # An erased owner's card number only as its last four (kept encrypted as paid).
        "charge_card": item.charge_card if application else _card_masked(item.charge_card),
        "end_to_end_id": item.end_to_end_id if item.method == SettlementItem.Method.SEPA else "",
        "failure_reason": item.failure_reason,
        "failed_at": item.failed_at.isoformat() if item.failed_at else None,
    }


def _batch_detail(batch: SettlementBatch) -> dict[str, Any]:
    items = list(_items(batch.items.all()).order_by("sequence", "legislation_year", "pk"))
    return {
        **_batch_summary(batch),
        "items": [_item(i) for i in items if i.method == SettlementItem.Method.SEPA],
        "charge_card_items": [_item(i) for i in items if i.method == SettlementItem.Method.CHARGE_CARD],
    }


def _refusal(error: settlement.SettlementError) -> Status:
    # A conflict with another batch (the one-payout constraint) is a 409; other refusals 400.
    code = 409 if error.code == settlement.ALREADY_IN_BATCH else 400
    return Status(code, {"detail": error.message, "error_code": error.code, **error.details})


ISO_DATE = r"^\d{4}-\d{2}-\d{2}$"


def _date(value: str | None, field: str) -> datetime.date | None:
    if value is None:
        return None
    try:
        return datetime.date.fromisoformat(value)
    except ValueError:
        raise _BodyError({field: ["Bitte geben Sie ein Datum (JJJJ-MM-TT) ein."]}) from None


class BatchFilters(Schema):
    legislation_year: int | None = Field(default=None, ge=2020, le=2100)
    vehicle_class: str | None = Field(default=None, pattern=r"^[A-Z][0-9A-Za-z]{0,3}$")
    sub_partner: int | None = None
    single_deal: int | None = None
    # Dates as ISO text: a pydantic date type built while a test freezes time breaks.
    created_from: str | None = Field(default=None, pattern=ISO_DATE)
    created_to: str | None = Field(default=None, pattern=ISO_DATE)


class BatchIn(Schema):
    ids: list[int] | None = Field(default=None, min_length=1, max_length=settlement.MAX_APPLICATIONS)
    filters: BatchFilters | None = None
    execution_date: str | None = Field(default=None, pattern=ISO_DATE)


class FailIn(Schema):
    reason: CleanText = Field(min_length=1, max_length=500)


class IbanIn(Schema):
    account_iban: CleanText = Field(min_length=1, max_length=42)
    account_name: CleanText = Field(default="", max_length=100)


@router.get("/settlement_batches/", auth=ADMIN, response=BatchPageOut)
def settlement_batch_list(
    request: HttpRequest,
    page: int = Query(1, ge=1),
    page_size: int = Query(25, ge=1, le=100),
    status: str | None = Query(None, pattern="^(new|settled)$"),
) -> dict[str, Any]:
    # Meta.ordering does not apply to a GROUP BY query: the order is given here.
    batches = (
        SettlementBatch.objects.defer("sepa_file")
        .select_related("approved_by", "created_by")
        .annotate(**settlement.totals_annotations("items__"))
        .order_by("-created_at", "-pk")
    )
    if status:
        batches = batches.filter(status=status)
    count, rows = _page(batches, page, page_size)
    return {
        "count": count,
        "page": page,
        "page_size": page_size,
        "results": [_batch_summary(b) for b in rows],
    }


@router.post("/settlement_batches/", auth=ADMIN, response={201: BatchCreatedOut, 400: dict, 409: dict})
def settlement_batch_create(request: HttpRequest, payload: BatchIn) -> Any:
    try:
        execution_date = _date(payload.execution_date, "execution_date")
        filters: dict[str, Any] = payload.filters.dict() if payload.filters else {}
        for key in ("created_from", "created_to"):
            filters[key] = _date(filters.get(key), key)
    except _BodyError as error:
        return Status(400, error.body)
    if execution_date is not None and execution_date < timezone.localdate():
        return Status(
            400, {"execution_date": ["Das Ausführungsdatum darf nicht in der Vergangenheit liegen."]}
        )
    if payload.ids:
        filters["ids"] = payload.ids
    try:
        with transaction.atomic():
            batch, skipped = settlement.settlement_batch_create(
                config=_config(request),
                actor=_user(request),
                filters=filters,
                execution_date=execution_date,
            )
            audit_record(
                actor=request.auth,  # type: ignore[attr-defined]
                action="settlement_batch.create",
                obj=batch,
                after={"reference": batch.reference, "items": batch.items.count(), "skipped": len(skipped)},
            )
    except settlement.SettlementError as error:
        return _refusal(error)
    return Status(201, {**_batch_detail(batch), "skipped": skipped})


@router.get("/settlement_batches/{batch_id}/", auth=ADMIN, response={200: BatchDetailOut, 404: dict})
def settlement_batch_detail(request: HttpRequest, batch_id: int) -> Any:
    return _batch_detail(get_object_or_404(SettlementBatch, pk=batch_id))


@router.get(
    "/settlement_batches/{batch_id}/sepa.xml",
    auth=ADMIN,
    response={200: None, 400: dict, 404: dict},
    openapi_extra=download_answer(
        "The SEPA credit transfer file (pain.001, version 09 or 03)", "application/xml"
    ),
)
def settlement_batch_sepa(request: HttpRequest, batch_id: int, version: str | None = None) -> Any:
    """The batch's SEPA file, built once and kept (settlement.settlement_sepa_file): the same
    bytes, MsgId and PmtInfId on every download; a paid batch's with a warning
    (X-Sepa-Warning: SETTLE018 and the batch detail's `sepa_file.warning`)."""
    batch = get_object_or_404(SettlementBatch, pk=batch_id)
    if version not in (None, "09", "03"):
        return Status(400, {"version": [VERSION_INVALID]})
    try:
        built = settlement.settlement_sepa_file(batch=batch, config=_config(request), version=version)  # type: ignore[arg-type]
    except settlement.SettlementError as error:
        return _refusal(error)
    except SepaInvalid as error:
        return Status(
            400, {"detail": "Die SEPA-Datei ist ungültig.", "error_code": "SETTLE011", "reason": str(error)}
        )
    audit_record(
        actor=request.auth,  # type: ignore[attr-defined]
        action="settlement_batch.sepa_download",
        obj=batch,
        after={
            "version": built.version,
            "bytes": len(built.xml),
            "msg_id": built.msg_id,
            "built": built.built_now,
            "paid_again": built.warning is not None,
        },
    )
    response = HttpResponse(built.xml, content_type="application/xml; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="{batch.reference}-pain.001.001.{built.version}.xml"'
    )
    response["X-Sepa-Msg-Id"] = built.msg_id
    response["X-Sepa-Version"] = built.version
    if built.warning is not None:
        response["X-Sepa-Warning"] = settlement.PAID_AGAIN
    # Items of erased owners are not paid and not in the file; the screen lists them as failed.
    response["X-Erased-Items"] = str(settlement.settlement_erased_count(batch))
    return response


@router.post(
    "/settlement_batches/{batch_id}/approve/",
    auth=ADMIN,
    response={200: BatchDetailOut, 400: dict, 404: dict},
)
def settlement_batch_approve(request: HttpRequest, batch_id: int) -> Any:
    """Four eyes: a second partner admin (not the batch's creator) approves a batch above the
    partner's threshold; its SEPA file and its payment wait for it. Recorded in the audit log."""
    batch = get_object_or_404(SettlementBatch, pk=batch_id)
    try:
        with transaction.atomic():
            batch, approved_now = settlement.settlement_batch_approve(batch=batch, actor=_user(request))
            if approved_now:
                audit_record(
                    actor=request.auth,  # type: ignore[attr-defined]
                    action="settlement_batch.approve",
                    obj=batch,
                    before={"approved": False},
                    after={
                        "approved": True,
                        "total_gross": settlement.settlement_totals(batch)["all"]["gross"],
                        "created_by": batch.created_by_id,
                    },
                )
    except settlement.SettlementError as error:
        return _refusal(error)
    return _batch_detail(batch)


class SettlementSettingsIn(Schema):
    approval_threshold: str | int | float = Field(description='Euros, e.g. "10000.00"')


def _settings_out(found: Any) -> dict[str, Any]:
    return {"approval_threshold": _money(found.approval_threshold)}


@router.get("/settlement_settings/", auth=ADMIN, response=SettlementSettingsOut)
def settlement_settings_get(request: HttpRequest) -> Any:
    return _settings_out(SettlementSettings.current())


@router.put("/settlement_settings/", auth=ADMIN, response={200: SettlementSettingsOut, 400: dict})
def settlement_settings_put(request: HttpRequest, payload: SettlementSettingsIn) -> Any:
    try:
        with transaction.atomic():
            found, before = settlement.settlement_settings_update(
                approval_threshold=payload.approval_threshold
            )
            audit_record(
                actor=request.auth,  # type: ignore[attr-defined]
                action="settlement_settings.update",
                obj=found,
                before={"approval_threshold": str(before)},
                after={"approval_threshold": str(found.approval_threshold)},
            )
    except settlement.SettlementError as error:
        return Status(400, {"approval_threshold": {"error_code": error.code, "message": error.message}})
    return _settings_out(found)


@router.post(
    "/settlement_batches/{batch_id}/mark_paid/",
    auth=ADMIN,
    response={200: BatchPaidOut, 400: dict, 404: dict},
)
def settlement_batch_mark_paid(request: HttpRequest, batch_id: int) -> Any:
    batch = get_object_or_404(SettlementBatch, pk=batch_id)
    try:
        with transaction.atomic():
            # Idempotent: a paid batch is answered as it is, and nothing is recorded again.
            batch, paid_now = settlement.settlement_batch_pay(batch=batch, actor=_user(request))
            if paid_now:
                audit_record(
                    actor=request.auth,  # type: ignore[attr-defined]
                    action="settlement_batch.mark_paid",
                    obj=batch,
                    before={"status": SettlementBatch.Status.NEW.value},
                    after={"status": batch.status},
                )
    except settlement.SettlementError as error:
        return _refusal(error)
    return {"detail": settlement.PAID_MESSAGE, "batch": _batch_detail(batch)}


def _batch_item(batch_id: int, item_id: int) -> SettlementItem:
    return get_object_or_404(
        _items(SettlementItem.objects.all()),
        pk=item_id,
        batch_id=batch_id,
    )


def _item_action(
    request: HttpRequest,
    batch_id: int,
    item_id: int,
    action: str,
    run: Callable[[SettlementItem], dict[str, Any] | None],
) -> Any:
    """One settlement service on one item of the batch, with its audit entry in the same
    transaction (`run` returns the entry's `after`, or None when nothing changed and nothing is
    recorded); the item as it is now, or the service's refusal."""
    item = _batch_item(batch_id, item_id)
    try:
        with transaction.atomic():
            after = run(item)
            if after is not None:
                audit_record(
                    actor=request.auth,  # type: ignore[attr-defined]
                    action=action,
                    obj=item,
                    after={**after, "application": item.application_id},
                )
    except settlement.SettlementError as error:
        return _refusal(error)
    return _item(_batch_item(batch_id, item_id))


@router.post(
    "/settlement_batches/{batch_id}/items/{item_id}/fail/",
    auth=ADMIN,
    response={200: SettlementItemOut, 400: dict, 404: dict},
)
def settlement_item_fail(request: HttpRequest, batch_id: int, item_id: int, payload: FailIn) -> Any:
    def run(item: SettlementItem) -> dict[str, Any]:
        settlement.settlement_item_fail(item=item, reason=payload.reason, actor=_user(request))
        return {"reason": payload.reason}

    return _item_action(request, batch_id, item_id, "settlement_item.fail", run)


@router.post(
    "/settlement_batches/{batch_id}/items/{item_id}/remove/",
    auth=ADMIN,
    response={200: BatchDetailOut, 400: dict, 404: dict},
)
def settlement_item_remove(request: HttpRequest, batch_id: int, item_id: int) -> Any:
    item = _batch_item(batch_id, item_id)
    application_id = item.application_id
    try:
        with transaction.atomic():
            settlement.settlement_item_remove(item=item, actor=_user(request))
            audit_record(
                actor=request.auth,  # type: ignore[attr-defined]
                action="settlement_item.remove",
                obj=item.batch,
                after={"item": item_id, "application": application_id},
            )
    except settlement.SettlementError as error:
        return _refusal(error)
    return _batch_detail(SettlementBatch.objects.get(pk=batch_id))


@router.post(
    "/settlement_batches/{batch_id}/items/{item_id}/requeue/",
    auth=ADMIN,
    response={200: SettlementItemOut, 400: dict, 404: dict},
)
def settlement_item_requeue(request: HttpRequest, batch_id: int, item_id: int) -> Any:
    def run(item: SettlementItem) -> dict[str, Any]:
        settlement.settlement_item_requeue(item=item, actor=_user(request))
        return {}

    return _item_action(request, batch_id, item_id, "settlement_item.requeue", run)


@router.post(
    "/settlement_batches/{batch_id}/items/{item_id}/iban/",
    auth=ADMIN,
    response={200: SettlementItemOut, 400: dict, 404: dict},
)
def settlement_item_iban(request: HttpRequest, batch_id: int, item_id: int, payload: IbanIn) -> Any:
    def run(item: SettlementItem) -> dict[str, Any]:
        settlement.settlement_item_iban_correct(
            item=item, iban=payload.account_iban, account_name=payload.account_name, actor=_user(request)
        )
        # Never the IBAN itself in the audit log: its masked form.
        return {"iban": iban_masked(payload.account_iban.replace(" ", "").upper())}

    return _item_action(request, batch_id, item_id, "settlement_item.iban_correct", run)


class PaidIn(Schema):
    note: CleanText = Field(default="", max_length=300)


@router.post(
    "/settlement_batches/{batch_id}/items/{item_id}/paid/",
    auth=ADMIN,
    response={200: SettlementItemOut, 400: dict, 404: dict, 409: dict},
)
def settlement_item_paid(request: HttpRequest, batch_id: int, item_id: int, payload: PaidIn) -> Any:
    """A payout recorded as failed that was paid after all (the bank or the admin says so):
    qa_payment_failure to qa_paid through the settlement (the generic move refuses it).
    Idempotent: a second call answers the item as it is and records nothing."""

    def run(item: SettlementItem) -> dict[str, Any] | None:
        done = settlement.settlement_item_paid_confirm(item=item, actor=_user(request), note=payload.note)
        if not done.confirmed_now:
            return None
        return {
            "status": SettlementItem.Status.PAID.value,
            "was": {"status": SettlementItem.Status.FAILED.value, "reason": done.failure_reason},
            "note": payload.note,
        }

    return _item_action(request, batch_id, item_id, "settlement_item.paid_confirm", run)
