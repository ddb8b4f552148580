"""The partner area's reads of quota applications: the staff list with its filters, ordering
and search, one application in detail, the filter choices and the CSV rows.

Kept apart from quota.selectors (the owner's portal): these reads span every owner of the
partner and are shaped for docs/partner-api.md."""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.db.models import F, Func, IntegerField, Q, QuerySet, Subquery
from django.utils import timezone

from billing.models import Client
from config.crypto import encrypted_fields
from config.i18n import Language
from operations.models import SingleDeal, SubPartner
from quota import catalogue
from quota.models import QuotaApplication, StatusChange
from quota.selectors import iban_masked
from registrations.files import scan_url
from tenants.config_schema import PartnerConfig
from tenants.models import Partner

CENT = Decimal("0.01")

# The API's ordering names and the columns behind them; the primary key breaks ties, so a page
# boundary never shows a row twice or skips one.
ORDERINGS: dict[str, tuple[str, ...]] = {
    "created_at": ("created_at", "pk"),
    "status": ("status", "created_at", "pk"),
    "legislation_year": ("legislation_year", "created_at", "pk"),
    "sequence": ("registration__sequence", "legislation_year", "pk"),
    "last_name": ("client__last_name", "client__first_name", "pk"),
}
ORDERING_CHOICES = [name for key in ORDERINGS for name in (key, f"-{key}")]


@dataclass(frozen=True)
class ApplicationFilters:
    statuses: list[str] = field(default_factory=list)
    legislation_year: int | None = None
    vehicle_class: str = ""
    sub_partner: int | None = None
    single_deal: int | None = None
    created_from: datetime.date | None = None
    created_to: datetime.date | None = None
    q: str = ""


def _day_start(day: datetime.date) -> datetime.datetime:
    """Midnight of a calendar day in the partner's time zone (Europe/Berlin)."""
    return timezone.make_aware(datetime.datetime.combine(day, datetime.time.min))


def applications_filtered(filters: ApplicationFilters) -> QuerySet[QuotaApplication]:
    applications = QuotaApplication.objects.all()
    if filters.statuses:
        applications = applications.filter(status__in=filters.statuses)
    if filters.legislation_year is not None:
        applications = applications.filter(legislation_year=filters.legislation_year)
    if filters.vehicle_class:
        # An unread class counts as M1, as everywhere else (BevRegistration.vehicle_type).
        if filters.vehicle_class == "M1":
            applications = applications.filter(registration__vehicle_class__in=["M1", ""])
        else:
            applications = applications.filter(registration__vehicle_class=filters.vehicle_class)
    if filters.sub_partner is not None:
        applications = applications.filter(sub_partner_id=filters.sub_partner)
    if filters.single_deal is not None:
        applications = applications.filter(single_deal_id=filters.single_deal)
    if filters.created_from is not None:
        applications = applications.filter(created_at__gte=_day_start(filters.created_from))
    if filters.created_to is not None:
        applications = applications.filter(
            created_at__lt=_day_start(filters.created_to + datetime.timedelta(days=1))
        )
    if filters.q:
        applications = applications.filter(_search(filters.q))
    return applications


def _search(text: str) -> Q:
    """The registration number (exact), the VIN (from its start) and the owner's name (any
    part); every word must match somewhere. The reader does not read plates, so there is no
    plate to match."""
    query = Q()
    for word in text.split()[:5]:
        part = Q(registration__vin__istartswith=word) | Q(client__last_name__icontains=word)
        part |= Q(client__first_name__icontains=word) | Q(client__name_of_business__icontains=word)
        if word.isascii() and word.isdecimal() and len(word) <= 18:
            part |= Q(registration__sequence=int(word))
        query &= part
    return query


def application_page(
    *, filters: ApplicationFilters, ordering: str, page: int, page_size: int
) -> tuple[list[QuotaApplication], int]:
    """One page and the total in one query whatever the page size (a second one only for a
    page past the end, to count): the page's ids come from a subquery on the filter and order
    alone, which an index answers (QuotaApplication.Meta.indexes), the total from an
    uncorrelated count the database runs once, and only the page's rows are joined to their
    registration, billing data, sub-partner and deal. Joining first made the planner sort every
    match for one page (tests/bench/test_partner_area.py)."""
    applications = applications_filtered(filters)
    descending = ordering.startswith("-")
    columns = ORDERINGS[ordering.lstrip("-")]
    order = [f"-{column}" if descending else column for column in columns]
    start = (page - 1) * page_size
    page_ids = applications.order_by(*order).values("pk")[start : start + page_size]
    # COUNT as a plain function, not an aggregate: no GROUP BY, one row.
    total = applications.order_by().annotate(total=Func(F("pk"), function="COUNT")).values("total")
    rows = list(
        QuotaApplication.objects.filter(pk__in=page_ids)
        .annotate(total=Subquery(total, output_field=IntegerField()))
        .select_related("registration", "client", "sub_partner", "single_deal")
        # The row shows none of the encrypted billing fields: not decrypting them is most of
        # the page's Python time.
        .defer(*(f"client__{name}" for name in encrypted_fields(Client)))
        .order_by(*order)
    )
    count = rows[0].total if rows else applications.count()  # type: ignore[attr-defined]
    return rows, count


