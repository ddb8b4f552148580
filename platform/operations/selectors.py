"""Operations reads: the sub-partner and single-deal lists, and the dashboard's figures."""

from __future__ import annotations

import datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.db.models import (
    Case,
    Count,
    DecimalField,
    ExpressionWrapper,
    F,
    Q,
    QuerySet,
    Sum,
    Value,
    When,
)
from django.db.models.functions import Coalesce, TruncDate
from django.utils import timezone

from accounts.models import LoginCode, LoginLink
from billing.models import Client
from config.i18n import Language
from operations.models import CENT, SingleDeal, SubPartner
from quota import catalogue
from quota.models import QuotaApplication, QuotaStatus
from registrations.models import BevRegistration
from tenants.config_schema import PartnerConfig

MONEY = DecimalField(max_digits=14, decimal_places=4)


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


def fee_gross_expression(config: PartnerConfig) -> Case:
    """The gross amount an application pays the owner, in SQL: the single deal's price with
    its VAT, else the fee table's row for its year and vehicle class (an unread class is M1)."""
    deal_gross = ExpressionWrapper(
        F("single_deal__price_net")
        * (Value(Decimal(1)) + F("single_deal__vat_percent") / Value(Decimal(100))),
        output_field=MONEY,
    )
    whens = [When(single_deal__isnull=False, then=deal_gross)]
    for row in config.fees:
        gross = (row.client_fee * (1 + row.vat_percentage / 100)).quantize(CENT, rounding=ROUND_HALF_UP)
        classes = [row.vehicle_class, ""] if row.vehicle_class == "M1" else [row.vehicle_class]
        whens.append(
            When(
                legislation_year=row.legislation_year,
                registration__vehicle_class__in=classes,
                then=Value(gross, output_field=MONEY),
            )
        )
    return Case(*whens, default=Value(Decimal(0), output_field=MONEY), output_field=MONEY)


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


def dashboard_stats(
    *,
    config: PartnerConfig,
    language: Language,
    created_from: datetime.date | None = None,
    created_to: datetime.date | None = None,
    sub_partner: int | None = None,
) -> dict[str, Any]:
    """The dashboard's figures over the applications created in the range (every one without a
    range): six aggregate queries, whatever the number of applications."""
    applications = QuotaApplication.objects.filter(_range("created_at", created_from, created_to))
    if sub_partner is not None:
        applications = applications.filter(sub_partner_id=sub_partner)

    per_day = (
        applications.annotate(day=TruncDate("created_at", tzinfo=timezone.get_current_timezone()))
        .order_by("day")
        .values("day")
        .annotate(count=Count("pk"))
    )
    by_status = dict(applications.order_by().values_list("status").annotate(count=Count("pk")))
    fee = fee_gross_expression(config)
    payouts = applications.aggregate(
        owed=Coalesce(Sum(fee, filter=Q(status__in=OWED_STATUSES)), Value(Decimal(0)), output_field=MONEY),
        paid=Coalesce(Sum(fee, filter=Q(status__in=PAID_STATUSES)), Value(Decimal(0)), output_field=MONEY),
    )
    shares = (
        applications.filter(sub_partner__isnull=False)
        .order_by()
        .values("sub_partner_id", "sub_partner__name", "sub_partner__fee_share_percent")
        .annotate(
            count=Count("pk"),
            fees=Coalesce(Sum(fee, filter=~Q(status__in=NOT_COUNTED)), Value(Decimal(0)), output_field=MONEY),
        )
        .order_by("sub_partner__name", "sub_partner_id")
    )
    return {
        "per_day": [{"date": row["day"].isoformat(), "count": row["count"]} for row in per_day],
        "funnel": funnel(created_from=created_from, created_to=created_to, sub_partner=sub_partner),
        "status_distribution": [
            {"status": code, "label": info.title(language), "count": by_status[code]}
            for code, info in catalogue.CATALOGUE.items()
            if by_status.get(code)
        ],
        "payouts": {"owed_gross": _money(payouts["owed"]), "paid_gross": _money(payouts["paid"])},
        "per_sub_partner": [
            {
                "id": row["sub_partner_id"],
                "name": row["sub_partner__name"],
                "count": row["count"],
                "fee_share_percent": str(row["sub_partner__fee_share_percent"]),
                "fee_share_gross": _money(row["fees"] * row["sub_partner__fee_share_percent"] / 100),
            }
            for row in shares
        ],
    }


def funnel(
    *, created_from: datetime.date | None, created_to: datetime.date | None, sub_partner: int | None
) -> dict[str, int | None]:
    """The flow's steps from the records each leaves, counted in people (e-mail addresses) in
    the range: the flow started (a login code or link was asked for), the code verified (a
    code or link was used), a scan accepted (a registration was created: the upload passed the
    size check and the document check), the billing data locked. Only the last step knows the
    sub-partner (`?ref=` arrives with the billing data): with `sub_partner`, the earlier steps
    are null."""
    locked = Client.objects.filter(_range("locked_at", created_from, created_to), locked_at__isnull=False)
    if sub_partner is not None:
        locked = locked.filter(quota_applications__sub_partner_id=sub_partner)
        return {
            "flow_started": None,
            "code_verified": None,
            "scan_accepted": None,
            "billing_locked": locked.values("owner_id").distinct().count(),
        }
    created = _range("created_at", created_from, created_to)
    used = _range("used_at", created_from, created_to)
    codes = LoginCode.objects.filter(purpose=LoginCode.Purpose.REGISTRATION)
    links = LoginLink.objects.filter(purpose=LoginLink.Purpose.REGISTRATION)
    started = codes.filter(created).values("email").union(links.filter(created).values("email"))
    verified = (
        codes.filter(used, used_at__isnull=False)
        .values("email")
        .union(links.filter(used, used_at__isnull=False).values("email"))
    )
    return {
        "flow_started": started.count(),
        "code_verified": verified.count(),
        "scan_accepted": BevRegistration.objects.filter(created).values("owner_id").distinct().count(),
        "billing_locked": locked.values("owner_id").distinct().count(),
    }
