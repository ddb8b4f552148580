"""The double-registration registry: one application per vehicle and legislation year across
every partner, keyed by HMAC-SHA256(VIN) in the public schema.

A claim proves something only once it has been checked (issue 47):

- **Provisional at upload.** quota.services claims the vehicle when the application is created
  (quota_applications_create, quota_application_resubmit), and only for a VIN that passed
  validation (registrations.vin.valid: plausible, field 3's check digit; and its maker code
  against the make read in D.1, registrations.vin.make_conflict). A provisional claim decides
  nothing: every application of a vehicle may hold one, and nothing in any answer tells the
  uploading partner that another one exists.
- **Confirmed when the application passes review** (the partner enters it or picks it up:
  quota.services.quota_application_move calls vehicle_confirm). Only then is it compared with
  the others: two confirmed claims of one vehicle and year are a conflict, recorded for the
  platform operator's double-registration queue (DoubleRegistration, platform admin), and the
  reviewing partner learns of it from the review's answer.
- **Submitted** when the application goes out in a UBA package (vehicle_submit): the authority
  certifies the first submission per vehicle and year, so the earlier submission decides a
  conflict, never the earlier upload; a partial unique index allows one submitted claim per
  vehicle and year, and the operator's decision (authority.services.double_registration_decide)
  makes the other application `qa_double_registration`.

Every change runs inside the caller's transaction under a transaction-level advisory lock on
the vehicle and year, so parallel confirmations or submissions of the same vehicle see each
other (whatever the partners or processes involved).

Releasing: the statuses in quota.catalogue.RELEASES_VEHICLE (final rejections, test) delete the
claim and settle its open conflicts; so does erasing the owner (privacy.signals.erasure) while
the application had not reached the authority yet (quota.catalogue.SPENT_STATUSES keep theirs).

quota sits below authority and reaches this registry through its hook quota.hooks,
which AuthorityConfig.ready() fills with this module.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass

from django.conf import settings
from django.db import connection
from django.db.models import F, Q
from django.utils import timezone
from django_tenants.utils import get_public_schema_name, schema_context

from authority.models import DoubleRegistration, VehicleClaim
from quota import catalogue
from quota.models import QuotaApplication
from tenants.models import Partner

_NOT_VIN = re.compile(r"[\s\-.]")


def vin_normalise(vin: str) -> str:
    return _NOT_VIN.sub("", vin or "").upper()


def vin_hash(vin: str) -> str:
    """The registry key of a VIN (hex HMAC-SHA256 under VIN_HASH_KEY); '' for no VIN."""
    normalised = vin_normalise(vin)
    if not normalised:
        return ""
    return hmac.new(settings.VIN_HASH_KEY.encode(), normalised.encode(), hashlib.sha256).hexdigest()


def _partner_id(schema_name: str) -> int:
    return int(Partner.objects.values_list("pk", flat=True).get(schema_name=schema_name))


def current_schema() -> str:
    return str(getattr(connection, "schema_name", get_public_schema_name()))


def _vehicle_lock(digest: str, legislation_year: int) -> None:
    """Serialise every registry change of one vehicle and year until the transaction ends."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [f"vehicle:{digest}:{legislation_year}"]
        )


@dataclass(frozen=True)
class Claim:
    """This application's claim; `won` while no other application of the vehicle and year has
    been submitted to the authority."""

    won: bool
    holder_partner_id: int
    holder_application_id: int


