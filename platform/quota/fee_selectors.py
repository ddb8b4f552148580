"""Reads of the partner's fee table (issue 49): the current version with the platform's bounds,
the versions, and the payable applications no version prices (the dashboard's and the
settlement dialog's warning)."""

from __future__ import annotations

import datetime
from collections import Counter
from typing import Any

from django.utils import timezone

from common.partner_config import PartnerConfig
from common.payout_bounds import payout_max
from quota.amounts import VEHICLE_CLASSES, FeeSchedule, FeeTableRow, FeeVersion, class_key, fee_schedule
from quota.models import FeeTableVersion, QuotaApplication, QuotaStatus
from tenants.quota_years import open_years

# Applications the next settlement batch would pay: without a price they are left out of it.
PAYABLE = (QuotaStatus.TO_PAY,)
VERSIONS_SHOWN = 100


def _row_out(row: FeeTableRow) -> dict[str, Any]:
    return row.stored()


def _version_meta(version: FeeTableVersion | None) -> dict[str, Any] | None:
    if version is None:
        return None
    return {
        "number": version.number,
        "valid_from": None if version.number == 0 else timezone.localtime(version.valid_from).isoformat(),
        "created_at": timezone.localtime(version.created_at).isoformat(),
        "created_by": version.created_by_label,
        "note": version.note,
    }


def fee_gaps(schedule: FeeSchedule) -> dict[str, Any]:
    """Payable applications (no single deal) that no fee table version prices, per year and
    class: the settlement leaves them out until a price for them is saved."""
    missing: Counter[tuple[int, str]] = Counter()
    rows = (
        QuotaApplication.objects.filter(status__in=PAYABLE, single_deal__isnull=True)
        .order_by()
        .values_list("legislation_year", "registration__vehicle_class", "created_at")
    )
    for year, vehicle_class, created in rows.iterator(chunk_size=2000):
        if schedule.priced_by(year, vehicle_class or "M1", created) is None:
            missing[(year, class_key(vehicle_class))] += 1
    canonical = {name.upper(): name for name in VEHICLE_CLASSES}
    groups = [
        {"legislation_year": year, "vehicle_class": canonical.get(key, key), "count": count}
        for (year, key), count in sorted(missing.items())
    ]
    return {"count": sum(missing.values()), "groups": groups}


def fee_table_detail(*, config: PartnerConfig, today: datetime.date | None = None) -> dict[str, Any]:
    """The current table, who saved it when, the bounds of the years it names or that are
    open, and the payable applications without a price."""
    schedule = fee_schedule(config)
    current: FeeVersion = schedule.current
    stored = FeeTableVersion.objects.order_by("-number").first()
    rows = sorted(current.rows.values(), key=lambda row: (row.legislation_year, row.vehicle_class))
    years = sorted({*open_years(today or timezone.localdate(), config), *(r.legislation_year for r in rows)})
    return {
        "version": current.number,
        "saved": _version_meta(stored),
        "rows": [_row_out(row) for row in rows],
        "open_years": open_years(today or timezone.localdate(), config),
        "vehicle_classes": list(VEHICLE_CLASSES),
        "bounds": [
            {
                "legislation_year": year,
                "vehicle_class": name,
                "min_exclusive": "0.00",
                "max": str(payout_max(year, name)),
            }
            for year in years
            for name in VEHICLE_CLASSES
        ],
        "reverse_charge": config.invoicing.business_vat_mode == "reverse_charge",
        "missing": fee_gaps(schedule),
    }


def fee_table_versions() -> list[dict[str, Any]]:
    """The saved versions, newest first, each with its rows."""
    versions = FeeTableVersion.objects.order_by("-number")[:VERSIONS_SHOWN]
    return [{**(_version_meta(v) or {}), "rows": v.rows} for v in versions]


def fee_missing(*, config: PartnerConfig) -> dict[str, Any]:
    return fee_gaps(fee_schedule(config))
