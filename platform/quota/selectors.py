"""Quota application reads: the portal's list, each card as the spec's registration item."""

from __future__ import annotations

import datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.contrib.postgres.expressions import ArraySubquery
from django.db.models import OuterRef, Prefetch, Q, QuerySet
from django.utils import timezone

from accounts.models import User
from billing.models import Client
from common.i18n import Language
from common.partner_config import PartnerConfig
from quota import catalogue
from quota.amounts import FeeSchedule, application_amounts, fee_schedule
from quota.hooks import card_documents
from quota.models import QuotaApplication, StatusChange
from registrations.files import scan_url
from tenants.models import Partner
from tenants.quota_years import allowed_registration_years

CENT = Decimal("0.01")


def quota_application_list(
    *, owner: User, page: int, page_size: int, legislation_year: int | None = None, status: str | None = None
) -> tuple[list[QuotaApplication], int]:
    """One page of the owner's applications, sorted by sequence, and the total: three queries
    (count, page, history) whatever the page size."""
    applications: QuerySet[QuotaApplication] = QuotaApplication.objects.filter(registration__owner=owner)
    if legislation_year is not None:
        applications = applications.filter(legislation_year=legislation_year)
    if status:
        applications = applications.filter(status=status)
    count = applications.count()
    start = (page - 1) * page_size
    # The years this vehicle (the same registration, or another upload with the same VIN)
    # already has an application for, in the page's own query: the resubmit dialog offers
    # only the others.
    same_vehicle = QuotaApplication.objects.filter(
        Q(registration=OuterRef("registration"))
        | (Q(registration__vin=OuterRef("registration__vin")) & ~Q(registration__vin=""))
    ).values("legislation_year")
    rows: list[QuotaApplication] = list(
        applications.annotate(vehicle_years=ArraySubquery(same_vehicle))
        .select_related("registration", "client", "single_deal")
        # The card shows the stored masked IBAN: the IBAN and BIC themselves are not decrypted.
        .defer("client__account_iban", "client__account_bic")
        .prefetch_related(
            Prefetch("status_changes", queryset=StatusChange.objects.order_by("created_at", "pk")),
            # the card's credit notes and payout statements (operations.credit_notes)
            "payout_documents",
        )
        .order_by("registration__sequence", "legislation_year", "pk")[start : start + page_size]
    )
    return rows, count


def quota_application_filters(*, owner: User, config: PartnerConfig, language: Language) -> dict[str, Any]:
    """The choices of the list's filters: every status, and the years there are or may be."""
    year = timezone.localdate().year
    years = set(
        QuotaApplication.objects.filter(registration__owner=owner).values_list("legislation_year", flat=True)
    ) | set(allowed_registration_years(config))
    return {
        "status": [
            {"value": code, "label": info.title(language), "name": info.label}
            for code, info in catalogue.CATALOGUE.items()
        ],
        "legislation_year": [
            {
                "value": y,
                "label": str(y),
                "period": "historical" if y < year else "current" if y == year else "future",
            }
            for y in sorted(years)
        ],
    }


def status_timeline(application: QuotaApplication, language: Language) -> list[dict[str, Any]]:
    """Past moves from the record, the current status, and the expected steps still ahead."""
    changes: list[StatusChange] = list(application.status_changes.all())
    entries: list[dict[str, Any]] = []
    for index, change in enumerate(changes):
        if entries and entries[-1]["status"] == change.status:
            continue
        current = index == len(changes) - 1
        info = catalogue.CATALOGUE[change.status]
        date = timezone.localtime(change.created_at).strftime("%d.%m.%Y")
        if change.status in catalogue.REJECTIONS:
            subtitles = [change.reason] if change.reason else []
        else:
            subtitles = [text for text in (info.text(language), date) if text]
        entries.append(
            {
                "status": change.status,
                "position": "current" if current else "past",
                "details": {"title": info.title(language), "subtitles": subtitles},
            }
        )
    if entries:
        # A repeated last status (e.g. back to to_pay) keeps the latest entry current.
        entries[-1]["position"] = "current"
    for status in catalogue.ahead_of(application.status):
        entries.append(
            {
                "status": status,
                "position": "future",
                "details": {"title": catalogue.CATALOGUE[status].title(language), "subtitles": []},
            }
        )
    return entries


