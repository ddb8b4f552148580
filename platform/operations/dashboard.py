"""The dashboard's period comparison and its funnel (issue 49), beside the figures of
operations.selectors.dashboard_stats, which puts them into its answer.

The tiles count what happened in the period, and the same in the previous period of the same
length (the days just before it): applications that came in (the rollup of
quota.models.ApplicationDayCount), moves into review, to the authority, the authority's
confirmation and the payout (quota.models.StatusChange, each application once per step), and
the sum paid out (the settlement items of the batches marked paid in the period). One query per
group, each over both periods at once.

The funnel counts people (e-mail addresses) by the furthest step of the flow they reached in the
period; a step counts everyone who reached at least that step, so it never exceeds the step
before it (a person who arrived by a bulk upload, or whose login code has been purged, still
counts as having started). One query."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.db import connection
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Sum, Value
from django.db.models.functions import Lower
from django.utils import timezone

from accounts.models import LoginCode, LoginLink
from billing.models import Client
from operations.models import CENT, SettlementItem
from quota.models import ApplicationDayCount, QuotaApplication, QuotaStatus, StatusChange
from registrations.models import BevRegistration

# The tiles in their order: the step a tile counts (None: applications that came in; the payout
# sum is the last tile).
TILE_STEPS: dict[str, str | None] = {
    "new": None,
    "in_review": QuotaStatus.PICKED_UP,
    "submitted": QuotaStatus.SENT_TO_UBA,
    "certified": QuotaStatus.ACCEPTED,
    "paid": QuotaStatus.PAID,
}
FUNNEL_STEPS = ("flow_started", "code_verified", "scan_accepted", "billing_locked")


@dataclass(frozen=True)
class Period:
    start: datetime.date  # both days included
    end: datetime.date

    @property
    def days(self) -> int:
        return (self.end - self.start).days + 1

    def out(self) -> dict[str, Any]:
        return {"from": self.start.isoformat(), "to": self.end.isoformat(), "days": self.days}


def day_start(day: datetime.date) -> datetime.datetime:
    """The first moment of a local day (Europe/Berlin)."""
    return timezone.make_aware(datetime.datetime.combine(day, datetime.time.min))


def periods(
    created_from: datetime.date | None, created_to: datetime.date | None
) -> tuple[Period | None, Period | None]:
    """The chosen period (from the first day to the last, today when open-ended) and the one
    before it of the same length; none without a first day (everything is no period to
    compare), nor when the last day lies before the first."""
    if created_from is None:
        return None, None
    end = created_to if created_to is not None else timezone.localdate()
    if end < created_from:
        return None, None
    current = Period(created_from, end)
    previous_end = created_from - datetime.timedelta(days=1)
    return current, Period(previous_end - datetime.timedelta(days=current.days - 1), previous_end)


def _money(value: Decimal | None) -> str:
    return str((value or Decimal(0)).quantize(CENT, rounding=ROUND_HALF_UP))


def tiles(
    *, created_from: datetime.date | None, created_to: datetime.date | None, sub_partner: int | None
) -> dict[str, Any]:
    """The tiles' figures in the period and, where there is one, in the previous period
    (`previous` null on every tile without one). Three queries."""
    current, previous = periods(created_from, created_to)
    # Without a period: everything up to the last day, if one is given.
    first = previous.start if previous else None
    last = current.end if current else created_to
    split = current.start if current else None

    days = ApplicationDayCount.objects.all()
    moves = StatusChange.objects.filter(status__in=[s for s in TILE_STEPS.values() if s])
    items = SettlementItem.objects.filter(status=SettlementItem.Status.PAID, batch__paid_at__isnull=False)
    if first is not None:
        days = days.filter(day__gte=first)
        moves = moves.filter(created_at__gte=day_start(first))
        items = items.filter(batch__paid_at__gte=day_start(first))
    if last is not None:
        end = day_start(last + datetime.timedelta(days=1))
        days = days.filter(day__lte=last)
        moves = moves.filter(created_at__lt=end)
        items = items.filter(batch__paid_at__lt=end)
    if sub_partner is not None:
        days = days.filter(sub_partner_id=sub_partner)
        moves = moves.filter(application__sub_partner_id=sub_partner)
        items = items.filter(application__sub_partner_id=sub_partner)

    now_q = Q(day__gte=split) if split else Q()
    before_q = Q(day__lt=split) if split else Q(pk__in=[])
    new = days.aggregate(current=Sum("count", filter=now_q), previous=Sum("count", filter=before_q))
    moved_now = Q(created_at__gte=day_start(split)) if split else Q()
    moved_before = Q(created_at__lt=day_start(split)) if split else Q(pk__in=[])
    reached = {
        status: (now, before)
        for status, now, before in moves.order_by()
        .values("status")
        .annotate(
            now=Count("application_id", distinct=True, filter=moved_now),
            before=Count("application_id", distinct=True, filter=moved_before),
        )
        .values_list("status", "now", "before")
    }
    paid_now = Q(batch__paid_at__gte=day_start(split)) if split else Q()
    paid_before = Q(batch__paid_at__lt=day_start(split)) if split else Q(pk__in=[])
    sums = items.aggregate(current=Sum("gross", filter=paid_now), previous=Sum("gross", filter=paid_before))

    out: list[dict[str, Any]] = []
    for key, status in TILE_STEPS.items():
        if status is None:
            now, before = new["current"] or 0, new["previous"] or 0
        else:
            now, before = reached.get(status, (0, 0))
        out.append({"key": key, "status": status, "value": now, "previous": before if previous else None})
    out.append(
        {
            "key": "payout_sum",
            "status": None,
            "value": _money(sums["current"]),
            "previous": _money(sums["previous"]) if previous else None,
        }
    )
    return {
        "period": current.out() if current else None,
        "previous_period": previous.out() if previous else None,
        "tiles": out,
    }


def _range(field: str, created_from: datetime.date | None, created_to: datetime.date | None) -> Q:
    query = Q()
    if created_from is not None:
        query &= Q(**{f"{field}__gte": day_start(created_from)})
    if created_to is not None:
        query &= Q(**{f"{field}__lt": day_start(created_to + datetime.timedelta(days=1))})
    return query


def _sql(rows: QuerySet[Any]) -> tuple[str, tuple[Any, ...]]:
    sql, params = rows.query.get_compiler(connection=connection).as_sql()
    return sql, tuple(params)


def funnel(
    *, created_from: datetime.date | None, created_to: datetime.date | None, sub_partner: int | None
) -> dict[str, int | None]:
    """The flow's steps in people (e-mail addresses, case-folded) in the range: the flow
    started (a login code or link asked for), the code verified (one used), a scan accepted (a
    registration created) and the billing data locked; each person counted at every step up to
    the furthest one reached, so the steps never grow. Only the last step knows the sub-partner
    (`?ref=` arrives with the billing data): with `sub_partner`, the earlier steps are null."""
    locked = Client.objects.filter(_range("locked_at", created_from, created_to), locked_at__isnull=False)
    if sub_partner is not None:
        # EXISTS: a person with many applications of the sub-partner is one row, not many.
        people = locked.filter(
            Exists(QuotaApplication.objects.filter(client=OuterRef("pk"), sub_partner_id=sub_partner))
        )
        return {
            "flow_started": None,
            "code_verified": None,
            "scan_accepted": None,
            "billing_locked": people.order_by().aggregate(n=Count("owner_id", distinct=True))["n"],
        }
    created = _range("created_at", created_from, created_to)
    used = _range("used_at", created_from, created_to)
    codes = LoginCode.objects.filter(purpose=LoginCode.Purpose.REGISTRATION)
    links = LoginLink.objects.filter(purpose=LoginLink.Purpose.REGISTRATION)
    parts = [
        codes.filter(created).values_list(Lower("email"), Value(0)),
        links.filter(created).values_list(Lower("email"), Value(0)),
        codes.filter(used, used_at__isnull=False).values_list(Lower("email"), Value(1)),
        links.filter(used, used_at__isnull=False).values_list(Lower("email"), Value(1)),
        BevRegistration.objects.filter(created).values_list(Lower("owner__email"), Value(2)),
        locked.values_list(Lower("owner__email"), Value(3)),
    ]
    compiled = [_sql(part.order_by()) for part in parts]
    union = " UNION ALL ".join(f"({sql})" for sql, _ in compiled)
    params = tuple(param for _, part_params in compiled for param in part_params)
    # The furthest step per person, then the people per furthest step.
    query = (
        f"SELECT top, count(*) FROM (SELECT email, max(step) AS top FROM ({union}) AS reached (email, step)"  # noqa: S608
        " GROUP BY email) AS people GROUP BY top"
    )
    with connection.cursor() as cursor:
        cursor.execute(query, params)
        furthest = dict(cursor.fetchall())
    counts: dict[str, int | None] = {}
    at_least = 0
    for index in reversed(range(len(FUNNEL_STEPS))):
        at_least += furthest.get(index, 0)
        counts[FUNNEL_STEPS[index]] = at_least
    return {step: counts[step] for step in FUNNEL_STEPS}
