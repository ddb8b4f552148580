"""Rebuild the double-registration registry from the partners' schemas (after VIN_HASH_KEY
changed, or to repair it): every application that holds its vehicle (not a double registration,
not released) claims it again under the current key, the oldest application first."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction
from django_tenants.utils import get_public_schema_name, schema_context

from authority import registry
from authority.models import VehicleClaim
from quota import catalogue
from quota.models import QuotaApplication, QuotaStatus
from tenants.models import Partner


class Command(BaseCommand):
    help = "Rebuild the vehicle registry (HMAC of the VIN per legislation year) from all partner schemas."

    def handle(self, *args: Any, **options: Any) -> None:
        holding = []
        skip = catalogue.RELEASES_VEHICLE | {QuotaStatus.DOUBLE_REGISTRATION}
        for partner in Partner.objects.exclude(schema_name=get_public_schema_name()):
            with schema_context(partner.schema_name):
                rows = (
                    QuotaApplication.objects.exclude(status__in=skip)
                    .exclude(registration__vin="")
                    .values_list("created_at", "pk", "legislation_year", "registration__vin")
                )
                holding += [(created, partner.schema_name, pk, year, vin) for created, pk, year, vin in rows]
        holding.sort()
        conflicts = 0
        with transaction.atomic():
            VehicleClaim.objects.all().delete()
            for _, schema_name, pk, year, vin in holding:
                claim = registry.vehicle_claim(
                    vin=vin, legislation_year=year, application_id=pk, schema_name=schema_name
                )
                conflicts += int(claim is not None and not claim.won)
        self.stdout.write(
            f"{len(holding) - conflicts} entries, {conflicts} conflicting applications (left as they are)"
        )
