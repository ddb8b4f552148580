"""The partner admin's calls for the partner's interfaces under /api/partner/integrations/
(docs/partner-api.md, "API keys" and "Webhooks"): keys and webhooks are managed by a partner
admin's session only, never with a key."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema, Status

from common.schemas import DetailOut
from common.text import CleanText
from integrations import selectors, services
from integrations.errors import IntegrationError
from integrations.models import WebhookEndpoint
from integrations.schemas import (
    ApiKeyIn,
    ApiKeyMadeOut,
    ApiKeyOut,
    DeliveryOut,
    DeliveryPageOut,
    WebhookIn,
    WebhookMadeOut,
    WebhookOut,
)
from staff.auth import staff_role
from staff.errors import NOT_FOUND, StaffError
from staff.models import StaffMember

router = Router(tags=["partner"])
admin_only = staff_role(StaffMember.Role.PARTNER_ADMIN)
writers = staff_role(StaffMember.Role.BACK_OFFICE, StaffMember.Role.PARTNER_ADMIN)
REFUSALS: dict[int | str, Any] = {401: DetailOut, 403: DetailOut, 404: DetailOut, 429: DetailOut}
WRITE_ANSWERS: dict[int | str, Any] = {400: dict[str, Any], **REFUSALS}


def _admin(request: HttpRequest) -> StaffMember:
    member: StaffMember = request.auth  # type: ignore[attr-defined]
    if getattr(member, "api_key", None) is not None:  # defence in depth: keys are never admins
        raise StaffError("STAFF403", status=403)
    return member


@router.get("/integrations/api_keys/", auth=admin_only, response={200: list[ApiKeyOut], **REFUSALS})
def api_key_list(request: HttpRequest) -> Any:
    _admin(request)
    return [selectors.api_key_out(key) for key in selectors.api_key_list()]


@router.post("/integrations/api_keys/", auth=admin_only, response={201: ApiKeyMadeOut, **WRITE_ANSWERS})
def api_key_create(request: HttpRequest, payload: ApiKeyIn) -> Any:
    try:
        key, secret = services.api_key_create(actor=_admin(request), name=payload.name, scope=payload.scope)
    except IntegrationError as refused:
        raise refused.answer(request) from None
    return Status(201, {**selectors.api_key_out(key), "key": secret})


@router.post(
    "/integrations/api_keys/{int:key_id}/rotate/", auth=admin_only, response={200: ApiKeyMadeOut, **REFUSALS}
)
def api_key_rotate(request: HttpRequest, key_id: int) -> Any:
    made = services.api_key_rotate(actor=_admin(request), key_id=key_id)
    if made is None:
        raise StaffError(NOT_FOUND, status=404)
    key, secret = made
    return {**selectors.api_key_out(key), "key": secret}


@router.post(
    "/integrations/api_keys/{int:key_id}/revoke/", auth=admin_only, response={200: ApiKeyOut, **REFUSALS}
)
def api_key_revoke(request: HttpRequest, key_id: int) -> Any:
    key = services.api_key_revoke(actor=_admin(request), key_id=key_id)
    if key is None:
        raise StaffError(NOT_FOUND, status=404)
    return selectors.api_key_out(key)


# ---- webhooks


class DeliveryQuery(Schema):
    page: int = Field(1, ge=1, le=100_000)
    page_size: int = Field(20, ge=1, le=100)


def _endpoint(endpoint_id: int) -> WebhookEndpoint:
    endpoint = WebhookEndpoint.objects.filter(pk=endpoint_id).first()
    if endpoint is None:
        raise StaffError(NOT_FOUND, status=404)
    return endpoint


@router.get("/integrations/webhooks/", auth=admin_only, response={200: list[WebhookOut], **REFUSALS})
def webhook_list(request: HttpRequest) -> Any:
    _admin(request)
    return [selectors.webhook_out(endpoint) for endpoint in selectors.webhook_list()]


@router.post("/integrations/webhooks/", auth=admin_only, response={201: WebhookMadeOut, **WRITE_ANSWERS})
def webhook_create(request: HttpRequest, payload: WebhookIn) -> Any:
    try:
        endpoint, secret = services.webhook_create(
            actor=_admin(request), url=payload.url, events=payload.events
        )
    except IntegrationError as refused:
        raise refused.answer(request) from None
    return Status(201, {**selectors.webhook_out(endpoint), "secret": secret})


@router.delete("/integrations/webhooks/{int:endpoint_id}/", auth=admin_only, response={204: None, **REFUSALS})
def webhook_delete(request: HttpRequest, endpoint_id: int) -> Any:
    if not services.webhook_delete(actor=_admin(request), endpoint_id=endpoint_id):
        raise StaffError(NOT_FOUND, status=404)
    return Status(204, None)


@router.post(
    "/integrations/webhooks/{int:endpoint_id}/test/", auth=admin_only, response={200: DeliveryOut, **REFUSALS}
)
def webhook_test(request: HttpRequest, endpoint_id: int) -> Any:
    delivery = services.webhook_test_send(actor=_admin(request), endpoint_id=endpoint_id)
    if delivery is None:
        raise StaffError(NOT_FOUND, status=404)
    return selectors.delivery_out(delivery)


@router.get(
    "/integrations/webhooks/{int:endpoint_id}/deliveries/",
    auth=admin_only,
    response={200: DeliveryPageOut, **REFUSALS},
)
def webhook_deliveries(request: HttpRequest, endpoint_id: int, query: Query[DeliveryQuery]) -> Any:
    _admin(request)
    count, deliveries = selectors.delivery_page(
        endpoint=_endpoint(endpoint_id), page=query.page, page_size=query.page_size
    )
    return {
        "count": count,
        "page": query.page,
        "page_size": query.page_size,
        "results": [selectors.delivery_out(delivery) for delivery in deliveries],
    }


@router.post(
    "/integrations/webhook_deliveries/{int:delivery_id}/resend/",
    auth=admin_only,
    response={200: DeliveryOut, **REFUSALS},
)
def webhook_delivery_resend(request: HttpRequest, delivery_id: int) -> Any:
    """The delivery's event once more, at once, with the same delivery id; logged."""
    member = _admin(request)
    delivery = services.delivery_resend(actor=member, delivery_id=delivery_id)
    if delivery is None:
        raise StaffError(NOT_FOUND, status=404)
    return selectors.delivery_out(delivery)


# ---- the partner's own reference of an application


class ReferenceIn(Schema):
    reference: CleanText = Field(max_length=100, description="The partner's own reference; empty removes it")


class ReferenceOut(Schema):
    id: int
    reference: str


@router.put(
    "/quota_applications/{int:application_id}/reference/",
    auth=writers,
    response={200: ReferenceOut, **WRITE_ANSWERS},
)
def application_reference_set(request: HttpRequest, application_id: int, payload: ReferenceIn) -> Any:
    """Sets the partner's own reference (a write key or the back office); the list call finds
    the application by it (`reference=`) and webhooks carry it."""
    member: StaffMember = request.auth  # type: ignore[attr-defined]
    reference = services.application_reference_set(
        actor=member, application_id=application_id, reference=payload.reference
    )
    if reference is None:
        raise StaffError(NOT_FOUND, status=404)
    return {"id": application_id, "reference": reference}