def vehicle_claim(
    *,
    vin: str,
    legislation_year: int,
    application_id: int,
    schema_name: str | None = None,
    confirmed: bool = False,
) -> Claim | None:
    """The provisional claim of this application (of the partner whose schema is active, or
    `schema_name`) on its vehicle: made or moved to this VIN, never compared with the others
    (that is vehicle_confirm's). None without a VIN. Idempotent. `confirmed` keeps an
    application that already passed review confirmed (a corrected VIN, the rebuild)."""
    digest = vin_hash(vin)
    if not digest:
        return None
    partner_id = _partner_id(schema_name or current_schema())
    _vehicle_lock(digest, legislation_year)
    claim, _ = VehicleClaim.objects.update_or_create(
        partner_id=partner_id,
        application_id=application_id,
        defaults={"vin_hash": digest, "legislation_year": legislation_year},
    )
    if confirmed and claim.confirmed_at is None:
        claim.confirmed_at = timezone.now()
        claim.save(update_fields=["confirmed_at"])
    holder = (
        VehicleClaim.objects.filter(
            vin_hash=digest, legislation_year=legislation_year, submitted_at__isnull=False
        )
        .values_list("partner_id", "application_id")
        .first()
    )
    if holder is None or holder == (partner_id, application_id):
        return Claim(True, partner_id, application_id)
    return Claim(False, *holder)


def conflict_record(*, claim: VehicleClaim, other: VehicleClaim) -> DoubleRegistration:
    """An open conflict of `claim` (the one being reviewed or sent) with `other`, once."""
    found = (
        DoubleRegistration.objects.filter(status=DoubleRegistration.Status.OPEN)
        .filter(
            Q(
                partner_id=claim.partner_id,
                application_id=claim.application_id,
                holder_partner_id=other.partner_id,
                holder_application_id=other.application_id,
            )
            | Q(
                partner_id=other.partner_id,
                application_id=other.application_id,
                holder_partner_id=claim.partner_id,
                holder_application_id=claim.application_id,
            )
        )  # fmt: skip
        .first()
    )
    if found is not None:
        return found
    return DoubleRegistration.objects.create(
        vin_hash=claim.vin_hash,
        legislation_year=claim.legislation_year,
        partner_id=claim.partner_id,
        application_id=claim.application_id,
        holder_partner_id=other.partner_id,
        holder_application_id=other.application_id,
    )


def vehicle_confirm(*, application_id: int, schema_name: str | None = None) -> list[DoubleRegistration]:
    """The application passed review: its claim (if it has one) is confirmed and compared with
    the other confirmed claims of the vehicle and year; each one found is an open conflict for
    the operator's queue. Returns the open conflicts of this application."""
    partner_id = _partner_id(schema_name or current_schema())
    claim = VehicleClaim.objects.filter(partner_id=partner_id, application_id=application_id).first()
    if claim is None:
        return []
    _vehicle_lock(claim.vin_hash, claim.legislation_year)
    claim.refresh_from_db()
    if claim.confirmed_at is None:
        claim.confirmed_at = timezone.now()
        claim.save(update_fields=["confirmed_at"])
    others = (
        VehicleClaim.objects.filter(
            vin_hash=claim.vin_hash, legislation_year=claim.legislation_year, confirmed_at__isnull=False
        )
        .exclude(pk=claim.pk)
        .order_by("confirmed_at", "pk")
    )
    for other in others:
        conflict_record(claim=claim, other=other)
    return open_conflicts(application_id=application_id, partner_id=partner_id)


def open_conflicts(*, application_id: int, partner_id: int | None = None) -> list[DoubleRegistration]:
    """The open conflicts this application is a side of (for the review's answer)."""
    partner_id = partner_id if partner_id is not None else _partner_id(current_schema())
    return list(
        DoubleRegistration.objects.filter(status=DoubleRegistration.Status.OPEN).filter(
            Q(partner_id=partner_id, application_id=application_id)
            | Q(holder_partner_id=partner_id, holder_application_id=application_id)
        )
    )


