"""The partner area's reads of quota applications: the staff list with its filters, ordering
and search, one application in detail, the filter choices and the CSV rows.

Kept apart from quota.selectors (the owner's portal): these reads span every owner of the
partner and are shaped for docs/partner-api.md. They live in operations, above quota, because
they join operations' sub-partners and single deals; the owner's text-form agreement and the
partner's own reference come through hooks (accounts.consent_book, quota.hooks)."""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from types import SimpleNamespace
from typing import Any

from django.db import connection
from django.db.backends.postgresql.base import ServerBindingCursor  # type: ignore[attr-defined]
from django.db.models import Q, QuerySet, Subquery
from django.utils import timezone
from psycopg import ClientCursor

from accounts.consent_book import consent_book
from accounts.models import User
from billing.models import Client
from common.i18n import Language
from common.partner_config import PartnerConfig
from common.tables import Column, csv_row, headers
from operations.models import SingleDeal, SubPartner
from quota import catalogue
from quota.amounts import application_amounts, fee_schedule, payout_amounts, vat_liable
from quota.hooks import application_references
from quota.models import ApplicationCount, ApplicationDayCount, QuotaApplication, StatusChange
from quota.review_selectors import owner_name
from registrations.files import scan_url
from registrations.models import BevRegistration, FieldCorrection
from registrations.services import reading_fields
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
    # the partner API (issue 49): changed at or after this moment; the partner's own reference
    changed_since: datetime.datetime | None = None
    reference: str = ""


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
    if filters.changed_since is not None:
        applications = applications.filter(updated_at__gte=filters.changed_since)
    if filters.reference:
        applications = applications.filter(partner_reference__reference=filters.reference)
    return applications


def _search(text: str) -> Q:
    """The registration number (exact), the VIN (from its start), the owner's name or business
    name and the owner's e-mail address (any part); every word must match somewhere. Each part
    is a subquery on its own table, which that table's trigram index answers (pg_trgm GIN on
    the upper-cased column, as icontains/istartswith compare): one OR across the joined tables
    left the planner nothing but reading every billing row (tests/bench/test_partner_area.py).
    The reader does not read plates, so there is no plate to match."""
    query = Q()
    for word in text.split()[:5]:
        names = (
            Q(last_name__icontains=word) | Q(first_name__icontains=word) | Q(name_of_business__icontains=word)
        )
        vehicle = Q(vin__istartswith=word)
        if word.isascii() and word.isdecimal() and len(word) <= 18:
            vehicle |= Q(sequence=int(word))
        addresses = User.objects.filter(email__icontains=word).values("pk")
        query &= (
            Q(client__in=Client.objects.filter(names).values("pk"))
            | Q(registration__in=BevRegistration.objects.filter(vehicle).values("pk"))
            | Q(registration__in=BevRegistration.objects.filter(owner__in=addresses).values("pk"))
        )
    return query


# Above this many matches of a search the list's count is the planner's estimate
# (docs/partner-api.md): counting every one of a large match costs more than the page itself.
# Every other filter is counted exactly from the rollups (_rollup_count).
COUNT_EXACT_UP_TO = 10_000

# The list's orderings over the page query's aliases (a: application, r: registration,
# c: billing data), the same columns as ORDERINGS.
ORDER_SQL: dict[str, tuple[str, ...]] = {
    "created_at": ("a.created_at", "a.id"),
    "status": ("a.status", "a.created_at", "a.id"),
    "legislation_year": ("a.legislation_year", "a.created_at", "a.id"),
    "sequence": ("r.sequence", "a.legislation_year", "a.id"),
    "last_name": ("c.last_name", "c.first_name", "a.id"),
}
# What a row of the list shows (no encrypted column: nothing to decrypt), shaped by
# application_rows. The sub-partner's and the deal's names are subqueries per row: joining
# their tables doubled the planning time of the page.
ROW_SQL = (
    "a.id, a.legislation_year, a.status, a.created_at, a.updated_at, r.sequence, r.vin, r.vehicle_class,"  # noqa: S608
    " c.first_name, c.last_name, c.name_of_business, c.vehicle_owner_type, c.is_vat_mandatory,"
    " a.sub_partner_id, a.single_deal_id,"
    f" (SELECT s.name FROM {SubPartner._meta.db_table} s WHERE s.id = a.sub_partner_id),"
    f" (SELECT d.name FROM {SingleDeal._meta.db_table} d WHERE d.id = a.single_deal_id),"
    # The deal's price; what the owner is paid of it is quota.amounts' (VAT only if liable).
    f" (SELECT ARRAY[d.price_net, d.vat_percent] FROM {SingleDeal._meta.db_table} d"
    " WHERE d.id = a.single_deal_id),"
    # then the partner's own reference (integrations, issue 49): _row_sql
)


