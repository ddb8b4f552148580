"""What an owner is paid for an application: one function for every place that shows or pays
it (issue 46): the portal card, the partner's list, detail and CSV, the dashboard, the
settlement batch and its SEPA file.

The price: the single deal's when the application has one, else the partner's fee table
(issue 49): per legislation year and vehicle class a private owner's payout, and a business
owner's net with its VAT mode (`plus_vat`: a VAT-liable business is paid the net plus VAT;
`net_only`: the net alone). A private owner sells without VAT, a small business (§ 19 UStG)
too: they are paid without VAT. Under reverse charge (the partner's invoicing mode) the
partner owes the VAT and the owner is paid the net.

The fee table is versioned (quota.models.FeeTableVersion, written by quota.fee_services): an
application keeps the price of the version valid when it was created, or, when that version
had no price for its year and class, of the first later version that had one; a later change
never moves it. Before the partner admin saves a table of its own, the table is the one the
platform set up in the partner's configuration (config.fees), as version 0.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from common.partner_config import PartnerConfig
from common.payout_bounds import DEFAULT_MAX_PER_CLASS
from quota.models import FeeTableVersion

if TYPE_CHECKING:
    from quota.models import QuotaApplication

CENT = Decimal("0.01")
ZERO = Decimal("0.00")
# The classes a fee row may name: the eligible ones (DESIGN, Domain rules), as the platform's
# bounds name them.
VEHICLE_CLASSES: tuple[str, ...] = tuple(DEFAULT_MAX_PER_CLASS)
_CANONICAL = {name.upper(): name for name in VEHICLE_CLASSES}
BusinessVat = Literal["plus_vat", "net_only"]
Money = Annotated[Decimal, Field(ge=0, max_digits=8, decimal_places=2)]


def class_key(vehicle_class: str) -> str:
    """The class as the bounds and the table compare it: a registration writes L3e, a
    configuration may write L3E."""
    return (vehicle_class or "M1").upper()


class FeeTableRow(BaseModel):
    """One price: a legislation year and vehicle class."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    legislation_year: int = Field(ge=2020, le=2100)
    vehicle_class: str
    private_payout: Money
    business_net: Money
    business_vat: BusinessVat = "plus_vat"
    vat_percentage: Decimal = Field(default=Decimal("19"), ge=0, le=100, max_digits=5, decimal_places=2)

    @field_validator("vehicle_class")
    @classmethod
    def _known_class(cls, value: str) -> str:
        canonical = _CANONICAL.get(value.upper())
        if canonical is None:
            raise ValueError(f"Unbekannte Fahrzeugklasse {value!r}.")
        return canonical

    def stored(self) -> dict[str, Any]:
        return {
            "legislation_year": self.legislation_year,
            "vehicle_class": self.vehicle_class,
            "private_payout": str(self.private_payout.quantize(CENT)),
            "business_net": str(self.business_net.quantize(CENT)),
            "business_vat": self.business_vat,
            "vat_percentage": str(self.vat_percentage.quantize(CENT)),
        }


@dataclass(frozen=True)
class FeeVersion:
    number: int
    # None: valid from the start (version 0, the configuration's table)
    valid_from: datetime.datetime | None
    rows: Mapping[tuple[int, str], FeeTableRow] = field(default_factory=dict)

    def row(self, year: int, vehicle_class: str) -> FeeTableRow | None:
        return self.rows.get((year, class_key(vehicle_class)))


def _by_key(rows: Iterable[FeeTableRow]) -> dict[tuple[int, str], FeeTableRow]:
    return {(row.legislation_year, class_key(row.vehicle_class)): row for row in rows}


@dataclass(frozen=True)
class FeeSchedule:
    """Every version of a partner's fee table, oldest first (at least one)."""

    versions: tuple[FeeVersion, ...]

    @property
    def current(self) -> FeeVersion:
        return self.versions[-1]

    def priced_by(
        self, year: int, vehicle_class: str, priced_at: datetime.datetime | None
    ) -> tuple[FeeVersion, FeeTableRow] | None:
        """The version and row that price an application created at `priced_at` (None: one
        created now): the version valid then if it has a price, else the first later one that
        has (the application was priced when that version came)."""
        if priced_at is None:
            row = self.current.row(year, vehicle_class)
            return (self.current, row) if row is not None else None
        valid_index = 0
        for index, version in enumerate(self.versions):
            if version.valid_from is None or version.valid_from <= priced_at:
                valid_index = index
        for version in self.versions[valid_index:]:
            row = version.row(year, vehicle_class)
            if row is not None:
                return version, row
        return None