def _money(value: Decimal | None) -> str | None:
    return None if value is None else str(value.quantize(CENT, rounding=ROUND_HALF_UP))


def fee_gross(application: QuotaApplication, config: PartnerConfig) -> Decimal | None:
    """What the owner is paid, VAT included: the single deal's price, else the fee table's."""
    if application.single_deal_id is not None:
        return application.single_deal.price_gross  # type: ignore[union-attr]
    vehicle_class = application.registration.vehicle_type
    for row in config.fees:
        if row.legislation_year == application.legislation_year and row.vehicle_class == vehicle_class:
            return (row.client_fee * (1 + row.vat_percentage / 100)).quantize(CENT, rounding=ROUND_HALF_UP)
    return None


def owner_name(application: QuotaApplication) -> str:
    client = application.client
    name = f"{client.first_name} {client.last_name}".strip()
    return f"{client.name_of_business} ({name})" if client.name_of_business else name


def application_row(
    application: QuotaApplication, *, config: PartnerConfig, language: Language
) -> dict[str, Any]:
    registration = application.registration
    sub_partner, deal = application.sub_partner, application.single_deal
    return {
        "id": application.pk,
        "sequence": registration.sequence,
        "legislation_year": application.legislation_year,
        "status": application.status,
        "status_label": catalogue.CATALOGUE[application.status].title(language),
        "created_at": timezone.localtime(application.created_at).isoformat(),
        "updated_at": timezone.localtime(application.updated_at).isoformat(),
        "vin": registration.vin,
        "vehicle_class": registration.vehicle_type,
        "owner_name": owner_name(application),
        "owner_type": application.client.vehicle_owner_type,
        "sub_partner": {"id": sub_partner.pk, "name": sub_partner.name} if sub_partner else None,
        "single_deal": {"id": deal.pk, "name": deal.name} if deal else None,
        "fee_gross": _money(fee_gross(application, config)),
    }


def application_get(application_id: int) -> QuotaApplication | None:
    return (
        QuotaApplication.objects.select_related(
            "registration", "registration__owner", "client", "sub_partner", "single_deal"
        )
        .filter(pk=application_id)
        .first()
    )


def application_detail(
    application: QuotaApplication, *, partner: Partner, config: PartnerConfig, language: Language
) -> dict[str, Any]:
    """The row plus the scan (a signed URL, as the owner's card has), what the reader found,
    the billing data with the IBAN masked, the history and the moves the catalogue allows."""
    registration, client = application.registration, application.client
    changes = (
        StatusChange.objects.filter(application=application)
        .select_related("actor")
        .order_by("created_at", "pk")
    )
    return {
        **application_row(application, config=config, language=language),
        "registration": {
            "uuid": str(registration.uuid),
            "scan_url": scan_url(partner=partner, registration=registration, kind="scan"),
            "resized_url": scan_url(partner=partner, registration=registration, kind="resized"),
            "source": registration.source,
            "vin": registration.vin,
            "first_registration": registration.first_registration.isoformat()
            if registration.first_registration
            else None,
            "vehicle_class": registration.vehicle_class,
            "energy_code": registration.energy_code,
            "is_electric": registration.is_electric,
            "needs_review": registration.needs_review,
            "classifier_skipped": registration.classifier_skipped,
        },
        "client": {
            "gender": client.gender,
            "first_name": client.first_name,
            "last_name": client.last_name,
            "street_name": client.street_name,
            "street_number": client.street_number,
            "postal_code": client.postal_code,
            "city": client.city,
            "email": registration.owner.email,
            "owner_type": client.vehicle_owner_type,
            "name_of_business": client.name_of_business,
            "account_name": client.account_name,
            "iban_masked": iban_masked(client.account_iban) if client.account_iban else "",
            "partner_variable": client.partner_variable,
            "campaign": client.campaign,
        },
        "history": [
            {
                "status": change.status,
                "status_label": catalogue.CATALOGUE[change.status].title(language),
                "reason": change.reason,
                "actor": _actor(change, owner_id=registration.owner_id),
                "created_at": timezone.localtime(change.created_at).isoformat(),
            }
            for change in changes
        ],
        "allowed_moves": [
            {"status": status, "status_label": catalogue.CATALOGUE[status].title(language)}
            for status in sorted(catalogue.allowed_moves(application.status))
        ],
    }


