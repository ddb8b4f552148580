"""The platform's bounds of a payout per vehicle (issue 46), per quota year and vehicle class:
a partner's fee row or a single deal's price outside them is refused (a typo of 85000 for 85
would otherwise pay it). Net euros; more than 0, at most the class's ceiling.

The ceilings follow the credited energy per class (tenants.quota_years: M1 2,000 kWh, N1 3,000,
M3 72,000) with room for the market: a bus or a truck earns many times a car's quota. The
platform sets them: `settings.PAYOUT_MAX_PER_CLASS` (class -> euros) replaces the defaults,
`settings.PAYOUT_MAX_PER_YEAR` ({year: {class: euros}}) one year's. A leaf module: the
configuration schema, the operations' services and the settlement read it.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from django.conf import settings

DEFAULT_MAX_PER_CLASS: dict[str, Decimal] = {
    "M1": Decimal("1000.00"),
    "N1": Decimal("1500.00"),
    "N2": Decimal("10000.00"),
    "N3": Decimal("20000.00"),
    "M3": Decimal("40000.00"),
    "L3e": Decimal("500.00"),
    "L4e": Decimal("500.00"),
    "L5e": Decimal("500.00"),
    "L7e": Decimal("500.00"),
}
# A class the table does not name (e.g. M2) is held to the car's ceiling.
FALLBACK_CLASS = "M1"


def payout_max(year: int, vehicle_class: str) -> Decimal:
    """The most a partner may pay per vehicle of the class in the year."""
    # Class names compared in capitals: the fee table writes L3E, a registration L3e.
    per_class = {key.upper(): value for key, value in DEFAULT_MAX_PER_CLASS.items()}
    for key, value in getattr(settings, "PAYOUT_MAX_PER_CLASS", {}).items():
        per_class[key.upper()] = Decimal(str(value))
    for key, value in getattr(settings, "PAYOUT_MAX_PER_YEAR", {}).get(year, {}).items():
        per_class[key.upper()] = Decimal(str(value))
    return per_class.get((vehicle_class or FALLBACK_CLASS).upper(), per_class[FALLBACK_CLASS])


def payout_max_any(years: Iterable[int], classes: Iterable[str] | None = None) -> Decimal:
    """The highest ceiling over the years (and classes): a single deal covers vehicles of any
    class; the settlement holds each of them to its own class (payout_in_bounds)."""
    names = list(classes) if classes is not None else list(DEFAULT_MAX_PER_CLASS)
    return max(payout_max(year, name) for year in (list(years) or [0]) for name in names)


def payout_in_bounds(amount: Decimal, year: int, vehicle_class: str) -> bool:
    return Decimal(0) < amount <= payout_max(year, vehicle_class)


def german_euros(amount: Decimal) -> str:
    whole, cents = f"{amount:,.2f}".split(".")
    return f"{whole.replace(',', '.')},{cents} €"
