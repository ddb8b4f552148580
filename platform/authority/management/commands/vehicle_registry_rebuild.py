"""Rebuild the double-registration registry from the partners' schemas (after VIN_HASH_KEY
changed, or to repair it): every application that may hold its vehicle (not a double
registration, not released) claims it again under the current key, the oldest application first:
confirmed once it passed review, submitted once it is in a UBA package."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction
from django_tenants.utils import get_public_schema_name, schema_context

from authority import registry
from authority.models import AuthoritySubmissionItem, VehicleClaim
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
                    .values_list("created_at", "pk", "legislation_year", "registration__vin", "status")
                )
                holding += [
                    (created, partner.schema_name, partner.pk, pk, year, vin, status)
                    for created, pk, year, vin, status in rows
                ]
        holding.sort()
        sent = set(AuthoritySubmissionItem.objects.values_list("partner_id", "application_id"))
        conflicts = 0
        with transaction.atomic():
            VehicleClaim.objects.all().delete()
            for _, schema_name, partner_id, pk, year, vin, status in holding:
                if (partner_id, pk) in sent:
                    earlier = registry.vehicle_submit(
                        vin=vin, legislation_year=year, application_id=pk, schema_name=schema_name
                    )
                    conflicts += int(earlier is not None)
                else:
                    registry.vehicle_claim(
                        vin=vin,
                        legislation_year=year,
                        application_id=pk,
                        schema_name=schema_name,
                        confirmed=status != QuotaStatus.CREATED,
                    )
        self.stdout.write(
            f"{len(holding) - conflicts} entries, {conflicts} conflicting applications (left as they are)"
        )
