"""Quota application writes. Every status change writes its history row in the same
transaction (the portal's timeline is built from it)."""

from __future__ import annotations

import datetime
from collections.abc import Iterable

from django.contrib.auth.models import Permission
from django.core.cache import cache
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from accounts.consent_book import CHANNEL_PORTAL, consent_book
from accounts.models import User
from billing.hooks import ApplicationsRefused
from billing.models import Client
from common.partner_config import PartnerConfig
from quota import catalogue
from quota.hooks import deals, vehicle_registry
from quota.models import AdvertisementClick, QuotaApplication, QuotaStatus, StatusChange
from quota.owner_mails import owner_status_mail_schedule
from registrations.eligibility import registration_holder_check
from registrations.models import BevRegistration
from registrations.vin import make_conflict
from registrations.vin import valid as vin_valid
from tenants.quota_years import allowed_registration_years, year_closed_message

VEHICLE_TAKEN = "QA001"  # this vehicle already has an application for that year
ILLEGAL_MOVE = "QA002"  # the catalogue does not allow this move
REASON_MISSING = "QA003"  # this rejection needs a reason
YEAR_NOT_ALLOWED = "QA004"  # a year the partner does not offer
MONEY_MOVE = "QA005"  # a money move (catalogue.is_money_move) asked of a generic move
MONEY_MOVE_TEXT = (
    "Auszahlungsstatus ändern nur die Abrechnungsläufe (Lauf anlegen, Position entfernen, "
    "als bezahlt markieren, Fehlschlag erfassen, neue Bankverbindung).",
    "Payout statuses are changed by settlement batches only (create a batch, remove an item, "
    "mark paid, record a failure, correct the bank account).",
)

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


