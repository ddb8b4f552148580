"""The partner area's sub-partner, single-deal and dashboard calls under /api/partner/
(docs/partner-api.md). Viewers read; back office and partner admins write."""

from __future__ import annotations

import datetime
from typing import Any, Literal

from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import HttpRequest
from ninja import Field, Query, Router, Schema, Status

from common.i18n import request_language
from common.partner_config import PartnerConfig
from common.schemas import DetailOut
from common.text import CleanText
from operations import selectors, services
from operations.models import SingleDeal, SubPartner
from staff.auth import staff_auth, staff_role
from staff.errors import NOT_FOUND, StaffError
from staff.models import StaffMember
from tenants.middleware import request_partner

router = Router(tags=["partner"])
writers = staff_role(StaffMember.Role.BACK_OFFICE, StaffMember.Role.PARTNER_ADMIN)
REFUSALS: dict[int | str, Any] = {401: DetailOut, 403: DetailOut, 404: DetailOut}
WRITE_ANSWERS: dict[int | str, Any] = {400: dict[str, Any], **REFUSALS}


class ListQuery(Schema):
    page: int = Field(1, ge=1, le=100_000)
    page_size: int = Field(25, ge=1, le=100)
    q: CleanText | None = Field(None, max_length=100)


class SubPartnerIn(Schema):
    name: CleanText | None = Field(None, max_length=200)
    contact_name: CleanText | None = Field(None, max_length=200)
    contact_email: CleanText | None = Field(None, max_length=254)
    contact_phone: CleanText | None = Field(None, max_length=40)
    referral_key: CleanText | None = Field(None, max_length=100, description="Generated when left out")
    fee_share_percent: str | int | float | None = Field(None, description='Percent, e.g. "10.00"')
    is_active: bool | None = None


class SubPartnerOut(Schema):
    id: int
    name: str
    contact_name: str
    contact_email: str
    contact_phone: str
    referral_key: str
    fee_share_percent: str
    is_active: bool
    application_count: int
    created_at: str


class SingleDealIn(Schema):
    name: CleanText | None = Field(None, max_length=200)
    customer: CleanText | None = Field(None, max_length=200)
    deal_key: CleanText | None = Field(None, max_length=100, description="Generated when left out")
    price_net: str | int | float | None = Field(None, description='Euros before VAT, e.g. "70.00"')
    vat_percent: str | int | float | None = Field(None, description='Default "19.00"')
    legislation_years: list[int] | None = None
    vehicle_cap: int | None = Field(None, description="Most vehicles the deal covers; null: no cap")
    is_active: bool | None = None


class SingleDealOut(Schema):
    id: int
    name: str
    customer: str
    deal_key: str
    price_net: str
    vat_percent: str
    price_gross: str
    legislation_years: list[int]
    vehicle_cap: int | None
    vehicles_used: int
    is_active: bool
    created_at: str


class SubPartnerPageOut(Schema):
    count: int
    page: int
    page_size: int
    results: list[SubPartnerOut]


class SingleDealPageOut(Schema):
    count: int
    page: int
    page_size: int
    results: list[SingleDealOut]


def _page(rows: QuerySet[Any], query: ListQuery, shape: Any) -> dict[str, Any]:
    paginator = Paginator(rows, query.page_size)
    start = (query.page - 1) * query.page_size
    return {
        "count": paginator.count,
        "page": query.page,
        "page_size": query.page_size,
        "results": [shape(row) for row in rows[start : start + query.page_size]],
    }


def _member(request: HttpRequest) -> StaffMember:
    member: StaffMember = request.auth  # type: ignore[attr-defined]
    return member


def _found(obj: Any) -> Any:
    if obj is None:
        raise StaffError(NOT_FOUND, status=404)
    return obj


# ---- sub-partners ----


@router.get("/sub_partners/", auth=staff_auth, response={200: SubPartnerPageOut, **REFUSALS})
def sub_partner_list(request: HttpRequest, query: Query[ListQuery]) -> Any:
    return _page(selectors.sub_partner_list(q=query.q or ""), query, selectors.sub_partner_out)


@router.post("/sub_partners/", auth=writers, response={201: SubPartnerOut, **WRITE_ANSWERS})
def sub_partner_create(request: HttpRequest, payload: SubPartnerIn) -> Any:
    created = services.sub_partner_create(actor=_member(request), data=payload.dict(exclude_unset=True))
    return Status(201, selectors.sub_partner_out(_found(selectors.sub_partner_get(created.pk))))


@router.get("/sub_partners/{int:sub_partner_id}/", auth=staff_auth, response={200: SubPartnerOut, **REFUSALS})
def sub_partner_detail(request: HttpRequest, sub_partner_id: int) -> Any:
    return selectors.sub_partner_out(_found(selectors.sub_partner_get(sub_partner_id)))


@router.patch(
    "/sub_partners/{int:sub_partner_id}/", auth=writers, response={200: SubPartnerOut, **WRITE_ANSWERS}
)
def sub_partner_update(request: HttpRequest, sub_partner_id: int, payload: SubPartnerIn) -> Any:
    sub_partner = _found(SubPartner.objects.filter(pk=sub_partner_id).first())
    services.sub_partner_update(
        actor=_member(request), sub_partner=sub_partner, data=payload.dict(exclude_unset=True)
    )
    return selectors.sub_partner_out(_found(selectors.sub_partner_get(sub_partner_id)))


