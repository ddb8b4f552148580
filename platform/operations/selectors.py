"""Operations reads: the sub-partner and single-deal lists, and the dashboard's figures."""

from __future__ import annotations

import datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.db import connection, transaction
from django.db.models import Count, Q, QuerySet, Sum, Value
from django.db.models.functions import Coalesce, NullIf
from django.utils import timezone

from common.i18n import Language
from common.partner_config import PartnerConfig
from operations import dashboard
from operations.models import CENT, SingleDeal, SubPartner
from quota import catalogue
from quota.amounts import fee_schedule, payout_amounts
from quota.models import ApplicationCount, ApplicationDayCount, QuotaApplication, QuotaStatus
from quota.services import application_day_counts_compacted
from quota.tasks import application_day_counts_compact_run


def sub_partner_list(*, q: str = "") -> QuerySet[SubPartner]:
    rows = SubPartner.objects.annotate(application_count=Count("quota_applications"))
    if q:
        rows = rows.filter(Q(name__icontains=q) | Q(referral_key__icontains=q) | Q(contact_name__icontains=q))
    return rows.order_by("name", "pk")


def sub_partner_get(pk: int) -> SubPartner | None:
    return sub_partner_list().filter(pk=pk).first()


def single_deal_list(*, q: str = "") -> QuerySet[SingleDeal]:
    rows = SingleDeal.objects.annotate(vehicles_used=Count("quota_applications__registration", distinct=True))
    if q:
        rows = rows.filter(Q(name__icontains=q) | Q(deal_key__icontains=q) | Q(customer__icontains=q))
    return rows.order_by("name", "pk")


def single_deal_get(pk: int) -> SingleDeal | None:
    return single_deal_list().filter(pk=pk).first()


def sub_partner_out(sub_partner: SubPartner) -> dict[str, Any]:
    return {
        "id": sub_partner.pk,
        "name": sub_partner.name,
        "contact_name": sub_partner.contact_name,
        "contact_email": sub_partner.contact_email,
        "contact_phone": sub_partner.contact_phone,
        "referral_key": sub_partner.referral_key,
        "fee_share_percent": str(sub_partner.fee_share_percent),
        "is_active": sub_partner.is_active,
        "application_count": getattr(sub_partner, "application_count", None)
        if hasattr(sub_partner, "application_count")
        else sub_partner.quota_applications.count(),
        "created_at": timezone.localtime(sub_partner.created_at).isoformat(),
    }


def single_deal_out(deal: SingleDeal) -> dict[str, Any]:
    used = getattr(deal, "vehicles_used", None)
    if used is None:
        used = deal.quota_applications.values("registration_id").distinct().count()
    return {
        "id": deal.pk,
        "name": deal.name,
        "customer": deal.customer,
        "deal_key": deal.deal_key,
        "price_net": str(deal.price_net),
        "vat_percent": str(deal.vat_percent),
        "price_gross": str(deal.price_gross),
        "legislation_years": list(deal.legislation_years),
        "vehicle_cap": deal.vehicle_cap,
        "vehicles_used": used,
        "is_active": deal.is_active,
        "created_at": timezone.localtime(deal.created_at).isoformat(),
    }


# ---- the dashboard ----

# Owed: confirmed by the authority and not yet paid out; paid: paid out (and completed).
OWED_STATUSES = [QuotaStatus.ACCEPTED, QuotaStatus.TO_SETTLE, QuotaStatus.TO_PAY, QuotaStatus.PAYMENT_FAILURE]
PAID_STATUSES = [QuotaStatus.PAID, QuotaStatus.COMPLETED]
# A sub-partner's fee share counts on the applications still on their way or paid out.
NOT_COUNTED = [*catalogue.REJECTIONS, QuotaStatus.TEST]
# The rollup's rows above which a dashboard read queues its compaction (when they are half
# as many again as the last compaction left).
COMPACT_ABOVE = 5_000


def _money(value: Decimal | None) -> str:
    return str((value or Decimal(0)).quantize(CENT, rounding=ROUND_HALF_UP))


def _range(field: str, created_from: datetime.date | None, created_to: datetime.date | None) -> Q:
    query = Q()
    if created_from is not None:
        query &= Q(**{f"{field}__gte": _day_start(created_from)})
    if created_to is not None:
        query &= Q(**{f"{field}__lt": _day_start(created_to + datetime.timedelta(days=1))})
    return query


def _day_start(day: datetime.date) -> datetime.datetime:
    return timezone.make_aware(datetime.datetime.combine(day, datetime.time.min))


def _vat_liable_counts(
    *, created_from: datetime.date | None, created_to: datetime.date | None, sub_partner: int | None
) -> dict[tuple[Any, ...], int]:
    """The VAT-liable business owners' applications per rollup key (status, sub-partner, single
    deal, year, vehicle class) in the range: they are paid VAT on top (quota.amounts); the
    others the net. Only the statuses whose amount the dashboard sums."""
    applications = QuotaApplication.objects.filter(
        _range("created_at", created_from, created_to),
        client__vehicle_owner_type="business",
        client__is_vat_mandatory=True,
    ).exclude(status__in=NOT_COUNTED)
    if sub_partner is not None:
        applications = applications.filter(sub_partner_id=sub_partner)
    vehicle_class = Coalesce(NullIf("registration__vehicle_class", Value("")), Value("M1"))
    return {
        tuple(group): count
        for *group, count in applications.order_by()
        .values_list("status", "sub_partner_id", "single_deal_id", "legislation_year", vehicle_class)
        .annotate(Count("pk"))
    }


