"""The double-registration registry across partners (service level, real PostgreSQL)."""

from __future__ import annotations

import pytest
from django.db import connection
from django_tenants.utils import schema_context

from authority import registry
from authority.models import DoubleRegistration, VehicleClaim
from quota.models import QuotaStatus
from tests.authority.helpers import YEAR, move_along, submitted

pytestmark = pytest.mark.django_db
VIN = "WBY8P2C05N7K12345"


def test_a_second_application_on_another_partner_is_provisional_until_review_then_a_conflict() -> None:
    """Issue 47: nobody is refused at upload; two reviewed claims are a conflict for the
    operator's queue, decided later by the earlier submission to the authority."""
    with schema_context("p_autohaus"):
        first = submitted(subdomain="autohaus", vin=VIN)
    with schema_context("p_stadtwerk"):
        second = submitted(subdomain="stadtwerk", vin=VIN.lower())  # the same VIN, read in lower case
    assert first.status == second.status == QuotaStatus.CREATED
    assert VehicleClaim.objects.filter(confirmed_at__isnull=True).count() == 2
    assert registry.vehicle_holder(vin=VIN, legislation_year=YEAR) is None  # provisional holds nothing

    with schema_context("p_autohaus"):
        move_along(first, QuotaStatus.ENTERED)
    assert not DoubleRegistration.objects.exists()  # a provisional claim elsewhere is no conflict
    with schema_context("p_stadtwerk"):
        second = move_along(second, QuotaStatus.ENTERED)
        assert second.status == QuotaStatus.ENTERED  # nobody rejected at review
        assert all("autohaus" not in change.reason.lower() for change in second.status_changes.all())

    holder = registry.vehicle_holder(vin=VIN, legislation_year=YEAR)
    assert holder is not None and (holder.partner.subdomain, holder.application_id) == ("autohaus", first.pk)
    double = DoubleRegistration.objects.get()
    assert double.status == DoubleRegistration.Status.OPEN
    assert (double.partner.subdomain, double.application_id) == ("stadtwerk", second.pk)
    assert (double.holder_partner.subdomain, double.holder_application_id) == ("autohaus", first.pk)
    with schema_context("p_stadtwerk"):
        move_along(second, QuotaStatus.PICKED_UP)  # confirming again records no second conflict
    assert DoubleRegistration.objects.count() == 1


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
        move_along(submitted(subdomain="autohaus", vin=VIN), QuotaStatus.ENTERED)
    with schema_context("p_stadtwerk"):
        other_year = move_along(submitted(subdomain="stadtwerk", vin=VIN, year=YEAR + 1), QuotaStatus.ENTERED)
        other_vehicle = move_along(
            submitted(subdomain="stadtwerk", vin="WBY8P2C05N7K99999"), QuotaStatus.ENTERED
        )
        no_vin = move_along(submitted(subdomain="stadtwerk", vin=""), QuotaStatus.ENTERED)
    assert {a.status for a in (other_year, other_vehicle, no_vin)} == {QuotaStatus.ENTERED}
    assert VehicleClaim.objects.count() == 3  # the one without a VIN claims nothing
    assert not DoubleRegistration.objects.exists()


def test_the_same_vehicle_uploaded_again_on_the_same_partner_is_a_conflict_at_review_too() -> None:
    with schema_context("p_autohaus"):
        first = move_along(submitted(subdomain="autohaus", vin=VIN), QuotaStatus.ENTERED)
        again = submitted(subdomain="autohaus", vin=VIN)
        assert again.status == QuotaStatus.CREATED and not DoubleRegistration.objects.exists()
        move_along(again, QuotaStatus.ENTERED)
    double = DoubleRegistration.objects.get()
    assert (double.application_id, double.holder_application_id) == (again.pk, first.pk)


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
        second = move_along(submitted(subdomain="stadtwerk", vin=VIN), QuotaStatus.ENTERED)

    assert second.status == QuotaStatus.ENTERED
    kept = VehicleClaim.objects.filter(partner__subdomain="autohaus", application_id=first.pk).first()
    assert (kept is None) is frees
    # a kept claim that had passed review meets the new one in the queue; a provisional one not
    reviewed = QuotaStatus.ENTERED in path
    assert DoubleRegistration.objects.filter(status="open").exists() is (not frees and reviewed)
    holder = registry.vehicle_holder(vin=VIN, legislation_year=YEAR)
    assert holder is not None
    assert holder.partner.subdomain == ("autohaus" if not frees and reviewed else "stadtwerk")


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