def vehicle_submit(
    *, vin: str, legislation_year: int, application_id: int, schema_name: str | None = None
) -> VehicleClaim | None:
    """The application goes to the authority: its claim is marked submitted (made and confirmed
    if it had none). Refused (returns the other claim, nothing changed) when another
    application of the vehicle and year was submitted first: that one keeps the vehicle, and the
    conflict goes to the operator's queue. None when this submission holds the vehicle."""
    digest = vin_hash(vin)
    if not digest:
        return None
    partner_id = _partner_id(schema_name or current_schema())
    _vehicle_lock(digest, legislation_year)
    claim, _ = VehicleClaim.objects.update_or_create(
        partner_id=partner_id,
        application_id=application_id,
        defaults={"vin_hash": digest, "legislation_year": legislation_year},
    )
    earlier = (
        VehicleClaim.objects.filter(
            vin_hash=digest, legislation_year=legislation_year, submitted_at__isnull=False
        )
        .exclude(pk=claim.pk)
        .first()
    )
    if earlier is not None:
        conflict_record(claim=claim, other=earlier)
        return earlier
    now = timezone.now()
    claim.confirmed_at = claim.confirmed_at or now
    claim.submitted_at = claim.submitted_at or now
    claim.save(update_fields=["confirmed_at", "submitted_at"])
    return None


def double_registration_record(
    *, vin: str, legislation_year: int, application_id: int, claim: Claim, schema_name: str | None = None
) -> DoubleRegistration:
    return DoubleRegistration.objects.create(
        vin_hash=vin_hash(vin),
        legislation_year=legislation_year,
        partner_id=_partner_id(schema_name or current_schema()),
        application_id=application_id,
        holder_partner_id=claim.holder_partner_id,
        holder_application_id=claim.holder_application_id,
    )


def _conflicts_settle(partner_id: int, application_ids: list[int]) -> None:
    """A released claim ends the open conflicts it was a side of: nothing is left to decide."""
    DoubleRegistration.objects.filter(status=DoubleRegistration.Status.OPEN).filter(
        Q(partner_id=partner_id, application_id__in=application_ids)
        | Q(holder_partner_id=partner_id, holder_application_id__in=application_ids)
    ).update(status=DoubleRegistration.Status.WITHDRAWN, decided_at=timezone.now())


def vehicle_release(*, application_id: int, schema_name: str | None = None) -> int:
    """Free the registry entry this application holds (if any); the number of entries freed."""
    partner_id = _partner_id(schema_name or current_schema())
    deleted, _ = VehicleClaim.objects.filter(partner_id=partner_id, application_id=application_id).delete()
    _conflicts_settle(partner_id, [application_id])
    return deleted


def owner_erasure_release(*, schema_name: str, user_id: int, **signal_data: object) -> int:
    """Receiver of privacy.signals.erasure (sent inside the erasure's transaction, before the
    owner's rows go): frees the entries of the owner's applications that had not reached the
    authority yet. Returns how many were freed."""
    with schema_context(schema_name):
        ids = list(
            QuotaApplication.objects.filter(registration__owner_id=user_id)
            .exclude(status__in=catalogue.SPENT_STATUSES)
            .values_list("pk", flat=True)
        )
        if not ids:
            return 0
        partner_id = _partner_id(schema_name)
        deleted, _ = VehicleClaim.objects.filter(partner_id=partner_id, application_id__in=ids).delete()
        _conflicts_settle(partner_id, ids)
    return deleted


def vehicle_holder(*, vin: str, legislation_year: int) -> VehicleClaim | None:
    """The claim that holds a vehicle and year now: the one submitted to the authority, else
    the earliest confirmed one (a provisional claim holds nothing)."""
    digest = vin_hash(vin)
    if not digest:
        return None
    return (
        VehicleClaim.objects.filter(
            vin_hash=digest, legislation_year=legislation_year, confirmed_at__isnull=False
        )
        .order_by(F("submitted_at").asc(nulls_last=True), "confirmed_at", "pk")
        .first()
    )


def submitted_holder(*, vin: str, legislation_year: int) -> VehicleClaim | None:
    """The claim of the vehicle and year that went to the authority (at most one)."""
    digest = vin_hash(vin)
    if not digest:
        return None
    return VehicleClaim.objects.filter(
        vin_hash=digest, legislation_year=legislation_year, submitted_at__isnull=False
    ).first()