def _next_fee(schedule: FeeSchedule, year: int, vehicle_class: str, *, business: bool) -> Decimal | None:
    """The current fee table's price for a vehicle registered now (before VAT)."""
    found = schedule.priced_by(year, vehicle_class, None)
    if found is None:
        return None
    row = found[1]
    return row.business_net if business else row.private_payout


def _money(value: Decimal | None) -> str | None:
    return None if value is None else str(value.quantize(CENT, rounding=ROUND_HALF_UP))


def _client(client: Client) -> dict[str, Any]:
    return {
        "gender": client.gender,
        "first_name": client.first_name,
        "last_name": client.last_name,
        "street_name": client.street_name,
        "street_number": client.street_number,
        "postal_code": client.postal_code,
        "city": client.city,
        "vehicle_owner_type": client.vehicle_owner_type,
        "name_of_business": client.name_of_business,
        "is_vat_mandatory": client.is_vat_mandatory,
        "vat_number": client.vat_number,
        "account_name": client.account_name,
        "account_iban": client.account_iban_masked,
        "charge_card": client.charge_card,
    }


def _vehicle_years(application: QuotaApplication) -> set[int]:
    """Years taken by this vehicle: annotated by quota_application_list, else this one's."""
    annotated = getattr(application, "vehicle_years", None)
    return {application.legislation_year, *(annotated or ())}


def quota_application_item(
    application: QuotaApplication,
    *,
    partner: Partner,
    config: PartnerConfig,
    owner: User,
    language: Language,
    today: datetime.date | None = None,
    schedule: FeeSchedule | None = None,
) -> dict[str, Any]:
    """One card: the spec's registration item (spec/customer-portal.md section 3). Pass the
    fee table's `schedule` when building many cards."""
    registration = application.registration
    vehicle_class = registration.vehicle_type
    schedule = schedule or fee_schedule(config)
    # What this owner is paid (quota.amounts, as the settlement pays it): a private owner or a
    # small business the net without VAT details, a VAT-liable business the net plus VAT.
    amounts = application_amounts(application, config, schedule)
    vat_details = None
    if amounts is not None and amounts.vat_percent:
        vat_details = {
            "client_fee_after_vat": _money(amounts.gross),
            "vat_percentage": str(amounts.vat_percent.normalize()),
            "vat_amount": _money(amounts.vat),
        }
    next_year = (today or timezone.localdate()).year + 1
    business = application.client.vehicle_owner_type == "business"
    next_fee = _next_fee(schedule, next_year, vehicle_class, business=business)
    next_fee_m1 = _next_fee(schedule, next_year, "M1", business=business)
    client_data = {**_client(application.client), "email": owner.email}
    return {
        "id": application.pk,
        "sequence": registration.sequence,
        "legislation_year": application.legislation_year,
        "status": application.status,
        "status_timeline": status_timeline(application, language),
        "client_fee": _money(amounts.net) if amounts else None,
        # The card shows the amount after VAT whenever VAT is paid (a deal's, too).
        "display_vat": config.display_vat or vat_details is not None,
        "vat_details": vat_details,
        "next_year_client_fee": _money(next_fee),
        "next_year_client_fee_year": next_year,
        "next_year_client_fee_for_m1": _money(next_fee_m1),
        "payout_documents": card_documents()(application, partner=partner),
        "allowed_resubmit_years": [
            year for year in allowed_registration_years(config) if year not in _vehicle_years(application)
        ],
        "registration": {
            "id": registration.pk,
            "uuid": str(registration.uuid),
            "vehicle_type": vehicle_class,
            "zlb_scan": scan_url(partner=partner, registration=registration, kind="scan"),
            "resized_image": scan_url(partner=partner, registration=registration, kind="resized"),
            "scan_placeholder": registration.redaction == "neutral",
            "width": registration.width,
            "height": registration.height,
            "source": registration.source,
            "created_at": registration.created_at.isoformat(),
            "client": client_data,
        },
    }