def _actor(change: StatusChange, *, owner_id: int) -> str:
    """Who moved it: staff by name or e-mail; the owner's own steps as 'Kunde'."""
    actor = change.actor
    if actor is None:
        return "System"
    if actor.pk == owner_id:
        return "Kunde"
    return actor.get_full_name() or actor.email or actor.username


def application_filters(*, language: Language) -> dict[str, Any]:
    """The choices of the list's filters."""
    years = sorted(
        set(QuotaApplication.objects.values_list("legislation_year", flat=True).distinct())
        | {timezone.localdate().year}
    )
    classes = set(QuotaApplication.objects.values_list("registration__vehicle_class", flat=True).distinct())
    return {
        "statuses": [
            {"value": code, "label": info.title(language)} for code, info in catalogue.CATALOGUE.items()
        ],
        "years": years,
        "vehicle_classes": sorted({c or "M1" for c in classes} | {"M1"}),
        "sub_partners": [{"id": s.pk, "name": s.name} for s in SubPartner.objects.order_by("name", "pk")],
        "single_deals": [{"id": d.pk, "name": d.name} for d in SingleDeal.objects.order_by("name", "pk")],
    }


CSV_HEADER = [
    "Nummer", "Quotenjahr", "Status", "Angelegt", "Geändert", "Vorname", "Nachname", "Firma", "Haltertyp",
    "E-Mail", "FIN", "Fahrzeugklasse", "Erstzulassung", "Unterpartner", "Anteil Unterpartner (%)",
    "Einzelvertrag", "Prämie brutto (EUR)", "Kampagne", "Partnervariable",
]  # fmt: skip
OWNER_TYPES = {"private": "Privat", "business": "Gewerblich"}
# What the export reads, in one query (no encrypted column: nothing to decrypt per row).
CSV_COLUMNS = (
    "registration__sequence", "legislation_year", "status", "created_at", "updated_at", "client__first_name",
    "client__last_name", "client__name_of_business", "client__vehicle_owner_type", "registration__owner__email",
    "registration__vin", "registration__vehicle_class", "registration__first_registration", "sub_partner__name",
    "sub_partner__fee_share_percent", "single_deal__name", "single_deal__price_net", "single_deal__vat_percent",
    "client__campaign", "client__partner_variable",
)  # fmt: skip


def _german_money(value: Decimal | None) -> str:
    return "" if value is None else f"{value:.2f}".replace(".", ",")


def application_csv_rows(filters: ApplicationFilters, *, config: PartnerConfig) -> Iterator[list[Any]]:
    """Every application of the filter, oldest first, as the export's rows: read through a
    server-side cursor in chunks, so 100,000 rows never sit in memory at once."""
    fee_table = {
        (row.legislation_year, row.vehicle_class): (row.client_fee * (1 + row.vat_percentage / 100)).quantize(
            CENT, rounding=ROUND_HALF_UP
        )
        for row in config.fees
    }
    labels = {code: info.title("de") for code, info in catalogue.CATALOGUE.items()}
    rows = applications_filtered(filters).order_by("created_at", "pk").values_list(*CSV_COLUMNS)
    for (
        sequence, year, status, created, updated, first, last, business, owner_type, email, vin, vehicle_class,
        first_registration, sub_partner, share, deal, deal_net, deal_vat, campaign, partner_variable,
    ) in rows.iterator(chunk_size=2000):  # fmt: skip
        if deal_net is not None:
            gross = (deal_net * (1 + deal_vat / 100)).quantize(CENT, rounding=ROUND_HALF_UP)
        else:
            gross = fee_table.get((year, vehicle_class or "M1"))
        yield [
            sequence, year, labels.get(status, status),
            timezone.localtime(created).strftime("%d.%m.%Y %H:%M"),
            timezone.localtime(updated).strftime("%d.%m.%Y %H:%M"),
            first, last, business, OWNER_TYPES.get(owner_type, owner_type), email, vin, vehicle_class or "M1",
            first_registration.strftime("%d.%m.%Y") if first_registration else "",
            sub_partner or "", _german_money(share) if sub_partner else "", deal or "", _german_money(gross),
            campaign, partner_variable,
        ]  # fmt: skip