def test_claiming_again_is_idempotent_and_only_one_submission_holds_the_vehicle() -> None:
    with schema_context("p_autohaus"):
        first = submitted(subdomain="autohaus", vin=VIN)
        again = registry.vehicle_claim(vin=VIN, legislation_year=YEAR, application_id=first.pk)
        assert again is not None and again.won
        assert registry.vehicle_submit(vin=VIN, legislation_year=YEAR, application_id=first.pk) is None
        assert registry.vehicle_submit(vin=VIN, legislation_year=YEAR, application_id=first.pk) is None
    assert VehicleClaim.objects.count() == 1
    with schema_context("p_stadtwerk"):
        second = submitted(subdomain="stadtwerk", vin=VIN)
        claim = registry.vehicle_claim(vin=VIN, legislation_year=YEAR, application_id=second.pk)
        assert claim is not None and not claim.won  # another application went to the authority
        earlier = registry.vehicle_submit(vin=VIN, legislation_year=YEAR, application_id=second.pk)
    assert earlier is not None and earlier.application_id == first.pk
    assert VehicleClaim.objects.filter(submitted_at__isnull=False).count() == 1
    # the refused submission is a conflict for the operator's queue, nothing else changed
    assert DoubleRegistration.objects.get().application_id == second.pk
    assert second.status == QuotaStatus.CREATED


def test_the_registry_is_rebuilt_under_a_new_key(settings) -> None:  # type: ignore[no-untyped-def]
    from django.core.management import call_command

    with schema_context("p_autohaus"):
        first = move_along(submitted(subdomain="autohaus", vin=VIN), QuotaStatus.ENTERED)
    with schema_context("p_stadtwerk"):
        second = submitted(subdomain="stadtwerk", vin=VIN)
    settings.VIN_HASH_KEY = "rotated-key"
    assert registry.vehicle_holder(vin=VIN, legislation_year=YEAR) is None

    call_command("vehicle_registry_rebuild", verbosity=0)

    holder = registry.vehicle_holder(vin=VIN, legislation_year=YEAR)
    assert holder is not None and (holder.partner.subdomain, holder.application_id) == ("autohaus", first.pk)
    # the review's confirmation survives the rebuild; the unreviewed one stays provisional
    provisional = VehicleClaim.objects.get(partner__subdomain="stadtwerk")
    assert provisional.application_id == second.pk and provisional.confirmed_at is None


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


def test_only_a_vin_that_passes_its_checks_claims_the_vehicle() -> None:
    """A VIN whose field 3 (KBA check digit) disagrees, or that is no VIN at all, claims
    nothing: it neither takes the vehicle from the application with the right document nor is
    refused as a double registration itself."""
    from registrations.vin import kba_check_digit

    right = kba_check_digit(VIN)
    wrong = "0" if right != "0" else "1"
    with schema_context("p_stadtwerk"):
        squat = submitted(subdomain="stadtwerk", vin=VIN, check_digit=wrong)
        garbled = submitted(subdomain="stadtwerk", vin="WBY8P2C05N7K1234O")  # O where a digit belongs
    with schema_context("p_autohaus"):
        owner = submitted(subdomain="autohaus", vin=VIN, check_digit=right)

    assert squat.status == QuotaStatus.CREATED and garbled.status == QuotaStatus.CREATED
    assert owner.status == QuotaStatus.CREATED
    claim = VehicleClaim.objects.get()
    assert (claim.partner.subdomain, claim.application_id) == ("autohaus", owner.pk)
    assert not DoubleRegistration.objects.exists()
