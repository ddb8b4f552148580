"""The double-registration registry across partners (service level, real PostgreSQL)."""

from __future__ import annotations

import pytest
from django.db import connection
from django_tenants.utils import schema_context

from authority import registry
from authority.models import DoubleRegistration, VehicleClaim
from quota.models import QuotaStatus
from quota.services import quota_application_move
from tenants.models import Partner
from tests.authority.helpers import YEAR, move_along, submitted

pytestmark = pytest.mark.django_db
VIN = "WBY8P2C05N7K12345"


def test_the_second_application_for_a_vehicle_and_year_on_another_partner_is_a_double_registration() -> None:
    with schema_context("p_autohaus"):
        first = submitted(subdomain="autohaus", vin=VIN)
    with schema_context("p_stadtwerk"):
        second = submitted(subdomain="stadtwerk", vin=VIN.lower())  # the same VIN, read in lower case

        assert first.status == QuotaStatus.CREATED
        assert second.status == QuotaStatus.DOUBLE_REGISTRATION
        last = second.status_changes.last()
        assert last is not None and last.actor is None
        assert str(YEAR) in last.reason and "bereits" in last.reason
        assert "autohaus" not in last.reason.lower()  # nothing of the other partner

    claim = VehicleClaim.objects.get()
    assert claim.partner == Partner.objects.get(subdomain="autohaus") and claim.application_id == first.pk
    double = DoubleRegistration.objects.get()
    assert (double.partner.subdomain, double.application_id) == ("stadtwerk", second.pk)
    assert (double.holder_partner.subdomain, double.holder_application_id) == ("autohaus", first.pk)


def test_the_public_schema_holds_no_plain_vin() -> None:
    with schema_context("p_autohaus"):
        submitted(subdomain="autohaus", vin=VIN)
    with connection.cursor() as cursor:
        cursor.execute("SELECT row_to_json(c)::text FROM public.authority_vehicleclaim c")
        rows = [r[0] for r in cursor.fetchall()]
    assert rows and all(VIN not in row and VIN.lower() not in row for row in rows)
    assert (
        registry.vin_hash(VIN)
        == registry.vin_hash(" wby8p2c05n7k12345 ")
        != registry.vin_hash("WBY8P2C05N7K12346")
    )
    assert len(registry.vin_hash(VIN)) == 64


def test_the_key_comes_from_the_settings(settings) -> None:  # type: ignore[no-untyped-def]
    before = registry.vin_hash(VIN)
    settings.VIN_HASH_KEY = "another-key"
    assert registry.vin_hash(VIN) != before


def test_another_year_or_another_vehicle_is_no_double_registration() -> None:
    with schema_context("p_autohaus"):
        submitted(subdomain="autohaus", vin=VIN)
    with schema_context("p_stadtwerk"):
        other_year = submitted(subdomain="stadtwerk", vin=VIN, year=YEAR + 1)
        other_vehicle = submitted(subdomain="stadtwerk", vin="WBY8P2C05N7K99999")
        no_vin = submitted(subdomain="stadtwerk", vin="")
    assert {a.status for a in (other_year, other_vehicle, no_vin)} == {QuotaStatus.CREATED}
    assert VehicleClaim.objects.count() == 3  # the one without a VIN claims nothing


def test_the_same_vehicle_uploaded_again_on_the_same_partner_is_a_double_registration_too() -> None:
    with schema_context("p_autohaus"):
        submitted(subdomain="autohaus", vin=VIN)
        again = submitted(subdomain="autohaus", vin=VIN)
    assert again.status == QuotaStatus.DOUBLE_REGISTRATION


