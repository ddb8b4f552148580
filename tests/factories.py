"""factory_boy factories for the rows the tests need (inside whatever schema is active)."""

from __future__ import annotations

import os

import factory
from django.db import connection
from django.utils import timezone
from factory.django import DjangoModelFactory

from accounts.models import User
from billing.models import Client
from quota.models import QuotaApplication, QuotaStatus, StatusChange
from registrations.models import BevRegistration


def _schema() -> str:
    return str(getattr(connection, "schema_name", "public"))


# Counted from a base of its own per process: the browser tests create owners, registrations
# and vehicles from several processes (the test, `manage.py shell` helpers) in one database, so
# e-mail addresses, application numbers and VINs must not start at 0 in each.
_SEQUENCE_BASE = 500_000 + (os.getpid() % 400) * 1_000  # six digits, as the real ones


class UserFactory(DjangoModelFactory[User]):
    class Meta:
        model = User

    email = factory.Sequence(lambda n: f"owner{_SEQUENCE_BASE + n}@example.de")
    username = factory.SelfAttribute("email")
    first_name = "Erika"
    last_name = "Mustermann"


class RegistrationFactory(DjangoModelFactory[BevRegistration]):
    class Meta:
        model = BevRegistration

    owner = factory.SubFactory(UserFactory)
    # Counted from a base of its own per process: the browser tests create registrations from
    # several processes (the test, `manage.py shell` helpers) in one database.
    sequence = factory.Sequence(lambda n: _SEQUENCE_BASE + n)
    # Stored under the partner's prefix, as the scan intake does.
    zlb_scan = factory.LazyAttribute(lambda r: f"{_schema()}/scans/test-{r.sequence}.jpg")
    resized_image = factory.LazyAttribute(lambda r: f"{_schema()}/scans/test-{r.sequence}-resized.jpg")
    # the redacted display copy (registrations.redaction): what the portal and staff see
    display_scan = factory.LazyAttribute(lambda r: f"{_schema()}/scans/test-{r.sequence}-display.jpg")
    redaction = "boxes"
    original_content_type = "image/jpeg"
    width = 2000
    height = 1400
    vehicle_class = "M1"
    vin = factory.Sequence(lambda n: f"WVWZZZ1KZ{_SEQUENCE_BASE + n:08d}")
    locked_at = factory.LazyFunction(timezone.now)


class ClientFactory(DjangoModelFactory[Client]):
    class Meta:
        model = Client

    owner = factory.SubFactory(UserFactory)
    gender = "woman"
    first_name = "Erika"
    last_name = "Mustermann"
    street_name = "Hauptstraße"
    street_number = "12a"
    postal_code = "10115"
    city = "Berlin"
    account_name = "Erika Mustermann"
    account_iban = "DE89370400440532013000"
    locked_at = factory.LazyFunction(timezone.now)


class ApplicationFactory(DjangoModelFactory[QuotaApplication]):
    """An application with its first history row, as billing's lock creates it."""

    class Meta:
        model = QuotaApplication

    registration = factory.SubFactory(RegistrationFactory)
    client = factory.SubFactory(ClientFactory, owner=factory.SelfAttribute("..registration.owner"))
    legislation_year = factory.LazyFunction(lambda: timezone.localdate().year)
    status = QuotaStatus.CREATED

    @classmethod
    def _create(
        cls, model_class: type[QuotaApplication], *args: object, **kwargs: object
    ) -> QuotaApplication:
        application = super()._create(model_class, *args, **kwargs)
        StatusChange.objects.create(application=application, status=QuotaStatus.CREATED)
        return application