def dashboard_stats(
    *,
    config: PartnerConfig,
    language: Language,
    created_from: datetime.date | None = None,
    created_to: datetime.date | None = None,
    sub_partner: int | None = None,
) -> dict[str, Any]:
    """The dashboard's figures over the applications created in the range (every one without a
    range), read from the rollup the database keeps exact on every write
    (quota.models.ApplicationDayCount: counts per local day, status, year, vehicle class,
    sub-partner and single deal; ApplicationCount the same without the day): one aggregate per
    day and one per (status, sub-partner, single deal, year, class), from which the status distribution, the payouts and the
    sub-partners' shares are summed here; then the funnel's counts. Reading 100,000
    applications for this was most of the dashboard's time (tests/bench/test_partner_area.py).
    When the rollup holds many more rows than keys (writers append signed rows), its
    compaction is queued."""
    counted = ApplicationDayCount.objects.all()
    if created_from is not None:
        counted = counted.filter(day__gte=created_from)
    if created_to is not None:
        counted = counted.filter(day__lte=created_to)
    if sub_partner is not None:
        counted = counted.filter(sub_partner_id=sub_partner)
    rows = 0
    per_day = []
    for day, count, day_rows in (
        counted.order_by("day").values_list("day").annotate(Sum("count"), Count("pk"))
    ):
        rows += day_rows
        if count:
            per_day.append({"date": day.isoformat(), "count": count})
    # Without a range, the same figures without the day: a few hundred rows.
    totals = counted if created_from or created_to else ApplicationCount.objects.all()
    if sub_partner is not None:
        totals = totals.filter(sub_partner_id=sub_partner)
    key = ("status", "sub_partner_id", "single_deal_id", "legislation_year", "vehicle_class")
    counts: dict[tuple[Any, ...], int] = {
        tuple(group): count
        for *group, count in totals.order_by().values_list(*key).annotate(Sum("count"))
        if count
    }
    compacted = application_day_counts_compacted()
    if rows > COMPACT_ABOVE and (compacted is None or rows > 1.5 * compacted[0]):
        schema_name = connection.schema_name  # type: ignore[attr-defined]
        transaction.on_commit(lambda: application_day_counts_compact_run(schema_name))

    deals = {d.pk: (d.price_net, d.vat_percent) for d in SingleDeal.objects.all()}
    sub_partners = {s.pk: s for s in SubPartner.objects.all()}
    liable = _vat_liable_counts(created_from=created_from, created_to=created_to, sub_partner=sub_partner)
    prices: dict[tuple[Any, ...], Decimal] = {}
    # The rollup has no creation times: its applications are priced by the current fee table.
    schedule = fee_schedule(config)

    def price(deal_id: int | None, year: int, vehicle_class: str, is_liable: bool) -> Decimal:
        """What one owner is paid (quota.amounts, as the card, the list and the batch)."""
        key = (deal_id, year, vehicle_class, is_liable)
        if key not in prices:
            deal = deals.get(deal_id) if deal_id is not None else None
            amounts = payout_amounts(
                config=config, year=year, vehicle_class=vehicle_class, liable=is_liable,
                deal_net=deal[0] if deal else None, deal_vat_percent=deal[1] if deal else None,
                schedule=schedule,
            )  # fmt: skip
            prices[key] = amounts.gross if amounts else Decimal(0)
        return prices[key]

    by_status: dict[str, int] = {}
    owed = paid = Decimal(0)
    shares: dict[int, list[Any]] = {}  # id: [count, gross of the counted applications]
    for group, count in counts.items():
        status, sub_partner_id, deal_id, year, vehicle_class = group
        by_status[status] = by_status.get(status, 0) + count
        # The rollup has no owner type: its VAT-liable business owners are counted apart.
        businesses = min(liable.get(group, 0), count)
        gross = (count - businesses) * price(deal_id, year, vehicle_class, False) + businesses * price(
            deal_id, year, vehicle_class, True
        )
        if status in OWED_STATUSES:
            owed += gross
        elif status in PAID_STATUSES:
            paid += gross
        if sub_partner_id is not None:
            share = shares.setdefault(sub_partner_id, [0, Decimal(0)])
            share[0] += count
            if status not in NOT_COUNTED:
                share[1] += gross
    ordered = sorted(shares, key=lambda pk: (sub_partners[pk].name, pk))
    return {
        # the tiles with the previous period, and the funnel (operations.dashboard)
        **dashboard.tiles(created_from=created_from, created_to=created_to, sub_partner=sub_partner),
        "funnel": dashboard.funnel(created_from=created_from, created_to=created_to, sub_partner=sub_partner),
        "per_day": per_day,
        "status_distribution": [
            {"status": code, "label": info.title(language), "count": by_status[code]}
            for code, info in catalogue.CATALOGUE.items()
            if by_status.get(code)
        ],
        "payouts": {"owed_gross": _money(owed), "paid_gross": _money(paid)},
        "per_sub_partner": [
            {
                "id": pk,
                "name": sub_partners[pk].name,
                "count": shares[pk][0],
                "fee_share_percent": str(sub_partners[pk].fee_share_percent),
                "fee_share_gross": _money(shares[pk][1] * sub_partners[pk].fee_share_percent / 100),
            }
            for pk in ordered
        ],
    }