def _row_sql() -> str:
    # The reference's subquery is integrations' (quota.hooks, filled in its AppConfig.ready()).
    return f"{ROW_SQL} {application_references().reference_sql('a.id')}"


PAGE_FROM = (
    f" FROM {QuotaApplication._meta.db_table} a"
    f" JOIN {BevRegistration._meta.db_table} r ON r.id = a.registration_id"
    f" JOIN {Client._meta.db_table} c ON c.id = a.client_id"
)


class _Preparing(ServerBindingCursor):
    """A cursor whose statements the server prepares (psycopg: parsed and planned once per
    connection and statement text, then executed with new parameters)."""

    def execute(
        self, query: Any, params: Any = None, *, prepare: bool | None = None, binary: bool | None = None
    ) -> Any:
        return super().execute(query, params, prepare=True if prepare is None else prepare, binary=binary)


class _LoggedPreparing(_Preparing):
    """... whose statement Django's query log can read (DEBUG, CaptureQueriesContext): psycopg
    keeps no query text on a cursor that ran a prepared statement."""

    def execute(
        self, query: Any, params: Any = None, *, prepare: bool | None = None, binary: bool | None = None
    ) -> Any:
        result = super().execute(query, params, prepare=prepare, binary=binary)
        # psycopg's own mogrify: Django's compose_sql opens a cursor, which sets the search path.
        self._query = SimpleNamespace(query=ClientCursor(self.connection).mogrify(query, params).encode())
        return result


def _prepared_cursor() -> Any:
    """A cursor on Django's connection, in the partner's schema, whose statements are prepared.
    Planning the list's page (a join, a semi-join, the count and the names) took longer than
    running it, and a staff member pages through the same few statements. A prepared plan
    records the search path: another partner's schema on this connection is planned anew,
    never read through this one's plan. Safe with direct connections and session pooling,
    the only ones the product supports (deploy/README.md: transaction pooling is refused)."""
    connection.cursor().close()  # django-tenants sets the partner's search path on a new cursor
    if connection.connection.prepare_threshold is None:
        # Django turns psycopg's preparing off (None) for its client-side binding cursors, which
        # never prepare anyway; with a threshold, an explicit prepare=True is honoured.
        connection.connection.prepare_threshold = 5
    if connection.queries_logged:
        return connection.make_debug_cursor(_LoggedPreparing(connection.connection))
    return connection.make_cursor(_Preparing(connection.connection))


@dataclass(frozen=True)
class ApplicationPage:
    rows: list[tuple[Any, ...]]
    count: int
    count_exact: bool


def _rollup_count(filters: ApplicationFilters) -> tuple[str, list[Any]] | None:
    """The exact number of matches of every filter but the free text, as SQL on the rollups the
    database keeps (quota.models.ApplicationCount: a few hundred rows; with a date range
    ApplicationDayCount, whose day is the same local calendar day as the filter's). The same
    conditions as applications_filtered; tests/operations/test_partner_applications.py compares."""
    if filters.q or filters.changed_since is not None or filters.reference:
        return None  # not in the rollups: counted like a search
    where: list[str] = []
    params: list[Any] = []
    table = ApplicationCount._meta.db_table
    if filters.created_from is not None or filters.created_to is not None:
        table = ApplicationDayCount._meta.db_table
        if filters.created_from is not None:
            where.append("day >= %s")
            params.append(filters.created_from)
        if filters.created_to is not None:
            where.append("day <= %s")
            params.append(filters.created_to)
    if filters.statuses:
        where.append("status = ANY(%s)")
        params.append(list(filters.statuses))
    if filters.legislation_year is not None:
        where.append("legislation_year = %s")
        params.append(filters.legislation_year)
    if filters.vehicle_class:
        where.append("vehicle_class = %s")  # the rollup's unread class is M1, as the filter's
        params.append(filters.vehicle_class)
    if filters.sub_partner is not None:
        where.append("sub_partner_id = %s")
        params.append(filters.sub_partner)
    if filters.single_deal is not None:
        where.append("single_deal_id = %s")
        params.append(filters.single_deal)
    condition = f" WHERE {' AND '.join(where)}" if where else ""
    return f"SELECT COALESCE(sum(count), 0) FROM {table}{condition}", params  # noqa: S608 - our columns


