"""Partner-area money path tests: the autohaus demo partner with fees, VAT shown and a payout
account; staff signed in over HTTP (tests/partner_staff.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context

from registrations.models import SEQUENCE_NAME
from staff.models import StaffMember
from tenants.directory import directory
from tenants.models import Partner
from tests.partner_staff import partner_session, staff_member

SCHEMAS = ("p_autohaus", "p_stadtwerk", "p_wallbox")


@pytest.fixture(autouse=True)
def _sequences_kept(django_db_setup: None, django_db_blocker: object) -> Iterator[None]:
    """These tests upload and seed registrations, which draw numbers from each partner's
    sequence; a rollback does not give them back (nextval is outside transactions). Later tests
    expect a partner's numbering to start fresh, so the counters are put back afterwards."""
    with django_db_blocker.unblock():  # type: ignore[attr-defined]
        saved = {}
        for schema in SCHEMAS:
            with schema_context(schema), connection.cursor() as cursor:
                cursor.execute(f"SELECT last_value, is_called FROM {SEQUENCE_NAME}")  # noqa: S608
                saved[schema] = cursor.fetchone()
    yield
    with django_db_blocker.unblock():  # type: ignore[attr-defined]
        for schema, (value, called) in saved.items():
            with schema_context(schema), connection.cursor() as cursor:
                cursor.execute("SELECT setval(%s, %s, %s)", [SEQUENCE_NAME, value, called])


HOST = "autohaus.localhost"
OTHER_HOST = "stadtwerk.localhost"
API = "/api/partner/"
PAYOUT = {"name": "Autohaus Sonnenschein GmbH", "iban": "DE89 3704 0044 0532 0130 00", "bic": "COBADEFFXXX"}


def money_config(partner: Partner, **changes: Any) -> None:
    """Fees for this year (M1 85 €, N1 120 €, 19 % VAT), VAT shown, the payout account."""
    year = timezone.localdate().year
    config = {
        **partner.config,
        "fees": [
            {"legislation_year": year, "vehicle_class": "M1", "client_fee": "85.00", "vat_percentage": "19"},
            {"legislation_year": year, "vehicle_class": "N1", "client_fee": "120.00", "vat_percentage": "19"},
        ],
        "display_vat": True,
        "payout_account": PAYOUT,
        **changes,
    }
    partner.config = config
    partner.save()
    directory.clear()  # the next request reads the partner again


@pytest.fixture
def autohaus(db: None, tmp_path: Any, settings: Any) -> Iterator[Partner]:
    settings.MEDIA_ROOT = tmp_path
    partner = Partner.objects.get(subdomain="autohaus")
    money_config(partner)
    with schema_context(partner.schema_name):
        yield Partner.objects.get(pk=partner.pk)


SessionFactory = Callable[..., Client]


@pytest.fixture
def session(autohaus: Partner) -> SessionFactory:
    """`session(role)`: a signed-in client of that role on the autohaus host."""

    def make(role: str = "partner_admin", host: str = HOST, partner: Partner | None = None) -> Client:
        member, password = staff_member(partner or autohaus, role=role)
        client = partner_session(Client(enforce_csrf_checks=True), host, member, password)
        client.member = member  # type: ignore[attr-defined]
        return client

    return make


@pytest.fixture
def admin(session: SessionFactory) -> Client:
    return session("partner_admin")


def member_of(client: Client) -> StaffMember:
    return client.member  # type: ignore[attr-defined,no-any-return]
