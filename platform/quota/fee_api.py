"""The partner area's fee table under /api/partner/fees/ (issue 49): every member reads it, the
partner admin alone saves a new version (docs/partner-api.md)."""

from __future__ import annotations

from typing import Any, Literal

from django.http import HttpRequest
from ninja import Field, Router, Schema

from common.partner_config import PartnerConfig
from common.schemas import DetailOut
from common.text import CleanText
from quota import fee_selectors, fee_services
from staff.auth import staff_auth, staff_role
from staff.models import StaffMember
from tenants.middleware import request_partner

router = Router(tags=["partner"])
admins = staff_role(StaffMember.Role.PARTNER_ADMIN)
REFUSALS: dict[int | str, Any] = {401: DetailOut, 403: DetailOut, 404: DetailOut}


class FeeRowIn(Schema):
    legislation_year: int
    vehicle_class: str = Field(max_length=4)
    private_payout: str | int | float = Field(description='Euros paid to a private owner, e.g. "85.00"')
    business_net: str | int | float = Field(description='Net euros paid to a business owner, e.g. "80.00"')
    business_vat: Literal["plus_vat", "net_only"] = Field(
        "plus_vat", description="plus_vat: a VAT-liable business is paid the net plus VAT; net_only: the net"
    )
    vat_percentage: str | int | float = Field("19", description='Percent, e.g. "19.00"')


class FeeTableIn(Schema):
    base_version: int = Field(
        ge=0, description="The version the table was edited from (409 if no longer current)"
    )
    rows: list[FeeRowIn] = Field(max_length=fee_services.MAX_ROWS)
    note: CleanText = Field("", max_length=300)


class FeeRowOut(Schema):
    legislation_year: int
    vehicle_class: str
    private_payout: str
    business_net: str
    business_vat: Literal["plus_vat", "net_only"]
    vat_percentage: str


class FeeVersionOut(Schema):
    number: int
    valid_from: str | None = Field(description="null: from the start (the platform's set-up)")
    created_at: str
    created_by: str
    note: str


class FeeVersionRowsOut(FeeVersionOut):
    rows: list[FeeRowOut]


class FeeBoundOut(Schema):
    legislation_year: int
    vehicle_class: str
    min_exclusive: str
    max: str


class FeeGapOut(Schema):
    legislation_year: int
    vehicle_class: str
    count: int


class FeeMissingOut(Schema):
    count: int = Field(description="Payable applications without a single deal that no version prices")
    groups: list[FeeGapOut]


class FeeTableOut(Schema):
    version: int = Field(description="The current version; 0: the platform's set-up, not yet saved here")
    saved: FeeVersionOut | None
    rows: list[FeeRowOut]
    open_years: list[int]
    vehicle_classes: list[str]
    bounds: list[FeeBoundOut]
    reverse_charge: bool
    missing: FeeMissingOut


def _config(request: HttpRequest) -> PartnerConfig:
    partner = request_partner(request)
    assert partner is not None  # staff_auth answered 404 without one
    return PartnerConfig.model_validate(partner.config)


def _plain(row: FeeRowIn) -> dict[str, Any]:
    # Numbers as their text: a float's binary value (85.1 -> 85.0999...) is not the price.
    return {
        key: str(value) if isinstance(value, int | float) and key != "legislation_year" else value
        for key, value in row.dict().items()
    }


@router.get("/fees/", auth=staff_auth, response={200: FeeTableOut, **REFUSALS})
def fee_table_detail(request: HttpRequest) -> Any:
    return fee_selectors.fee_table_detail(config=_config(request))


@router.put(
    "/fees/",
    auth=admins,
    response={200: FeeTableOut, 400: dict[str, Any], 409: dict[str, Any], **REFUSALS},
)
def fee_table_save(request: HttpRequest, payload: FeeTableIn) -> Any:
    config = _config(request)
    member: StaffMember = request.auth  # type: ignore[attr-defined]
    fee_services.fee_table_save(
        actor=member,
        config=config,
        rows=[_plain(row) for row in payload.rows],
        base_version=payload.base_version,
        note=payload.note,
    )
    return fee_selectors.fee_table_detail(config=config)


@router.get("/fees/versions/", auth=staff_auth, response={200: list[FeeVersionRowsOut], **REFUSALS})
def fee_table_versions(request: HttpRequest) -> Any:
    return fee_selectors.fee_table_versions()


@router.get("/fees/missing/", auth=staff_auth, response={200: FeeMissingOut, **REFUSALS})
def fee_missing(request: HttpRequest) -> Any:
    return fee_selectors.fee_missing(config=_config(request))