def application_page(
    *, filters: ApplicationFilters, ordering: str, page: int, page_size: int
) -> ApplicationPage:
    """One page and the total in one query whatever the page size (a second one only for a
    search: a large match's estimate, or a page past the end, to count): the page's ids come
    from a subquery on the filter and order alone, which an index answers
    (QuotaApplication.Meta.indexes), and only the page's rows are joined to their registration
    and billing data, read as plain values (ROW_SQL). The total is a subquery on the rollups
    (_rollup_count), or for a search an uncorrelated count of at most COUNT_EXACT_UP_TO + 1
    matches. Joining first made the planner sort every match for one page; counting the
    matches cost more than the page; so did the ORM's compiling of the joined query: only the
    filter's subquery is compiled by it (tests/bench/test_partner_area.py)."""
    applications = applications_filtered(filters)
    descending = ordering.startswith("-")
    key = ordering.lstrip("-")
    order = [f"-{column}" if descending else column for column in ORDERINGS[key]]
    start = (page - 1) * page_size
    ids_sql, ids_params = (
        applications.order_by(*order).values("pk")[start : start + page_size].query.sql_with_params()
    )
    exact = _rollup_count(filters)
    if exact is not None:
        count_sql, count_params = exact
    else:
        matches, matches_params = (
            applications.order_by().values("pk")[: COUNT_EXACT_UP_TO + 1].query.sql_with_params()
        )
        count_params = list(matches_params)
        count_sql = f"SELECT COUNT(*) FROM ({matches}) AS matches"  # noqa: S608 - the ORM's own SQL
    direction = " DESC" if descending else ""
    sql = (
        f"SELECT {_row_sql()}, ({count_sql}){PAGE_FROM} WHERE a.id IN ({ids_sql})"  # noqa: S608 - the ORM's own SQL
        f" ORDER BY {', '.join(column + direction for column in ORDER_SQL[key])}"
    )
    with _prepared_cursor() as cursor:
        cursor.execute(sql, [*count_params, *ids_params])
        rows = cursor.fetchall()
        if not rows:
            if exact is not None:
                cursor.execute(count_sql, count_params)
                return ApplicationPage(rows=[], count=int(cursor.fetchone()[0]), count_exact=True)
            return ApplicationPage(rows=[], count=applications.count(), count_exact=True)
    count = int(rows[0][-1])
    rows = [row[:-1] for row in rows]
    if exact is not None or count <= COUNT_EXACT_UP_TO:
        return ApplicationPage(rows=rows, count=count, count_exact=True)
    return ApplicationPage(rows=rows, count=_estimate(applications), count_exact=False)


def _estimate(applications: QuerySet[QuotaApplication]) -> int:
    """The planner's row estimate for a match known to be larger than COUNT_EXACT_UP_TO,
    rounded to hundreds (it is an estimate: the statistics autovacuum keeps)."""
    plan = json.loads(applications.order_by().values("pk").explain(format="json"))
    rows = int(plan[0]["Plan"]["Plan Rows"])
    return max(round(rows, -2), COUNT_EXACT_UP_TO)


