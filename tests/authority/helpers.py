"""Rows for the authority tests: applications created the way billing's lock creates them
(quota_applications_create, which claims the vehicle in the registry)."""

from __future__ import annotations

import datetime
import io

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.utils import timezone
from PIL import Image

from common.partner_config import PartnerConfig
from quota.models import QuotaApplication, QuotaStatus
from quota.services import quota_application_move, quota_applications_create
from tenants.models import Partner
from tests.factories import ClientFactory, RegistrationFactory

YEAR = timezone.localdate().year


def scan_bytes(text_colour: tuple[int, int, int] = (30, 30, 30)) -> bytes:
    image = Image.new("RGB", (400, 280), (240, 235, 220))
    for x in range(40, 360):
        image.putpixel((x, 140), text_colour)
    out = io.BytesIO()
    image.save(out, "JPEG", quality=80)
    return out.getvalue()


def submitted(
    *,
    subdomain: str,
    vin: str,
    year: int = YEAR,
    with_scan: bool = False,
    agreed_days_ago: int = 20,
    **registration: object,
) -> QuotaApplication:
    """An owner's application on that partner (inside its schema, which must be active), past
    its 14-day withdrawal period unless `agreed_days_ago` says otherwise."""
    partner = Partner.objects.get(subdomain=subdomain)
    reg = RegistrationFactory.create(vin=vin, registration_years=[year], **registration)
    if with_scan:
        default_storage.save(reg.zlb_scan, ContentFile(scan_bytes()))
    client = ClientFactory.create(owner=reg.owner)
    [application] = quota_applications_create(
        registration=reg, client=client, config=PartnerConfig.model_validate(partner.config), actor=reg.owner
    )
    if agreed_days_ago:
        # the owner agreed that long ago (no consent record: the application's own date counts)
        application.created_at = timezone.now() - datetime.timedelta(days=agreed_days_ago)
        QuotaApplication.objects.filter(pk=application.pk).update(created_at=application.created_at)
    return application


def move_along(application: QuotaApplication, *statuses: str) -> QuotaApplication:
    registration = application.registration
    for status in statuses:
        application = quota_application_move(
            application=application, status=status, actor=None, reason="Test"
        )
    application.registration = registration  # kept loaded: tests read it outside the schema
    return application


READY = (QuotaStatus.ENTERED, QuotaStatus.PICKED_UP)
