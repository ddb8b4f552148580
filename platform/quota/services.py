"""Quota application writes. Every status change writes its history row in the same
transaction (the portal's timeline is built from it)."""

from __future__ import annotations

import datetime
from collections.abc import Iterable

from django.contrib.auth.models import Permission
from django.core.cache import cache
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from accounts.models import User
from authority import registry
from billing.models import Client
from operations.attribution import client_attribution, single_deal_refusal
from operations.models import SingleDeal
from privacy.consents import consent_record_promotion, consents_record_terms
from privacy.models import ConsentRecord
from quota import catalogue
from quota.models import AdvertisementClick, QuotaApplication, QuotaStatus, StatusChange
from registrations.models import BevRegistration
from tenants.config_schema import PartnerConfig

VEHICLE_TAKEN = "QA001"  # this vehicle already has an application for that year
ILLEGAL_MOVE = "QA002"  # the catalogue does not allow this move
REASON_MISSING = "QA003"  # this rejection needs a reason
YEAR_NOT_ALLOWED = "QA004"  # a year the partner does not offer

# What the owner reads on the card of a double registration: nothing of the other application.
DOUBLE_REGISTRATION_REASON = (
    "Für dieses Fahrzeug wurde für {year} bereits eine THG-Quote beantragt. "
    "Eine Quote kann je Fahrzeug und Jahr nur einmal ausgezahlt werden."
)


class QuotaError(Exception):
    def __init__(self, code: str, message: str):
        self.code = code
        self.message = message
        super().__init__(message)


def allowed_registration_years(config: PartnerConfig, today: datetime.date | None = None) -> list[int]:
    year = (today or timezone.localdate()).year
    choices = config.qa_create_choices
    return [y for y, on in ((year, choices.current_year), (year + 1, choices.next_year)) if on]


def quota_applications_create(
    *, registration: BevRegistration, client: Client, config: PartnerConfig, actor: User | None
) -> list[QuotaApplication]:
    years = registration.registration_years or allowed_registration_years(config)[:1]
    created = []
    attribution = client_attribution(client)
    with transaction.atomic():
        deal = attribution.single_deal
        if deal is not None:
            # The row lock serialises owners taking the deal's last places.
            deal = SingleDeal.objects.select_for_update().get(pk=deal.pk)
        for year in years:
            # Past its cap or outside its years the deal is left out; the owner's flow goes on.
            with_deal = (
                deal is not None
                and single_deal_refusal(deal, year=year, registration_id=registration.pk) is None
            )
            application, is_new = QuotaApplication.objects.get_or_create(
                registration=registration,
                legislation_year=year,
                defaults={
                    "client": client,
                    "status": QuotaStatus.CREATED,
                    "email_promotion_opt_in": client.email_promotion_opt_in,
                    "free_text": client.free_text,
                    "sub_partner": attribution.sub_partner,
                    "single_deal": deal if with_deal else None,
                },
            )
            if is_new:
                StatusChange.objects.create(application=application, status=QuotaStatus.CREATED, actor=actor)
                application = vehicle_claim_or_reject(application=application, vin=registration.vin)
                created.append(application)
    return created


def vehicle_claim_or_reject(*, application: QuotaApplication, vin: str) -> QuotaApplication:
    """Claim the vehicle and year in the cross-partner registry (authority.registry); a vehicle
    another application holds makes this one a double registration. Runs inside the caller's
    transaction: a rolled-back creation leaves no claim."""
    claim = registry.vehicle_claim(
        vin=vin, legislation_year=application.legislation_year, application_id=application.pk
    )
    if claim is None or claim.won:
        return application
    registry.double_registration_record(
        vin=vin, legislation_year=application.legislation_year, application_id=application.pk, claim=claim
    )
    return quota_application_move(
        application=application,
        status=QuotaStatus.DOUBLE_REGISTRATION,
        actor=None,
        reason=DOUBLE_REGISTRATION_REASON.format(year=application.legislation_year),
    )


