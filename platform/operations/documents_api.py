"""Issue 46's calls: the payout documents (credit notes, payout statements, their e-invoices), the
accountant's reports, and the bank's return files, under /api/partner/; the owner's document
download, objection to the self-billing procedure and IBAN correction under /api/end_user_portal/.

Batches, money reports and return files: partner admins (as the settlement screens). An
application's documents: back office and partner admins."""

from __future__ import annotations

import tempfile
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.http import FileResponse, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.utils import timezone
from ninja import Query, Router, Schema, Status
from pydantic import Field, StrictBool

from accounts.tokens import partner_auth
from billing.masking import iban_masked
from common.downloads import download_answer
from common.text import CleanText
from operations import camt, credit_notes, einvoice, reports, settlement
from operations.document_models import DocumentKind, PayoutDocument
from operations.formats import de_money, de_percent
from operations.models import SettlementBatch, SettlementItem
from operations.schemas import (
    ApplicationDocumentsOut,
    ApplicationSelfBillingOut,
    BatchDocumentsOut,
    OwnerSelfBillingOut,
    PayoutAccountOut,
    ReturnFileOut,
)
from quota.models import QuotaApplication, QuotaStatus
from staff.audit import audit_record
from staff.auth import staff_role
from tenants.middleware import request_partner
from tenants.models import Partner

router = Router(tags=["partner: payout documents and reports"])
portal_router = Router(tags=["portal: payout documents"])

ADMIN = staff_role("partner_admin")
WRITE = staff_role("back_office", "partner_admin")
NOT_FOUND = {"detail": "Not found."}
MONTH_INVALID = "Bitte geben Sie einen Monat als JJJJ-MM an."
FILE_MISSING = "Bitte wählen Sie die Rückmeldung der Bank (camt.054 oder pain.002) aus."
NO_RETURNED_PAYOUT = "Es gibt keine zurückgekommene Auszahlung, deren Bankverbindung zu korrigieren ist."


def _partner(request: HttpRequest) -> Partner:
    partner = request_partner(request)
    assert partner is not None
    return partner