def application_rows(
    page: ApplicationPage, *, config: PartnerConfig, language: Language
) -> list[dict[str, Any]]:
    """The page's rows as the list shows them (the same fields as application_row), with the
    labels and the fee table looked up once per page, not once per row."""
    labels = {code: info.title(language) for code, info in catalogue.CATALOGUE.items()}
    localtime = timezone.localtime
    schedule = fee_schedule(config)  # every version of the fee table, once for the page
    out = []
    for (
        pk, year, status, created, updated, sequence, vin, vehicle_class, first, last, business, owner_type,
        vat_mandatory, sub_partner_id, deal_id, sub_partner_name, deal_name, deal_price, reference,
    ) in page.rows:  # fmt: skip
        vehicle_type = vehicle_class or "M1"
        name = f"{first} {last}".strip()
        # What this owner is paid (quota.amounts): the portal card and the batch show the same.
        amounts = payout_amounts(
            config=config, year=year, vehicle_class=vehicle_type, liable=vat_liable(owner_type, vat_mandatory),
            deal_net=deal_price[0] if deal_id is not None else None,
            deal_vat_percent=deal_price[1] if deal_id is not None else None,
            schedule=schedule, business=owner_type == "business", priced_at=created,
        )  # fmt: skip
        gross = amounts.gross if amounts else None
        out.append(
            {
                "id": pk,
                "sequence": sequence,
                "legislation_year": year,
                "status": status,
                "status_label": labels[status],
                "created_at": localtime(created).isoformat(),
                "updated_at": localtime(updated).isoformat(),
                "vin": vin,
                "vehicle_class": vehicle_type,
                "owner_name": f"{business} ({name})" if business else name,
                "owner_type": owner_type,
                "sub_partner": {"id": sub_partner_id, "name": sub_partner_name}
                if sub_partner_id is not None
                else None,
                "single_deal": {"id": deal_id, "name": deal_name} if deal_id is not None else None,
                "fee_gross": _money(gross),
                "reference": reference or "",
            }
        )
    return out


def _money(value: Decimal | None) -> str | None:
    return None if value is None else str(value.quantize(CENT, rounding=ROUND_HALF_UP))


def fee_gross(application: QuotaApplication, config: PartnerConfig) -> Decimal | None:
    """What the owner is paid (quota.amounts): VAT only for a VAT-liable business."""
    amounts = application_amounts(application, config)
    return amounts.gross if amounts else None


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
        "reference": application_references().references_of([application.pk]).get(application.pk, ""),
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
            "registration_date": registration.registration_date.isoformat()
            if registration.registration_date
            else None,
            "make": registration.make,
            "model": registration.model,
            "fuel": registration.fuel,
            "plate": registration.plate,
            "maker_key": registration.maker_key,
            # each field with its confidence, unread flag and source (reader or correction)
            "fields": reading_fields(registration),
            "unread": list(registration.unread),
            # per code the reader's rule that decided it (or why it was left unread), and where
            # the value lies on the display picture ([x0, y0, x1, y1], shares of its size)
            "decided_by": {str(code): str(rule) for code, rule in registration.decided_by.items()},
            "field_boxes": {
                str(code): [float(v) for v in box]
                for code, box in registration.field_boxes.items()
                if isinstance(box, list) and len(box) == 4
            },
            "check_digit": registration.check_digit,
            "holder_name": registration.holder_name,
            "holder_first_names": registration.holder_first_names,
            # the holder on the document against the billing name (registrations.eligibility):
            # true differs (leasing, company: review), false the same, null not compared
            "holder_mismatch": registration.holder_mismatch,
            "corrections": [
                {
                    "code": correction.code,
                    "before": correction.before,
                    "after": correction.after,
                    "actor": correction.actor_name,
                    "rule": correction.rule,
                    "created_at": timezone.localtime(correction.created_at).isoformat(),
                }
                for correction in FieldCorrection.objects.filter(registration=registration).order_by(
                    "created_at", "pk"
                )
            ],
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
            "iban_masked": client.account_iban_masked,
            "partner_variable": client.partner_variable,
            "campaign": client.campaign,
        },
        # the owner's text-form agreement naming the partner as third party for this year
        # (38. BImSchV § 5 Abs. 2; privacy.consents): when, which text version, which channel
        "agreement": consent_book().third_party_agreement_shown(
            user_id=registration.owner_id, year=application.legislation_year
        ),
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
            for status in sorted(catalogue.partner_moves(application.status))
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