@pytest.mark.parametrize(
    ("path", "frees"),
    [
        ((QuotaStatus.MANUALLY_REJECTED,), True),
        ((QuotaStatus.REJECTED_BY_PARTNER,), True),
        ((QuotaStatus.NOT_AN_ELECTRIC_CAR,), True),
        ((QuotaStatus.TEST,), True),
        (
            (
                QuotaStatus.ENTERED,
                QuotaStatus.PICKED_UP,
                QuotaStatus.SENT_TO_UBA,
                QuotaStatus.REJECTED_BY_AUTHORITY,
            ),
            True,
        ),
        ((QuotaStatus.COLOR_COPY_UNREADABLE,), False),
        ((QuotaStatus.ENTERED, QuotaStatus.PICKED_UP, QuotaStatus.SENT_TO_UBA, QuotaStatus.ACCEPTED), False),
    ],
)
def test_a_final_rejection_frees_the_vehicle_for_a_new_application(
    path: tuple[str, ...], frees: bool
) -> None:
    with schema_context("p_autohaus"):
        first = submitted(subdomain="autohaus", vin=VIN)
        move_along(first, *path)
    with schema_context("p_stadtwerk"):
        second = submitted(subdomain="stadtwerk", vin=VIN)

    assert (second.status == QuotaStatus.CREATED) is frees
    holder = registry.vehicle_holder(vin=VIN, legislation_year=YEAR)
    assert holder is not None
    assert holder.partner.subdomain == ("stadtwerk" if frees else "autohaus")


def test_an_erased_application_frees_its_entry() -> None:
    with schema_context("p_autohaus"):
        first = submitted(subdomain="autohaus", vin=VIN)
        assert registry.vehicle_release(application_id=first.pk) == 1
        assert registry.vehicle_release(application_id=first.pk) == 0
    assert registry.vehicle_holder(vin=VIN, legislation_year=YEAR) is None


def test_a_rolled_back_creation_leaves_no_claim() -> None:
    from django.db import transaction

    with schema_context("p_autohaus"), pytest.raises(RuntimeError), transaction.atomic():
        submitted(subdomain="autohaus", vin=VIN)
        raise RuntimeError("the lock failed later")
    assert registry.vehicle_holder(vin=VIN, legislation_year=YEAR) is None


def test_the_holder_claiming_again_still_wins_and_a_loser_stays_refused() -> None:
    with schema_context("p_autohaus"):
        first = submitted(subdomain="autohaus", vin=VIN)
        again = registry.vehicle_claim(vin=VIN, legislation_year=YEAR, application_id=first.pk)
    assert again is not None and again.won
    with schema_context("p_stadtwerk"):
        second = submitted(subdomain="stadtwerk", vin=VIN)
        with pytest.raises(Exception, match="not allowed"):
            quota_application_move(application=second, status=QuotaStatus.ENTERED, actor=None)


def test_the_registry_is_rebuilt_under_a_new_key(settings) -> None:  # type: ignore[no-untyped-def]
    from django.core.management import call_command

    with schema_context("p_autohaus"):
        first = submitted(subdomain="autohaus", vin=VIN)
    with schema_context("p_stadtwerk"):
        submitted(subdomain="stadtwerk", vin=VIN)  # the double registration claims nothing
    settings.VIN_HASH_KEY = "rotated-key"
    assert registry.vehicle_holder(vin=VIN, legislation_year=YEAR) is None

    call_command("vehicle_registry_rebuild", verbosity=0)

    holder = registry.vehicle_holder(vin=VIN, legislation_year=YEAR)
    assert holder is not None and (holder.partner.subdomain, holder.application_id) == ("autohaus", first.pk)


def test_erasing_an_owner_frees_entries_that_had_not_reached_the_authority() -> None:
    with schema_context("p_autohaus"):
        early = submitted(subdomain="autohaus", vin=VIN)
        sent = move_along(
            submitted(subdomain="autohaus", vin="WBY8P2C05N7K77777"),
            QuotaStatus.ENTERED, QuotaStatus.PICKED_UP, QuotaStatus.SENT_TO_UBA,
        )  # fmt: skip

    freed_early = registry.owner_erasure_release(
        schema_name="p_autohaus", user_id=early.registration.owner_id
    )
    freed_sent = registry.owner_erasure_release(schema_name="p_autohaus", user_id=sent.registration.owner_id)

    assert (freed_early, freed_sent) == (1, 0)
    assert registry.vehicle_holder(vin=VIN, legislation_year=YEAR) is None
    kept = registry.vehicle_holder(vin="WBY8P2C05N7K77777", legislation_year=YEAR)
    assert kept is not None and kept.application_id == sent.pk  # the spent quota stays claimed