def config_fee_rows(config: PartnerConfig) -> list[FeeTableRow]:
    """The configuration's fee rows (one net for everyone, VAT on top for a VAT-liable business
    when the partner shows VAT) as rows of the fee table; rows of a class no longer eligible
    are left out."""
    rows = []
    for row in config.fees:
        if class_key(row.vehicle_class) not in _CANONICAL:
            continue
        rows.append(
            FeeTableRow(
                legislation_year=row.legislation_year,
                vehicle_class=row.vehicle_class,
                private_payout=row.client_fee,
                business_net=row.client_fee,
                business_vat="plus_vat" if config.display_vat else "net_only",
                vat_percentage=row.vat_percentage,
            )
        )
    return rows


def config_schedule(config: PartnerConfig) -> FeeSchedule:
    """The configuration's table alone, as version 0 (no query)."""
    return FeeSchedule((FeeVersion(0, None, _by_key(config_fee_rows(config))),))


def fee_schedule(config: PartnerConfig) -> FeeSchedule:
    """The partner's fee table versions (one query): the stored ones, or the configuration's
    table as version 0 while the partner has none of its own. Load once per page or batch."""
    stored = list(FeeTableVersion.objects.order_by("number").values_list("number", "valid_from", "rows"))
    if not stored:
        return config_schedule(config)
    return FeeSchedule(
        tuple(
            FeeVersion(
                number,
                None if number == 0 else valid_from,
                _by_key(FeeTableRow.model_validate(row) for row in rows),
            )
            for number, valid_from, rows in stored
        )
    )


@dataclass(frozen=True)
class Amounts:
    net: Decimal
    vat_percent: Decimal
    vat: Decimal
    gross: Decimal
    # The fee table version that priced it; None for a single deal's price.
    fee_version: int | None = None


def vat_liable(owner_type: str, is_vat_mandatory: bool | None) -> bool:
    """A business owner who charges VAT; a private owner and a small business do not."""
    return owner_type == "business" and is_vat_mandatory is True


def payout_amounts(
    *,
    config: PartnerConfig,
    year: int,
    vehicle_class: str,
    liable: bool,
    deal_net: Decimal | None = None,
    deal_vat_percent: Decimal | None = None,
    schedule: FeeSchedule | None = None,
    business: bool | None = None,
    priced_at: datetime.datetime | None = None,
) -> Amounts | None:
    """The amounts for one owner and application, or None when the partner has no price.
    `business`: the owner is a business (None: as `liable` says); `priced_at`: when the
    application was created (None: priced now, by the current table)."""
    version: int | None = None
    if deal_net is not None:
        net, rate, shows_vat = deal_net, deal_vat_percent or ZERO, True
    else:
        found = (schedule or fee_schedule(config)).priced_by(year, vehicle_class or "M1", priced_at)
        if found is None:
            return None
        fee_version, row = found
        version = fee_version.number
        if liable if business is None else business:
            net, rate, shows_vat = row.business_net, row.vat_percentage, row.business_vat == "plus_vat"
        else:
            net, rate, shows_vat = row.private_payout, ZERO, False
    # Reverse charge (§ 13b UStG, the partner's invoicing mode): the partner owes the VAT, the
    # owner is paid the net (the credit note says so: operations.credit_notes).
    if not (liable and shows_vat) or config.invoicing.business_vat_mode == "reverse_charge":
        rate = ZERO
    net = net.quantize(CENT)
    vat = (net * rate / 100).quantize(CENT, rounding=ROUND_HALF_UP)
    return Amounts(net=net, vat_percent=rate.quantize(CENT), vat=vat, gross=net + vat, fee_version=version)


def application_amounts(
    application: QuotaApplication, config: PartnerConfig, schedule: FeeSchedule | None = None
) -> Amounts | None:
    """payout_amounts of a loaded application (its client, registration and single deal),
    priced by the fee table version of its creation. Pass `schedule` in a loop."""
    client = application.client
    deal = application.single_deal  # None without a deal (no query then)
    return payout_amounts(
        config=config,
        year=application.legislation_year,
        vehicle_class=application.registration.vehicle_type,
        liable=vat_liable(client.vehicle_owner_type, client.is_vat_mandatory),
        deal_net=deal.price_net if deal is not None else None,
        deal_vat_percent=deal.vat_percent if deal is not None else None,
        schedule=schedule,
        business=client.vehicle_owner_type == "business",
        priced_at=application.created_at,
    )