@router.delete(
    "/sub_partners/{int:sub_partner_id}/", auth=writers, response={200: SubPartnerOut, 204: None, **REFUSALS}
)
def sub_partner_delete(request: HttpRequest, sub_partner_id: int) -> Any:
    """204 when deleted; 200 with the deactivated sub-partner when applications refer to it."""
    sub_partner = _found(SubPartner.objects.filter(pk=sub_partner_id).first())
    if services.sub_partner_delete(actor=_member(request), sub_partner=sub_partner):
        return Status(204, None)
    return selectors.sub_partner_out(_found(selectors.sub_partner_get(sub_partner_id)))


# ---- single deals ----


@router.get("/single_deals/", auth=staff_auth, response={200: SingleDealPageOut, **REFUSALS})
def single_deal_list(request: HttpRequest, query: Query[ListQuery]) -> Any:
    return _page(selectors.single_deal_list(q=query.q or ""), query, selectors.single_deal_out)


@router.post("/single_deals/", auth=writers, response={201: SingleDealOut, **WRITE_ANSWERS})
def single_deal_create(request: HttpRequest, payload: SingleDealIn) -> Any:
    created = services.single_deal_create(actor=_member(request), data=payload.dict(exclude_unset=True))
    return Status(201, selectors.single_deal_out(_found(selectors.single_deal_get(created.pk))))


@router.get("/single_deals/{int:single_deal_id}/", auth=staff_auth, response={200: SingleDealOut, **REFUSALS})
def single_deal_detail(request: HttpRequest, single_deal_id: int) -> Any:
    return selectors.single_deal_out(_found(selectors.single_deal_get(single_deal_id)))


@router.patch(
    "/single_deals/{int:single_deal_id}/", auth=writers, response={200: SingleDealOut, **WRITE_ANSWERS}
)
def single_deal_update(request: HttpRequest, single_deal_id: int, payload: SingleDealIn) -> Any:
    deal = _found(SingleDeal.objects.filter(pk=single_deal_id).first())
    services.single_deal_update(
        actor=_member(request), single_deal=deal, data=payload.dict(exclude_unset=True)
    )
    return selectors.single_deal_out(_found(selectors.single_deal_get(single_deal_id)))


@router.delete(
    "/single_deals/{int:single_deal_id}/", auth=writers, response={200: SingleDealOut, 204: None, **REFUSALS}
)
def single_deal_delete(request: HttpRequest, single_deal_id: int) -> Any:
    """204 when deleted; 200 with the deactivated deal when applications carry it."""
    deal = _found(SingleDeal.objects.filter(pk=single_deal_id).first())
    if services.single_deal_delete(actor=_member(request), single_deal=deal):
        return Status(204, None)
    return selectors.single_deal_out(_found(selectors.single_deal_get(single_deal_id)))


# ---- dashboard ----


class StatsQuery(Schema):
    created_from: datetime.date | None = None
    created_to: datetime.date | None = None
    sub_partner: int | None = Field(None, ge=1)


class StatsDay(Schema):
    date: datetime.date
    count: int


class StatsFunnel(Schema):
    """People per step of the flow; a step counts everyone who reached at least it, so the
    steps never grow. With a sub-partner, the steps before the billing data are null."""

    flow_started: int | None
    code_verified: int | None
    scan_accepted: int | None
    billing_locked: int | None


class StatsStatus(Schema):
    status: str
    label: str
    count: int


class StatsPayouts(Schema):
    owed_gross: str
    paid_gross: str


class StatsSubPartner(Schema):
    id: int
    name: str
    count: int
    fee_share_percent: str
    fee_share_gross: str


class StatsPeriod(Schema):
    from_: datetime.date = Field(..., alias="from")
    to: datetime.date
    days: int


class StatsTile(Schema):
    key: Literal["new", "in_review", "submitted", "certified", "paid", "payout_sum"]
    status: str | None = Field(description="The status a move into which the tile counts")
    value: int | str = Field(description="A count; the payout sum in euros as a string")
    previous: int | str | None = Field(description="The same in the previous period; null without one")


class StatsOut(Schema):
    period: StatsPeriod | None = Field(description="The chosen period; null without a first day")
    previous_period: StatsPeriod | None = Field(description="The period of the same length before it")
    tiles: list[StatsTile]
    funnel: StatsFunnel
    per_day: list[StatsDay]
    status_distribution: list[StatsStatus]
    payouts: StatsPayouts
    per_sub_partner: list[StatsSubPartner]


@router.get("/stats/", auth=staff_auth, response={200: StatsOut, **REFUSALS}, by_alias=True)
def dashboard_stats(request: HttpRequest, query: Query[StatsQuery]) -> Any:
    partner = request_partner(request)
    assert partner is not None
    return selectors.dashboard_stats(
        config=PartnerConfig.model_validate(partner.config),
        language=request_language(request),
        created_from=query.created_from,
        created_to=query.created_to,
        sub_partner=query.sub_partner,
    )
