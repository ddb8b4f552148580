"""Quota application writes. Every status change writes its history row in the same
transaction (the portal's timeline is built from it)."""

from __future__ import annotations

import datetime

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from billing.models import Client
from quota.models import QuotaApplication, QuotaStatus, StatusChange
from registrations.models import BevRegistration
from tenants.config_schema import PartnerConfig


def allowed_registration_years(config: PartnerConfig, today: datetime.date | None = None) -> list[int]:
    year = (today or timezone.localdate()).year
    choices = config.qa_create_choices
    return [y for y, on in ((year, choices.current_year), (year + 1, choices.next_year)) if on]


def quota_applications_create(
    *, registration: BevRegistration, client: Client, config: PartnerConfig, actor: User | None
) -> list[QuotaApplication]:
    years = registration.registration_years or allowed_registration_years(config)[:1]
    created = []
    with transaction.atomic():
        for year in years:
            application, is_new = QuotaApplication.objects.get_or_create(
                registration=registration,
                legislation_year=year,
                defaults={
                    "client": client,
                    "status": QuotaStatus.CREATED,
                    "email_promotion_opt_in": client.email_promotion_opt_in,
                    "free_text": client.free_text,
                },
            )
            if is_new:
                StatusChange.objects.create(application=application, status=QuotaStatus.CREATED, actor=actor)
                created.append(application)
    return created