def quota_application_move(
    *, application: QuotaApplication, status: str, actor: User | None, reason: str = ""
) -> QuotaApplication:
    """Move along the catalogue; an illegal move or a rejection without its reason is refused."""
    reason = reason.strip()
    with transaction.atomic():
        application = QuotaApplication.objects.select_for_update().get(pk=application.pk)
        if status not in catalogue.allowed_moves(application.status):
            raise QuotaError(
                ILLEGAL_MOVE,
                f"{catalogue.CATALOGUE[application.status].label} → {status}: this move is not allowed.",
            )
        if status in catalogue.REASON_REQUIRED and not reason:
            raise QuotaError(REASON_MISSING, "This rejection needs a reason.")
        application.status = status
        application.save(update_fields=["status", "updated_at"])
        StatusChange.objects.create(application=application, status=status, actor=actor, reason=reason[:500])
        if status in catalogue.RELEASES_VEHICLE:
            registry.vehicle_release(application_id=application.pk)
    return application


def quota_applications_move(
    *, applications: Iterable[QuotaApplication], status: str, actor: User | None, reason: str = ""
) -> tuple[list[QuotaApplication], list[tuple[QuotaApplication, str]]]:
    """Bulk move: each application on its own; the ones the catalogue refuses are reported."""
    moved, refused = [], []
    for application in applications:
        try:
            moved.append(
                quota_application_move(application=application, status=status, actor=actor, reason=reason)
            )
        except QuotaError as error:
            refused.append((application, error.message))
    return moved, refused


def quota_application_resubmit(
    *,
    application: QuotaApplication,
    period: int,
    config: PartnerConfig,
    actor: User,
    email_promotion_opt_in: bool,
    free_text: str,
) -> QuotaApplication:
    """The same vehicle for another allowed year (duplicate_for_new_period)."""
    if period not in allowed_registration_years(config):
        raise QuotaError(YEAR_NOT_ALLOWED, "year")
    registration = application.registration
    with transaction.atomic():
        # One application per vehicle and year: the same registration, or another upload of
        # the same vehicle (same VIN) in this partner's schema.
        BevRegistration.objects.select_for_update().get(pk=registration.pk)
        taken = QuotaApplication.objects.filter(legislation_year=period)
        if registration.vin:
            taken = taken.filter(registration__vin=registration.vin)
        else:
            taken = taken.filter(registration=registration)
        if taken.exists():
            raise QuotaError(VEHICLE_TAKEN, "vehicle")
        # The new year keeps the sub-partner, and the single deal where it covers that year.
        deal = None
        if application.single_deal_id is not None:
            deal = SingleDeal.objects.select_for_update().get(pk=application.single_deal_id)
            if single_deal_refusal(deal, year=period, registration_id=registration.pk) is not None:
                deal = None
        try:
            with transaction.atomic():
                new = QuotaApplication.objects.create(
                    registration=registration,
                    client=application.client,
                    legislation_year=period,
                    status=QuotaStatus.CREATED,
                    email_promotion_opt_in=email_promotion_opt_in,
                    free_text=free_text[:2000],
                    sub_partner_id=application.sub_partner_id,
                    single_deal=deal,
                )
        except IntegrityError:
            raise QuotaError(VEHICLE_TAKEN, "vehicle") from None
        StatusChange.objects.create(application=new, status=QuotaStatus.CREATED, actor=actor)
        new = vehicle_claim_or_reject(application=new, vin=registration.vin)
        # The dialog needs the year's terms and the privacy notice ticked (privacy.consents).
        owner = registration.owner
        consents_record_terms(user=owner, config=config, years=[period], channel=ConsentRecord.Channel.PORTAL)
        consent_record_promotion(
            user=owner, config=config, given=email_promotion_opt_in, channel=ConsentRecord.Channel.PORTAL
        )
    return new