def _download(data: bytes, content_type: str, name: str) -> HttpResponse:
    response = HttpResponse(data, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["Cache-Control"] = "private, no-store"
    response["X-Content-Type-Options"] = "nosniff"
    return response


# ---------------------------------------------------------------- documents (partner)


@router.get(
    "/settlement_batches/{batch_id}/documents/", auth=ADMIN, response={200: BatchDocumentsOut, 404: dict}
)
def batch_documents(request: HttpRequest, batch_id: int) -> Any:
    batch = get_object_or_404(SettlementBatch, pk=batch_id)
    documents = PayoutDocument.objects.filter(item__batch=batch).order_by("kind", "sequence")
    return {"batch": batch.pk, "results": [credit_notes.document_summary(d) for d in documents]}


@router.get(
    "/settlement_batches/{batch_id}/documents.zip",
    auth=ADMIN,
    response={200: None, 404: dict},
    openapi_extra=download_answer("The batch's documents (PDF, e-invoices) as a ZIP", "application/zip"),
)
def batch_documents_zip(request: HttpRequest, batch_id: int) -> Any:
    batch = get_object_or_404(SettlementBatch, pk=batch_id)
    documents = list(PayoutDocument.objects.filter(item__batch=batch).order_by("kind", "sequence"))
    if not documents:
        return Status(404, {"detail": "Für diesen Lauf gibt es keine Belege."})
    # Up to 10,000 PDFs: spooled to disk past 32 MB, streamed from there.
    target = tempfile.SpooledTemporaryFile(max_size=32 * 1024 * 1024)  # noqa: SIM115 (FileResponse closes it)
    count = einvoice.documents_zip(documents, target)
    audit_record(
        actor=request.auth,  # type: ignore[attr-defined]
        action="settlement_batch.documents_download",
        obj=batch,
        after={"documents": count},
    )
    target.seek(0)
    response = FileResponse(target, content_type="application/zip", as_attachment=True)
    response["Content-Disposition"] = f'attachment; filename="{batch.reference}-belege.zip"'
    response["Cache-Control"] = "private, no-store"
    return response


@router.get(
    "/quota_applications/{application_id}/payout_documents/",
    auth=WRITE,
    response={200: ApplicationDocumentsOut, 404: dict},
)
def application_documents(request: HttpRequest, application_id: int) -> Any:
    application = get_object_or_404(QuotaApplication, pk=application_id)
    documents = application.payout_documents.order_by("sequence")  # type: ignore[attr-defined]
    return {"application": application.pk, "results": [credit_notes.document_summary(d) for d in documents]}


class ObjectionIn(Schema):
    objected: StrictBool  # true or false as the schema says, never 0, 1 or "yes"


@router.post(
    "/quota_applications/{application_id}/self_billing/",
    auth=WRITE,
    response={200: ApplicationSelfBillingOut, 404: dict},
)
def application_self_billing(request: HttpRequest, application_id: int, payload: ObjectionIn) -> Any:
    """Staff record an owner's objection to the self-billing procedure that came by letter or
    mail (or its withdrawal): for every billing data of the application's owner; audited."""
    application = get_object_or_404(QuotaApplication.objects.select_related("client"), pk=application_id)
    with transaction.atomic():
        changed = credit_notes.client_self_billing_object(
            owner_id=application.client.owner_id, objected=payload.objected
        )
        audit_record(
            actor=request.auth,  # type: ignore[attr-defined]
            action="client.self_billing_objection",
            obj=application,
            after={"objected": payload.objected, "billing_data": changed},
        )
    return {"application": application.pk, "self_billing_objected": payload.objected}


@router.get(
    "/payout_documents/{document_id}/document.pdf",
    auth=WRITE,
    response={200: None, 404: dict},
    openapi_extra=download_answer("The document as PDF", "application/pdf"),
)
def document_pdf(request: HttpRequest, document_id: int) -> Any:
    document = get_object_or_404(PayoutDocument, pk=document_id)
    return _download(einvoice.document_stored(document), "application/pdf", einvoice.file_name(document))


@router.get(
    "/payout_documents/{document_id}/einvoice.xml",
    auth=WRITE,
    response={200: None, 404: dict},
    openapi_extra=download_answer("The credit note's e-invoice (XML)", "application/xml"),
)
def document_xml(request: HttpRequest, document_id: int) -> Any:
    document = get_object_or_404(PayoutDocument, pk=document_id, kind=DocumentKind.CREDIT_NOTE)
    return _download(
        einvoice.document_xml(document), "application/xml; charset=utf-8", einvoice.file_name(document, "xml")
    )


# ---------------------------------------------------------------- reports


@router.get(
    "/settlement_batches/{batch_id}/statement.csv",
    auth=ADMIN,
    response={200: None, 404: dict},
    openapi_extra=download_answer("The batch statement as CSV", "text/csv"),
)
def batch_statement_csv(request: HttpRequest, batch_id: int) -> Any:
    batch = get_object_or_404(SettlementBatch, pk=batch_id)
    return _download(
        reports.batch_statement_csv(batch), "text/csv; charset=utf-8", f"{batch.reference}-abrechnung.csv"
    )


@router.get(
    "/settlement_batches/{batch_id}/statement.pdf",
    auth=ADMIN,
    response={200: None, 404: dict},
    openapi_extra=download_answer("The batch statement as PDF", "application/pdf"),
)
def batch_statement_pdf(request: HttpRequest, batch_id: int) -> Any:
    batch = get_object_or_404(SettlementBatch, pk=batch_id)
    rows, totals = reports.batch_statement_rows(batch)
    header = [h for h in reports.BATCH_HEADER if h not in ("Lauf", "Quotenjahr", "Fehler am")]
    keep = [i for i, h in enumerate(reports.BATCH_HEADER) if h in header]
    data = einvoice.statement_pdf(
        f"Abrechnungslauf {batch.reference}",
        reports.batch_statement_lines(batch, totals),
        header,
        [[row[i] for i in keep] for row in rows],
    )
    return _download(data, "application/pdf", f"{batch.reference}-abrechnung.pdf")


class MonthQuery(Schema):
    month: str = Field(pattern=r"^\d{4}-\d{2}$", description="YYYY-MM")


def _month(query: MonthQuery) -> str | None:
    return query.month if reports.month_range(query.month) else None


@router.get(
    "/reports/sub_partner_commissions.csv",
    auth=ADMIN,
    response={200: None, 400: dict},
    openapi_extra=download_answer("The month's sub-partner commissions as CSV", "text/csv"),
)
def commission_csv(request: HttpRequest, query: Query[MonthQuery]) -> Any:
    month = _month(query)
    if month is None:
        return Status(400, {"month": [MONTH_INVALID]})
    return _download(reports.commission_csv(month), "text/csv; charset=utf-8", f"provisionen-{month}.csv")


@router.get(
    "/reports/sub_partner_commissions.pdf",
    auth=ADMIN,
    response={200: None, 400: dict},
    openapi_extra=download_answer("The month's sub-partner commissions as PDF", "application/pdf"),
)
def commission_pdf(request: HttpRequest, query: Query[MonthQuery]) -> Any:
    month = _month(query)
    if month is None:
        return Status(400, {"month": [MONTH_INVALID]})
    rows, sums = reports.commission_rows(month)
    label = f"{month[5:7]}.{month[:4]}"
    data = einvoice.statement_pdf(
        f"Provisionsabrechnung Untervermittler {label}",
        [
            f"{sum(s['count'] for s in sums)} bezahlte Anträge, Provision gesamt "
            f"{de_money(sum((s['commission'] for s in sums), start=Decimal(0)))} €"
        ]
        + [
            f"{s['name']} ({s['referral_key']}): {s['count']} Anträge, Netto {de_money(s['net'])} €, "
            f"Anteil {de_percent(s['share'])}, Provision {de_money(s['commission'])} €"
            for s in sums
        ],
        [h for h in reports.COMMISSION_HEADER if h != "Monat"],
        [row[1:] for row in rows],
    )
    return _download(data, "application/pdf", f"provisionen-{month}.pdf")


# ---------------------------------------------------------------- the bank's return files


RETURN_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["file"],
                    "properties": {
                        "file": {"type": "string", "format": "binary", "description": "camt.054 or pain.002"}
                    },
                }
            }
        },
    }
}


