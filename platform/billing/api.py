"""Billing calls of the registration flow: submit, lock, VAT check."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from ninja import Body, Form, Router, Status

from accounts.tokens import partner_auth
from billing import errors, selectors, services
from billing.models import Client
from billing.schemas import ClientCreatedOut, ClientLockedOut, ClientPreviousOut, VatValidOut
from common.text import CleanText
from tenants.middleware import request_partner

router = Router(tags=["billing"], auth=partner_auth)


@router.post("/clients/", response={201: ClientCreatedOut, 400: dict})
def client_create(request: HttpRequest, payload: dict[str, Any] = Body(...)) -> Any:  # noqa: B008
    partner = request_partner(request)
    assert partner is not None
    try:
        client = services.client_submit(partner=partner, owner=request.auth, data=payload)  # type: ignore[attr-defined]
    except services.ClientInvalid as invalid:
        return Status(400, invalid.errors)
    return Status(201, {"id": client.pk, "email": client.owner.email})


@router.get("/clients/previous/", response={200: ClientPreviousOut, 404: dict})
def client_previous(request: HttpRequest) -> Any:
    """A returning owner's last billing data for the billing screen, the IBAN masked."""
    previous = selectors.client_previous(owner=request.auth)  # type: ignore[attr-defined]
    if previous is None:
        return Status(404, {"detail": "Not found."})
    return selectors.client_prefill(previous)


@router.post("/clients/{client_id}/lock/", response={200: ClientLockedOut, 400: dict, 404: dict})
def client_lock(request: HttpRequest, client_id: int) -> Any:
    partner = request_partner(request)
    assert partner is not None
    client = get_object_or_404(Client, pk=client_id, owner=request.auth)  # type: ignore[attr-defined]
    try:
        client = services.client_lock(partner=partner, client=client)
    except services.ClientLockError as refused:
        return Status(400, {"detail": refused.detail, "error_code": refused.code})
    return {"id": client.pk, "locked": True, "quota_applications": client.quota_applications.count()}


@router.post("/clients/validate_vat_number/", response={200: VatValidOut, 400: dict})
def validate_vat_number(request: HttpRequest, vat_number: CleanText = Form("", max_length=40)) -> Any:  # noqa: B008
    if services.vat_number_check(vat_number):
        return {"status": "valid"}
    return Status(400, {"error_code": errors.VAT_INVALID})
