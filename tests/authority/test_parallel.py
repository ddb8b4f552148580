"""Parallel submissions of the same vehicles on two partners through the real stack (gunicorn
with 2 workers x 4 threads, every middleware, committed rows): at upload every application holds
a provisional claim and nobody is refused; reviews of both at the same time meet in exactly one
conflict per vehicle; submissions at the same time leave exactly one submitted claim."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import pytest
import requests
from django.utils import timezone
from django_tenants.utils import schema_context

from accounts.tokens import tokens_issue
from authority import registry
from authority.models import DoubleRegistration, VehicleClaim
from quota.models import QuotaApplication, QuotaStatus
from tenants.models import Partner
from tenants.services import partner_provision
from tests.factories import ClientFactory, RegistrationFactory

VEHICLES = 12
YEAR = timezone.localdate().year


@pytest.fixture
def two_partners(
    django_db_blocker: Any, live_server_port: int
) -> Iterator[list[tuple[Partner, list[tuple[int, str]]]]]:
    """Two fresh partners; on each, one owner per vehicle with a completed registration and
    unlocked billing data (the lock call creates the application)."""
    tag = secrets.token_hex(3)
    made = []
    with django_db_blocker.unblock():
        for name in ("a", "b"):
            partner = partner_provision(subdomain=f"dup-{name}-{tag}", name=f"Doppelt {name}")
            locks = []
            with schema_context(partner.schema_name):
                for n in range(VEHICLES):
                    registration = RegistrationFactory.create(
                        vin=f"WVWZZZ1KZ{tag.upper()[:4]}{n:04d}", registration_years=[YEAR]
                    )
                    client = ClientFactory.create(owner=registration.owner, locked_at=None)
                    token = tokens_issue(user=registration.owner, partner=partner)["access"]
                    locks.append((client.pk, token))
            made.append((partner, locks))
    yield made
    with django_db_blocker.unblock():
        for partner, _ in made:
            partner.delete(force_drop=True)


def test_parallel_lock_calls_and_reviews_of_the_same_vehicles_on_two_partners(
    two_partners: list[tuple[Partner, list[tuple[int, str]]]], live_server_port: int, django_db_blocker: Any
) -> None:
    calls = []
    for partner, locks in two_partners:
        host = f"{partner.subdomain}.localhost:{live_server_port}"
        calls += [(host, client_id, token) for client_id, token in locks]
    # interleave the partners so the same vehicle's two calls go out together
    calls = [c for pair in zip(calls[:VEHICLES], calls[VEHICLES:], strict=True) for c in pair]

    def lock(call: tuple[str, int, str]) -> int:
        host, client_id, token = call
        response = requests.post(
            f"http://127.0.0.1:{live_server_port}/api/clients/{client_id}/lock/",
            headers={"Host": host, "Authorization": f"Bearer {token}"},
            timeout=60,
        )
        return response.status_code

    with ThreadPoolExecutor(max_workers=8) as pool:
        codes = list(pool.map(lock, calls))

    assert codes == [200] * len(calls)
    partner_ids = [p.pk for p, _ in two_partners]
    with django_db_blocker.unblock():
        statuses: dict[str, list[str]] = {}
        applications: list[tuple[str, int]] = []
        for partner, _ in two_partners:
            with schema_context(partner.schema_name):
                for pk, vin, status in QuotaApplication.objects.values_list(
                    "pk", "registration__vin", "status"
                ):
                    statuses.setdefault(vin, []).append(status)
                    applications.append((partner.schema_name, pk))
        assert len(statuses) == VEHICLES
        for vin, found in statuses.items():
            # nobody refused at upload: both provisional, neither holds the vehicle yet
            assert found == [QuotaStatus.CREATED] * 2, vin
            assert registry.vehicle_holder(vin=vin, legislation_year=YEAR) is None
        assert VehicleClaim.objects.filter(partner_id__in=partner_ids).count() == 2 * VEHICLES
        assert not DoubleRegistration.objects.filter(partner_id__in=partner_ids).exists()

    # when: both partners review the same vehicles at the same time (own connections)
    from django.db import connection

    from quota.services import quota_application_move

    def review(call: tuple[str, int]) -> None:
        schema_name, pk = call
        try:
            with schema_context(schema_name):
                quota_application_move(
                    application=QuotaApplication(pk=pk), status=QuotaStatus.ENTERED, actor=None
                )
        finally:
            connection.close()

    pairs = [c for pair in zip(applications[:VEHICLES], applications[VEHICLES:], strict=True) for c in pair]
    with django_db_blocker.unblock(), ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(review, pairs))

    # then: exactly one open conflict per vehicle, whoever confirmed first
    with django_db_blocker.unblock():
        conflicts = DoubleRegistration.objects.filter(partner_id__in=partner_ids)
        assert conflicts.count() == VEHICLES
        assert set(conflicts.values_list("status", flat=True)) == {DoubleRegistration.Status.OPEN}
        assert len(set(conflicts.values_list("vin_hash", flat=True))) == VEHICLES


def test_parallel_submissions_in_threads_have_one_winner(
    django_db_setup: None, django_db_blocker: Any
) -> None:
    """The registry alone: 40 threads, each its own connection and transaction, submit one
    vehicle: the authority takes the first, exactly one claim ends submitted."""
    from django.db import connection, transaction

    tag = secrets.token_hex(4)
    vin = f"WVWZZZ1KZ{tag.upper()}"[:17].ljust(17, "7")
    with django_db_blocker.unblock():
        schemas = list(
            Partner.objects.filter(subdomain__in=["autohaus", "stadtwerk", "wallbox"]).values_list(
                "schema_name", flat=True
            )
        )

        def claim(n: int) -> bool:
            try:
                with schema_context(schemas[n % 3]), transaction.atomic():
                    earlier = registry.vehicle_submit(
                        vin=vin, legislation_year=1990, application_id=10_000_000 + n
                    )
                    return earlier is None
            finally:
                connection.close()

        with ThreadPoolExecutor(max_workers=8) as pool:
            won = list(pool.map(claim, range(40)))
        try:
            assert won.count(True) == 1
            digest = registry.vin_hash(vin)
            assert VehicleClaim.objects.filter(vin_hash=digest, submitted_at__isnull=False).count() == 1
        finally:
            VehicleClaim.objects.filter(vin_hash=registry.vin_hash(vin)).delete()
            DoubleRegistration.objects.filter(vin_hash=registry.vin_hash(vin)).delete()


def test_two_admins_building_packages_at_once_never_send_an_application_twice(
    django_db_setup: None, django_db_blocker: Any
) -> None:
    """Two packages for the same year in parallel (own connections, committed rows): every ready
    application lands in exactly one of them, and the other package takes none of its."""
    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage
    from django.db import connection

    from authority.models import AuthoritySubmission
    from authority.services import AuthorityError, submission_create
    from quota.services import quota_application_move
    from registrations.models import BevRegistration
    from tests.authority.helpers import scan_bytes

    year = 2031
    with django_db_blocker.unblock():
        partner = partner_provision(subdomain=f"uba-par-{secrets.token_hex(3)}", name="UBA parallel")
        try:
            with schema_context(partner.schema_name):
                for n in range(8):
                    registration = RegistrationFactory.create(
                        vin=f"WVWZZZ1KZPAR{n:05d}", registration_years=[year]
                    )
                    default_storage.save(registration.zlb_scan, ContentFile(scan_bytes()))
                    client = ClientFactory.create(owner=registration.owner)
                    # a year no calendar opens: made directly, agreed a month ago
                    application = QuotaApplication.objects.create(
                        registration=registration, client=client, legislation_year=year
                    )
                    QuotaApplication.objects.filter(pk=application.pk).update(
                        created_at=timezone.now() - timedelta(days=30)
                    )
                    for status in (QuotaStatus.ENTERED, QuotaStatus.PICKED_UP):
                        application = quota_application_move(
                            application=application, status=status, actor=None
                        )

            def build(_: int) -> int:
                try:
                    [submission] = submission_create(
                        legislation_year=year, actor=None, partner_ids=[partner.pk]
                    )
                    submission.refresh_from_db()
                    return submission.count
                except AuthorityError:
                    return 0
                finally:
                    connection.close()

            with ThreadPoolExecutor(max_workers=2) as pool:
                counts = list(pool.map(build, range(2)))

            # one package sends all 8; the other (built at the same time) moves nothing and fails
            assert sorted(counts) == [0, 8]
            with schema_context(partner.schema_name):
                assert set(QuotaApplication.objects.values_list("status", flat=True)) == {
                    QuotaStatus.SENT_TO_UBA
                }
            submissions = AuthoritySubmission.objects.filter(legislation_year=year)
            assert sum(s.items.count() for s in submissions) == 8
            assert [s.status for s in submissions if s.items.exists()] == [AuthoritySubmission.Status.READY]
            assert all(
                s.status == AuthoritySubmission.Status.FAILED for s in submissions if not s.items.exists()
            )
        finally:
            for submission in AuthoritySubmission.objects.filter(legislation_year=year):
                if submission.file:
                    default_storage.delete(submission.file)
                submission.delete()
            with schema_context(partner.schema_name):
                for scan in BevRegistration.objects.values_list("zlb_scan", flat=True):
                    default_storage.delete(scan)
            partner.delete(force_drop=True)