def quota_applications_create(
    *, registration: BevRegistration, client: Client, config: PartnerConfig, actor: User | None
) -> list[QuotaApplication]:
    today = timezone.localdate()
    allowed = allowed_registration_years(config, today)
    years = [year for year in registration.registration_years if year in allowed]
    if registration.registration_years and not years:
        # Chosen before a cut-off, billed after it: a year the authority will not take is not sold.
        first = registration.registration_years[0]
        raise QuotaError(YEAR_NOT_ALLOWED, year_closed_message(first, today, config))
    years = years or allowed[:1]
    created = []
    attribution = deals().client_attribution(client)
    with transaction.atomic():
        # The holder on the document against the billing name: a mismatch goes to the review
        # (registrations.eligibility), it is never refused (leasing, companies).
        registration_holder_check(registration=registration, client=client)
        deal = attribution.single_deal
        if deal is not None:
            # The row lock serialises owners taking the deal's last places.
            deal = deals().single_deal_lock(deal.pk)
        for year in years:
            # Past its cap or outside its years the deal is left out; the owner's flow goes on.
            with_deal = (
                deal is not None
                and deals().single_deal_refusal(
                    deal, year=year, registration_id=registration.pk, vehicle_class=registration.vehicle_type
                )
                is None
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
                owner_status_mail_schedule(application=application, status=QuotaStatus.CREATED)
                application = vehicle_claim_provisional(application=application, registration=registration)
                created.append(application)
    return created


def client_applications_create(
    *, registration: BevRegistration, client: Client, config: PartnerConfig, actor: User | None
) -> list[QuotaApplication]:
    """quota_applications_create as billing's client lock asks for it (billing.hooks, filled in
    QuotaConfig.ready()): a refusal as billing's ApplicationsRefused, code and message kept."""
    try:
        return quota_applications_create(registration=registration, client=client, config=config, actor=actor)
    except QuotaError as refused:
        raise ApplicationsRefused(refused.code, refused.message) from None


# Why a VIN claims nothing although it is a VIN: its maker code names another make than D.1.
# Stored as the rule of field E (registrations' decided_by): the review shows it beside the VIN.
WMI_MISMATCH_RULE = "wmi_make_mismatch"

# The moves that pass an application through the partner's review: its claim is confirmed.
REVIEWED = frozenset({QuotaStatus.ENTERED, QuotaStatus.PICKED_UP})


def _vin_flag_for_review(registration: BevRegistration) -> None:
    """The VIN and D.1 disagree: each of the two the back office has not corrected yet goes to
    the review queue (confidence 0) with the reason as its rule; where both were corrected, the
    reason stays on E. Until a correction makes them agree, the VIN claims nothing."""
    locked = BevRegistration.objects.select_for_update().get(pk=registration.pk)
    flagged = [code for code in ("E", "D.1") if code not in locked.corrected]
    locked.confidence = {**locked.confidence, **dict.fromkeys(flagged, 0.0)}
    locked.decided_by = {**locked.decided_by, **dict.fromkeys(flagged or ["E"], WMI_MISMATCH_RULE)}
    locked.needs_review = True
    locked.save(update_fields=["confidence", "decided_by", "needs_review"])
    for name in ("confidence", "decided_by", "needs_review"):
        setattr(registration, name, getattr(locked, name))


def vehicle_claim_provisional(
    *, application: QuotaApplication, registration: BevRegistration, confirmed: bool = False
) -> QuotaApplication:
    """The application's provisional claim on its vehicle and year in the cross-partner registry
    (authority.registry), inside the caller's transaction: a rolled-back creation leaves no
    claim. It changes nothing the uploader sees: whether another partner has the vehicle is
    decided at review and by the authority submission, never told in the upload's answer.

    Only a VIN that passes its own checks claims (registrations.vin.valid: plausible, ISO check
    digit where mandatory, field 3's KBA check digit where the document has it, and its maker
    code against D.1 where both are known): a misread or made-up VIN neither takes a vehicle from
    its owner nor is refused as somebody else's. A maker code that names another make than D.1
    also flags the VIN for review, with the reason as its rule."""
    vin = vehicle_registry().vin_normalise(registration.vin)
    if not vin_valid(vin, registration.check_digit or None):
        return application
    if make_conflict(vin, registration.make):
        _vin_flag_for_review(registration)
        return application
    vehicle_registry().vehicle_claim(
        vin=vin,
        legislation_year=application.legislation_year,
        application_id=application.pk,
        confirmed=confirmed,
    )
    return application


def vehicle_claims_move(*, registration: BevRegistration) -> list[QuotaApplication]:
    """After a corrected VIN, field 3 or D.1: each application of the registration that may hold
    a claim (not released, not spent at the authority, not a double registration) frees the old
    VIN's claim and claims the new one, in the caller's transaction: the old vehicle is free and
    the new one claimed in the same commit, never both or neither. An application past review
    claims the new VIN confirmed (and meets its conflicts at once, as its review would)."""
    moved = []
    keep = catalogue.RELEASES_VEHICLE | catalogue.SPENT_STATUSES | {QuotaStatus.DOUBLE_REGISTRATION}
    for application in (
        QuotaApplication.objects.select_for_update()
        .filter(registration=registration)
        .exclude(status__in=keep)
    ):
        vehicle_registry().vehicle_release(application_id=application.pk)
        reviewed = application.status in REVIEWED
        vehicle_claim_provisional(application=application, registration=registration, confirmed=reviewed)
        if reviewed:
            vehicle_registry().vehicle_confirm(application_id=application.pk)
        moved.append(application)
    return moved


# What the reviewing partner learns of a conflict, and only at review (issue 47): that there is
# one and who decides it; nothing of the other partner or application.
CONFLICT_NOTICE = (
    "Mögliche Doppelregistrierung: Für dieses Fahrzeug liegt für {year} ein weiterer geprüfter "
    "Antrag vor. Die Plattform entscheidet; es zählt die frühere Einreichung beim "
    "Umweltbundesamt.",
    "Possible double registration: another reviewed application exists for this vehicle for "
    "{year}. The platform decides; the earlier submission to the Federal Environment Agency counts.",
)


def registry_conflict_notice(*, application_id: int, status: str, language: str = "de") -> str:
    """The notice of the review's answer when the application's confirmed claim meets another
    one ('' otherwise): given only for a move that passed review."""
    if status not in REVIEWED:
        return ""
    conflicts = vehicle_registry().open_conflicts(application_id=application_id)
    if not conflicts:
        return ""
    text = CONFLICT_NOTICE[1] if language == "en" else CONFLICT_NOTICE[0]
    return text.format(year=conflicts[0].legislation_year)


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
        owner_status_mail_schedule(application=application, status=status)  # on commit (quota.owner_mails)
        if status in catalogue.RELEASES_VEHICLE:
            vehicle_registry().vehicle_release(application_id=application.pk)
        elif status in REVIEWED:
            # passed the partner's review: the claim counts from now on (authority.registry)
            vehicle_registry().vehicle_confirm(application_id=application.pk)
    return application


def quota_application_move_by_hand(
    *, application: QuotaApplication, status: str, actor: User | None, reason: str = ""
) -> QuotaApplication:
    """A move staff make by hand (partner API, Django admin): the catalogue's, but never a money
    move (catalogue.MONEY_STATES): those belong to operations.settlement."""
    with transaction.atomic():
        current = (
            QuotaApplication.objects.select_for_update()
            .values_list("status", flat=True)
            .get(pk=application.pk)
        )
        # A money move the catalogue has: the settlement's; one it lacks it refuses below (QA002).
        if catalogue.is_money_move(current, status) and status in catalogue.allowed_moves(current):
            raise QuotaError(MONEY_MOVE, MONEY_MOVE_TEXT[0])
        return quota_application_move(application=application, status=status, actor=actor, reason=reason)


def quota_applications_move(
    *, applications: Iterable[QuotaApplication], status: str, actor: User | None, reason: str = ""
) -> tuple[list[QuotaApplication], list[tuple[QuotaApplication, str]]]:
    """Bulk move by hand: each application on its own; the ones the catalogue refuses (and
    every money move) are reported."""
    moved, refused = [], []
    for application in applications:
        try:
            moved.append(
                quota_application_move_by_hand(
                    application=application, status=status, actor=actor, reason=reason
                )
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
            deal = deals().single_deal_lock(application.single_deal_id)
            if (
                deals().single_deal_refusal(
                    deal,
                    year=period,
                    registration_id=registration.pk,
                    vehicle_class=registration.vehicle_type,
                )
                is not None
            ):
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
        owner_status_mail_schedule(application=new, status=QuotaStatus.CREATED)
        new = vehicle_claim_provisional(application=new, registration=registration)
        # The dialog needs the year's terms and the privacy notice ticked (privacy.consents).
        owner = registration.owner
        consent_book().consents_record_terms(
            user=owner, config=config, years=[period], channel=CHANNEL_PORTAL
        )
        consent_book().consent_record_promotion(
            user=owner, config=config, given=email_promotion_opt_in, channel=CHANNEL_PORTAL
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
