"""The double-registration registry: one application per vehicle and legislation year across
every partner, keyed by HMAC-SHA256(VIN) in the public schema.

When: an application claims its vehicle when it is created (quota.services:
quota_applications_create at the client lock, quota_application_resubmit), which is the moment
the VIN is known (the reader read it at upload; nobody edits it later). An application without
a VIN claims nothing then; the UBA package claims again for every application it takes
(authority.services), so none reaches the authority unclaimed.

How: INSERT ... ON CONFLICT DO NOTHING on the unique (vin_hash, legislation_year) inside the
caller's transaction. A parallel claim of the same vehicle waits on the unique index until the
first transaction ends, then finds the winner (or wins itself if the first rolled back):
exactly one winner, whatever the partners or processes involved.

Releasing: the statuses in quota.catalogue.RELEASES_VEHICLE (final rejections, test) delete the
entry; so does erasing the owner (privacy.signals.erasure) while the application had not reached
the authority yet (SPENT_STATUSES keep theirs). The losers stay `qa_double_registration`.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass

from django.conf import settings
from django.db import connection
from django_tenants.utils import get_public_schema_name

from authority.models import DoubleRegistration, VehicleClaim

_NOT_VIN = re.compile(r"[\s\-.]")


def vin_normalise(vin: str) -> str:
    return _NOT_VIN.sub("", vin or "").upper()


def vin_hash(vin: str) -> str:
    """The registry key of a VIN (hex HMAC-SHA256 under VIN_HASH_KEY); '' for no VIN."""
    normalised = vin_normalise(vin)
    if not normalised:
        return ""
    return hmac.new(settings.VIN_HASH_KEY.encode(), normalised.encode(), hashlib.sha256).hexdigest()


def _table(model: type[VehicleClaim] | type[DoubleRegistration]) -> str:
    quote = connection.ops.quote_name
    return f"{quote(get_public_schema_name())}.{quote(model._meta.db_table)}"


def _partner_id(schema_name: str) -> int:
    from tenants.models import Partner

    return int(Partner.objects.values_list("pk", flat=True).get(schema_name=schema_name))


def current_schema() -> str:
    return str(getattr(connection, "schema_name", get_public_schema_name()))


@dataclass(frozen=True)
class Claim:
    won: bool
    holder_partner_id: int
    holder_application_id: int


def vehicle_claim(
    *, vin: str, legislation_year: int, application_id: int, schema_name: str | None = None
) -> Claim | None:
    """Claim the vehicle for this application (of the partner whose schema is active, or
    `schema_name`). None without a VIN. Idempotent: the holder claiming again wins again."""
    digest = vin_hash(vin)
    if not digest:
        return None
    partner_id = _partner_id(schema_name or current_schema())
    table = _table(VehicleClaim)
    with connection.cursor() as cursor:
        # A claim released between our INSERT and SELECT leaves no row: try again.
        for _ in range(5):
            cursor.execute(
                f"INSERT INTO {table} (vin_hash, legislation_year, partner_id, application_id, created_at) "  # noqa: S608
                "VALUES (%s, %s, %s, %s, now()) "
                "ON CONFLICT (vin_hash, legislation_year) DO NOTHING RETURNING id",
                [digest, legislation_year, partner_id, application_id],
            )
            if cursor.fetchone() is not None:
                return Claim(True, partner_id, application_id)
            cursor.execute(
                f"SELECT partner_id, application_id FROM {table} WHERE vin_hash = %s AND legislation_year = %s",  # noqa: S608
                [digest, legislation_year],
            )
            row = cursor.fetchone()
            if row is not None:
                holder = (int(row[0]), int(row[1]))
                return Claim(holder == (partner_id, application_id), *holder)
    raise RuntimeError("the vehicle registry did not settle")  # pragma: no cover


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


def vehicle_release(*, application_id: int, schema_name: str | None = None) -> int:
    """Free the registry entry this application holds (if any); the number of entries freed."""
    partner_id = _partner_id(schema_name or current_schema())
    deleted, _ = VehicleClaim.objects.filter(partner_id=partner_id, application_id=application_id).delete()
    return deleted


# Once an application reached the authority (or the money path), its vehicle's quota for that
# year is spent: erasing the owner must not let the same vehicle be registered and paid again.
# Those entries stay (a keyed hash, a partner and a now dangling application id: nothing that
# leads back to the owner without the VIN); earlier ones are freed with the application.
SPENT_STATUSES = frozenset(
    {
        "qa_sent_to_uba",
        "qa_accepted",
        "qa_to_pay",
        "qa_to_settle",
        "qa_paid",
        "qa_payment_failure",
        "qa_completed",
    }
)


def owner_erasure_release(*, schema_name: str, user_id: int, **signal_data: object) -> int:
    """Receiver of privacy.signals.erasure (sent inside the erasure's transaction, before the
    owner's rows go): frees the entries of the owner's applications that had not reached the
    authority yet. Returns how many were freed."""
    from django_tenants.utils import schema_context

    from quota.models import QuotaApplication

    with schema_context(schema_name):
        ids = list(
            QuotaApplication.objects.filter(registration__owner_id=user_id)
            .exclude(status__in=SPENT_STATUSES)
            .values_list("pk", flat=True)
        )
        if not ids:
            return 0
        deleted, _ = VehicleClaim.objects.filter(
            partner_id=_partner_id(schema_name), application_id__in=ids
        ).delete()
    return deleted


def vehicle_holder(*, vin: str, legislation_year: int) -> VehicleClaim | None:
    """The registry entry of a vehicle and year: one lookup on the unique index."""
    digest = vin_hash(vin)
    if not digest:
        return None
    return VehicleClaim.objects.filter(vin_hash=digest, legislation_year=legislation_year).first()