ADVERTISEMENT_CLICK_WINDOW = datetime.timedelta(minutes=1)


def advertisement_click_record(*, advertisement_id: int, user: User | None) -> AdvertisementClick:
    """One click per user and advertisement per minute: a repeat within the minute (a double
    tap, a script) answers with the click already counted. The user's row lock serialises
    parallel clicks, so two at once cannot both count."""
    if user is None:
        return AdvertisementClick.objects.create(advertisement_id=advertisement_id, user=None)
    with transaction.atomic():
        list(User.objects.select_for_update().filter(pk=user.pk).values_list("pk", flat=True))
        recent = (
            AdvertisementClick.objects.filter(
                advertisement_id=advertisement_id,
                user=user,
                created_at__gt=timezone.now() - ADVERTISEMENT_CLICK_WINDOW,
            )
            .order_by("-created_at")
            .first()
        )
        if recent is not None:
            return recent
        return AdvertisementClick.objects.create(advertisement_id=advertisement_id, user=user)


def back_office_staff_ensure(*, username: str, email: str, password: str) -> User:
    """A staff user of the current partner schema who may follow and move applications."""
    user, _ = User.objects.get_or_create(username=username, defaults={"email": email})
    user.is_staff = True
    user.set_password(password)
    user.save()
    user.user_permissions.set(
        Permission.objects.filter(
            content_type__app_label="quota",
            codename__in=["view_quotaapplication", "change_quotaapplication", "view_statuschange"],
        )
    )
    return user


COUNT_KEY = "status, legislation_year, vehicle_class, sub_partner_id, single_deal_id"
DAY_COUNT_KEY = f"day, {COUNT_KEY}"


def _day_counts_cache_key(schema_name: str) -> str:
    return f"quota:day-counts:compacted:{schema_name}"


def application_day_counts_compacted() -> tuple[int, int] | None:
    """(rows left, last row id) after this schema's last compaction, if the cache knows it."""
    value = cache.get(_day_counts_cache_key(str(connection.schema_name)))  # type: ignore[attr-defined]
    return None if value is None else (int(value[0]), int(value[1]))


def application_day_counts_compact(*, unless_unchanged: bool = False) -> int | None:
    """Fold the rollups' signed rows (quota.models.ApplicationDayCount and ApplicationCount)
    into one row per key, dropping keys that sum to zero, in the current partner schema. One statement
    deletes the rows it sums, so rows that other transactions append meanwhile stay as they
    are and no count is lost or doubled; a second compaction of the same schema at the same
    time skips (advisory lock). With `unless_unchanged`, nothing is done when no row was
    appended since the last compaction. Returns the rows left, None when skipped."""
    schema_name = str(connection.schema_name)  # type: ignore[attr-defined]
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(hashtext(current_schema() || '.quota_day_counts'))")
        if not cursor.fetchone()[0]:
            return None
        cursor.execute("SELECT max(id) FROM quota_applicationdaycount")
        last = cursor.fetchone()[0] or 0
        known = application_day_counts_compacted()
        if unless_unchanged and known is not None and known[1] == last:
            return None
        for table, key in (
            ("quota_applicationcount", COUNT_KEY),
            ("quota_applicationdaycount", DAY_COUNT_KEY),
        ):
            cursor.execute(
                f"WITH gone AS (DELETE FROM {table} RETURNING {key}, count)"  # noqa: S608 - constants
                f" INSERT INTO {table} ({key}, count)"
                f" SELECT {key}, sum(count) FROM gone GROUP BY {key} HAVING sum(count) <> 0"
                " RETURNING id"
            )
        ids = [row[0] for row in cursor.fetchall()]
        left = len(ids)
        last = max(ids, default=last)
        transaction.on_commit(
            lambda: cache.set(_day_counts_cache_key(schema_name), (left, last), timeout=30 * 24 * 3600)
        )
        return left