@router.post(
    "/settlement_returns/", auth=ADMIN, response={200: ReturnFileOut, 400: dict}, openapi_extra=RETURN_BODY
)
def settlement_returns(request: HttpRequest) -> Any:
    upload = request.FILES.get("file")
    if upload is None:
        return Status(400, {"file": {"error_code": "RETURN000", "message": FILE_MISSING}})
    if (upload.size or 0) > camt.MAX_BYTES:
        return Status(400, {"file": {"error_code": camt.TOO_LARGE, "message": camt.MESSAGES[camt.TOO_LARGE]}})
    try:
        with transaction.atomic():
            result = camt.return_file_apply(data=upload.read(), actor=request.auth.user)  # type: ignore[attr-defined]
            audit_record(
                actor=request.auth,  # type: ignore[attr-defined]
                action="settlement.return_file",
                object_type="operations.settlementitem",
                after={
                    "kind": result["kind"],
                    "failed": [entry["item"] for entry in result["failed"]],
                    "paid": [entry["item"] for entry in result["paid"]],
                    "unknown": len(result["unknown"]),
                },
            )
    except camt.ReturnFileRefused as refused:
        return Status(400, {"file": {"error_code": refused.code, "message": refused.message}})
    except settlement.SettlementError as error:
        return Status(400, {"detail": error.message, "error_code": error.code, **error.details})
    return result


# ---------------------------------------------------------------- the owner (portal)


@portal_router.get(
    "/end_user_portal/payout_documents/{token}/",
    auth=None,
    response={200: None, 404: dict},
    openapi_extra=download_answer("The owner's document as PDF", "application/pdf"),
)
def owner_document(request: HttpRequest, token: str) -> Any:
    """The owner's credit note or payout statement, for the link the portal card handed out."""
    partner = request_partner(request)
    found = credit_notes.document_token_read(partner=partner, token=token) if partner else None
    if found is None:
        return Status(404, NOT_FOUND)
    document = PayoutDocument.objects.filter(pk=found[0], owner_id=found[1]).first()
    if document is None:
        return Status(404, NOT_FOUND)
    return _download(einvoice.document_stored(document), "application/pdf", einvoice.file_name(document))


@portal_router.post(
    "/end_user_portal/self_billing/", auth=partner_auth, response={200: OwnerSelfBillingOut, 401: dict}
)
def owner_self_billing(request: HttpRequest, payload: ObjectionIn) -> Any:
    """The owner objects to the self-billing procedure (then no credit note: the owner invoices
    the partner), or withdraws the objection."""
    owner = request.auth  # type: ignore[attr-defined]
    credit_notes.client_self_billing_object(owner_id=owner.pk, objected=payload.objected)
    return {"self_billing_objected": payload.objected, "changed_at": timezone.now().isoformat()}


class PayoutAccountIn(Schema):
    account_iban: CleanText = Field(min_length=1, max_length=42)
    account_name: CleanText = Field(default="", max_length=100)


@portal_router.put(
    "/end_user_portal/payout_account/",
    auth=partner_auth,
    response={200: PayoutAccountOut, 400: dict, 401: dict},
)
def owner_payout_account(request: HttpRequest, payload: PayoutAccountIn) -> Any:
    """The owner corrects the IBAN of payouts the bank returned: the billing data gets it and each
    such application goes back to qa_to_pay, for the next batch (settlement's service)."""
    owner = request.auth  # type: ignore[attr-defined]
    items = list(
        SettlementItem.objects.filter(
            owner=owner,
            status=SettlementItem.Status.FAILED,
            application__status=QuotaStatus.PAYMENT_FAILURE,
        ).order_by("pk")
    )
    # One item per application: the newest failed one.
    latest: dict[int, SettlementItem] = {}
    for item in items:
        assert item.application_id is not None
        latest[item.application_id] = item
    if not latest:
        return Status(400, {"account_iban": {"error_code": "SETTLE006", "message": NO_RETURNED_PAYOUT}})
    try:
        with transaction.atomic():
            for item in latest.values():
                settlement.settlement_item_iban_correct(
                    item=item, iban=payload.account_iban, account_name=payload.account_name, actor=owner
                )
    except settlement.SettlementError as error:
        field = "account_name" if error.code == settlement.HOLDER_INVALID else "account_iban"
        return Status(400, {field: {"error_code": error.code, "message": error.message}})
    return {
        "account_iban": iban_masked(payload.account_iban.replace(" ", "").upper()),
        "applications": sorted(latest),
        "status": QuotaStatus.TO_PAY.value,
    }