# The export's columns, once for the CSV and the XLSX (common.tables): German headers and kinds.
APPLICATION_COLUMNS = [
    Column("Nummer", "int"), Column("Quotenjahr", "int"), Column("Status"), Column("Angelegt", "datetime"),
    Column("Geändert", "datetime"), Column("Vorname"), Column("Nachname"), Column("Firma"), Column("Haltertyp"),
    Column("E-Mail"), Column("FIN"), Column("Fahrzeugklasse"), Column("Erstzulassung", "date"),
    Column("Unterpartner"), Column("Anteil Unterpartner (%)", "decimal", csv_format=lambda v: _german_money(v)),
    Column("Einzelvertrag"), Column("Prämie brutto (EUR)", "money", csv_format=lambda v: _german_money(v)),
    Column("Kampagne"), Column("Partnervariable"),
    # the text-form agreement naming the partner as third party for the year (38. BImSchV § 5)
    Column("Vereinbarung Dritter (Datum)", "date"), Column("Vereinbarung Dritter (Uhrzeit)", "time"),
    Column("Vereinbarung Dritter (Textversion)"), Column("Vereinbarung Dritter (Kanal)"),
]  # fmt: skip
CSV_HEADER = headers(APPLICATION_COLUMNS)
OWNER_TYPES = {"private": "Privat", "business": "Gewerblich"}
# What the export reads, in one query (no encrypted column: nothing to decrypt per row).
CSV_COLUMNS = (
    "registration__sequence", "legislation_year", "status", "created_at", "updated_at", "client__first_name",
    "client__last_name", "client__name_of_business", "client__vehicle_owner_type", "client__is_vat_mandatory",
    "registration__owner__email",
    "registration__vin", "registration__vehicle_class", "registration__first_registration", "sub_partner__name",
    "sub_partner__fee_share_percent", "single_deal__name", "single_deal__price_net", "single_deal__vat_percent",
    "client__campaign", "client__partner_variable", "agreed_at", "agreement_version", "agreement_channel",
)  # fmt: skip
# The first text-form agreement of the owner for the application's year, in the same query.
AGREEMENT_FIELDS = (
    ("agreed_at", "created_at"),
    ("agreement_version", "version"),
    ("agreement_channel", "channel"),
)


def agreement_columns() -> dict[str, Subquery]:
    # Built per export, not at import: the consent book (accounts.consent_book) is filled in
    # privacy's AppConfig.ready().
    book = consent_book()
    return {
        name: book.third_party_agreement_column(field, user="registration__owner_id", year="legislation_year")
        for name, field in AGREEMENT_FIELDS
    }


def _german_money(value: Decimal | None) -> str:
    return "" if value is None else f"{value:.2f}".replace(".", ",")


def application_csv_rows(filters: ApplicationFilters, *, config: PartnerConfig) -> Iterator[list[Any]]:
    """The export's rows in the CSV's German text."""
    for row in application_export_rows(filters, config=config):
        yield csv_row(APPLICATION_COLUMNS, row)


def application_export_rows(filters: ApplicationFilters, *, config: PartnerConfig) -> Iterator[list[Any]]:
    """Every application of the filter, oldest first, as the export's typed rows (dates,
    Decimals: APPLICATION_COLUMNS): read through a server-side cursor in chunks, so 100,000 rows
    never sit in memory at once."""
    labels = {code: info.title("de") for code, info in catalogue.CATALOGUE.items()}
    schedule = fee_schedule(config)  # every version of the fee table, once for the export
    rows = (
        applications_filtered(filters)
        .annotate(**agreement_columns())
        .order_by("created_at", "pk")
        .values_list(*CSV_COLUMNS)
    )
    for (
        sequence, year, status, created, updated, first, last, business, owner_type, vat_mandatory, email, vin,
        vehicle_class, first_registration, sub_partner, share, deal, deal_net, deal_vat, campaign, partner_variable,
        agreed_at, agreement_version, agreement_channel,
    ) in rows.iterator(chunk_size=2000):  # fmt: skip
        # What this owner is paid (quota.amounts), as in the list and the batch.
        amounts = payout_amounts(
            config=config, year=year, vehicle_class=vehicle_class or "M1",
            liable=vat_liable(owner_type, vat_mandatory), deal_net=deal_net, deal_vat_percent=deal_vat,
            schedule=schedule, business=owner_type == "business", priced_at=created,
        )  # fmt: skip
        gross = amounts.gross if amounts else None
        yield [
            sequence, year, labels.get(status, status), created, updated,
            first, last, business, OWNER_TYPES.get(owner_type, owner_type), email, vin, vehicle_class or "M1",
            first_registration, sub_partner or "", share if sub_partner else None, deal or "", gross,
            campaign, partner_variable,
            timezone.localtime(agreed_at).date() if agreed_at else None, agreed_at,
            agreement_version or "", consent_book().consent_channel_label(agreement_channel or ""),
        ]  # fmt: skip
