from __future__ import annotations

from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection
from django_tenants.utils import schema_context

from accounts.models import LoginCode, User
from accounts.tokens import tokens_issue
from quota.models import QuotaApplication, QuotaStatus
from registrations.models import DeviceInfo
from tenants.models import Partner
from tests.factories import ApplicationFactory, ClientFactory, RegistrationFactory, UserFactory

HOST = "autohaus.localhost"


@pytest.fixture
def media(tmp_path: Any, settings: Any) -> Any:
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


def tables_text(schema: str = "p_autohaus") -> str:
    """Every row of every table of the partner's schema, as text (encrypted columns stay
    tokens: a plain value found here is stored in clear)."""
    chunks = []
    with connection.cursor() as cursor:
        cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s", [schema])
        for (table,) in cursor.fetchall():
            cursor.execute(f'SELECT t::text FROM "{schema}"."{table}" t')  # noqa: S608 - names from the catalogue
            chunks += [row[0] for row in cursor.fetchall()]
    return "\n".join(chunks)


def bearer(user: User, subdomain: str = "autohaus") -> dict[str, str]:
    return {
        "Authorization": "Bearer "
        + tokens_issue(user=user, partner=Partner.objects.get(subdomain=subdomain))["access"]
    }


def owner_with_everything(email: str, iban: str, *, paid: bool = False) -> User:
    """An owner with a registration (scans on disk), billing data, an application with its
    history, device data and a login code: every kind of row the platform keeps."""
    user = UserFactory.create(
        email=email, username=email, first_name="Ina", last_name=email.split("@")[0].title() + "mann"
    )
    registration = RegistrationFactory.create(owner=user, display_scan="")
    for name in ("zlb_scan", "resized_image"):
        default_storage.save(getattr(registration, name), ContentFile(b"\xff\xd8\xff" + email.encode()))
    registration.display_scan = default_storage.save(
        registration.zlb_scan.replace(".jpg", "-display.jpg"), ContentFile(b"\xff\xd8\xffdisplay")
    )
    registration.save(update_fields=["display_scan"])
    client = ClientFactory.create(
        owner=user, account_iban=iban, street_name="Geheimweg", first_name="Ina", last_name=user.last_name
    )
    application = ApplicationFactory.create(registration=registration, client=client)
    if paid:
        QuotaApplication.objects.filter(pk=application.pk).update(status=QuotaStatus.PAID)
    DeviceInfo.objects.create(
        registration=registration, device_type="mobile", full_user_agent_string=f"UA {email}"
    )
    from django.utils import timezone

    LoginCode.objects.create(email=email, code_hash="x" * 64, expires_at=timezone.now())
    return user


@pytest.fixture
def in_autohaus(media: Any) -> Any:
    with schema_context("p_autohaus"):
        yield
