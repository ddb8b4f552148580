"""The customer portal's registrations: list, filters, resubmit, advertisement clicks."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, QueryDict
from django.shortcuts import get_object_or_404
from django.utils import timezone
from ninja import Query, Router, Schema, Status
from pydantic import Field, ValidationError

from accounts.tokens import partner_auth
from common.errors import FieldError
from common.i18n import Language, request_language
from common.partner_config import PartnerConfig
from common.text import CleanMultiline
from quota import schemas, selectors, services
from quota.amounts import fee_schedule
from quota.models import QuotaApplication, QuotaStatus
from tenants.middleware import request_partner
from tenants.models import Partner
from tenants.quota_years import year_closed_message

router = Router(tags=["portal"], auth=partner_auth)

MAX_PAGE_SIZE = 100  # the spec's partSize
TEXTS: dict[Language, dict[str, str]] = {
    "de": {
        "year": "Bitte wählen Sie ein Quotenjahr.",
        "vehicle": "Für dieses Fahrzeug gibt es in diesem Zeitraum bereits eine Registrierung.",
        "advertisement": "Diese Werbung gibt es nicht.",
    },
    "en": {
        "year": "Please select a legislation year.",
        "vehicle": "Vehicle id already exist for this period",
        "advertisement": "There is no such advertisement.",
    },
}


def _partner(request: HttpRequest) -> Partner:
    partner = request_partner(request)
    assert partner is not None  # partner_auth refuses requests without one
    return partner


class ListQuery(Schema):
    page: int = Field(default=1, ge=1, le=100_000)
    page_size: int | None = Field(default=None, ge=1, le=MAX_PAGE_SIZE)
    limit: int | None = Field(default=None, ge=1, le=MAX_PAGE_SIZE)
    legislation_year: int | None = Field(default=None, ge=2000, le=2100)
    status: QuotaStatus | None = None


@router.get(
    "/end_user_portal/quota_applications/",
    response={200: schemas.ApplicationCardsOut, 400: dict, 401: dict},
)
def quota_application_list(request: HttpRequest, query: Query[ListQuery]) -> dict[str, Any]:
    partner = _partner(request)
    config = PartnerConfig.model_validate(partner.config)
    owner = request.auth  # type: ignore[attr-defined]
    rows, count = selectors.quota_application_list(
        owner=owner,
        page=query.page,
        page_size=query.page_size or query.limit or 5,
        legislation_year=query.legislation_year,
        status=query.status,
    )
    language = request_language(request)
    schedule = fee_schedule(config)  # the fee table once for every card
    return {
        "count": count,
        "results": [
            selectors.quota_application_item(
                row, partner=partner, config=config, owner=owner, language=language, schedule=schedule
            )
            for row in rows
        ],
    }


@router.get(
    "/end_user_portal/quota_applications/status_and_period_for_filters/",
    response={200: schemas.PortalFiltersOut, 401: dict},
)
def quota_application_filters(request: HttpRequest) -> dict[str, Any]:
    config = PartnerConfig.model_validate(_partner(request).config)
    return selectors.quota_application_filters(
        owner=request.auth,  # type: ignore[attr-defined]
        config=config,
        language=request_language(request),
    )


class ResubmitForm(Schema):
    period: int | None = None
    email_promotion_opt_in: bool = False
    free_text: CleanMultiline = Field(default="", max_length=2000)


def _resubmit_form(request: HttpRequest, texts: dict[str, str]) -> ResubmitForm:
    """The form of a PUT: Django parses form bodies of POST requests only."""
    if request.content_type in ("multipart/form-data", "application/x-www-form-urlencoded"):
        method, request.method = request.method, "POST"
        try:
            request._load_post_and_files()  # type: ignore[attr-defined]
        finally:
            request.method = method
        data = request.POST
    else:
        data = QueryDict()
    period = (data.get("period") or "").strip()
    # isdecimal, not isdigit: '²' is a digit that int() refuses.
    if not (period.isascii() and period.isdecimal()):
        raise FieldError("period", texts["year"])
    try:
        return ResubmitForm(
            period=int(period),
            email_promotion_opt_in=(data.get("email_promotion_opt_in") or "").strip().lower()
            in ("true", "1", "on"),
            free_text=data.get("free_text") or "",
        )
    except ValidationError as exc:
        message = str(exc.errors()[0]["msg"]).removeprefix("Value error, ")
        raise FieldError("free_text", message) from None


@router.put(
    "/end_user_portal/quota_applications/{application_id}/duplicate_for_new_period/",
    response={201: schemas.ApplicationCardOut, 400: dict, 401: dict, 404: dict},
    openapi_extra=schemas.RESUBMIT_BODY,
)
def quota_application_resubmit(request: HttpRequest, application_id: int) -> Any:
    partner = _partner(request)
    owner = request.auth  # type: ignore[attr-defined]
    texts = TEXTS[request_language(request)]
    form = _resubmit_form(request, texts)
    application = get_object_or_404(
        QuotaApplication.objects.select_related("registration", "client"),
        pk=application_id,
        registration__owner=owner,
    )
    assert form.period is not None
    config = PartnerConfig.model_validate(partner.config)
    try:
        new = services.quota_application_resubmit(
            application=application,
            period=form.period,
            config=config,
            actor=owner,
            email_promotion_opt_in=form.email_promotion_opt_in,
            free_text=form.free_text,
        )
    except services.QuotaError as error:
        if error.code == services.YEAR_NOT_ALLOWED:
            # The year is closed on the calendar or not offered: say so and name the next open one.
            raise FieldError(
                "period", year_closed_message(form.period, timezone.localdate(), config)
            ) from None
        return Status(400, {"detail": texts["vehicle"], "error_code": error.code})
    new = QuotaApplication.objects.select_related("registration", "client", "single_deal").get(pk=new.pk)
    item = selectors.quota_application_item(
        new, partner=partner, config=config, owner=owner, language=request_language(request)
    )
    return Status(201, item)


class AdvertisementClickIn(Schema):
    partner_advertisement: int


@router.post(
    "/end_user_portal/advertisement_count/", response={201: schemas.CreatedOut, 400: dict, 401: dict}
)
def advertisement_count(request: HttpRequest, payload: AdvertisementClickIn) -> Any:
    advertisement = PartnerConfig.model_validate(_partner(request).config).partneradvertisement
    if not advertisement.enabled or advertisement.id != payload.partner_advertisement:
        raise FieldError("partner_advertisement", TEXTS[request_language(request)]["advertisement"])
    click = services.advertisement_click_record(
        advertisement_id=payload.partner_advertisement,
        user=request.auth,  # type: ignore[attr-defined]
    )
    return Status(201, {"id": click.pk})
