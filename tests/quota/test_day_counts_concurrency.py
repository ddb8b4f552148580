"""The rollup's triggers under concurrent transactions (migration quota 0005): a vehicle class
corrected while another transaction adds or moves an application of that registration. Two
real connections, committed rows in a partner of their own (dropped after): each race waits
for the other transaction, and the rollup still equals a live count."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.db import connection
from django_tenants.utils import schema_context

from quota.models import QuotaApplication
from tenants.models import Partner
from tenants.services import partner_provision
from tests.day_counts import live, rolled
from tests.factories import ApplicationFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def racing(django_db_setup: None, django_db_blocker: Any) -> Iterator[Partner]:
    with django_db_blocker.unblock():
        partner = partner_provision(subdomain="rollup-race", name="Race GmbH")
        with schema_context(partner.schema_name):
            ApplicationFactory.create_batch(2)
        yield partner
        partner.delete(force_drop=True)


def _connect(schema: str) -> psycopg.Connection[Any]:
    settings = connection.settings_dict
    raw = psycopg.connect(
        host=settings["HOST"] or None,
        port=settings["PORT"] or None,
        dbname=settings["NAME"],
        user=settings["USER"],
        password=settings["PASSWORD"] or None,
        autocommit=True,
    )
    raw.execute(f'SET search_path = "{schema}", public')
    return raw


def _race(first: str, first_params: list[Any], second: str, second_params: list[Any], schema: str) -> bool:
    """`first` runs in an open transaction; `second` starts in another; returns whether the
    second waited until the first committed."""
    one, two = _connect(schema), _connect(schema)
    finished: list[float] = []

    def run_second() -> None:
        with two.transaction():
            two.execute(second, second_params)
        finished.append(time.monotonic())

    try:
        with one.transaction():
            one.execute(first, first_params)
            thread = threading.Thread(target=run_second)
            thread.start()
            time.sleep(0.5)
            waited = not finished
            committed = time.monotonic()
        thread.join(timeout=10)
        return waited and bool(finished) and finished[0] >= committed
    finally:
        one.close()
        two.close()


def test_a_class_correction_and_a_new_application_of_the_registration(racing: Partner) -> None:
    schema = racing.schema_name
    with schema_context(schema):
        application = QuotaApplication.objects.order_by("pk").first()
    assert application is not None

    waited = _race(
        "UPDATE registrations_bevregistration SET vehicle_class = 'N2' WHERE id = %s",
        [application.registration_id],
        "INSERT INTO quota_quotaapplication (registration_id, client_id, legislation_year, status,"
        " email_promotion_opt_in, free_text, created_at, updated_at)"
        " VALUES (%s, %s, 2035, 'qa_created', false, '', now(), now())",
        [application.registration_id, application.client_id],
        schema,
    )

    assert waited  # the insert holds the registration FOR SHARE: it waits for the correction
    with schema_context(schema):
        assert sum(live().values()) == 3
        assert live() == rolled()
        assert {key[3] for key in live()} >= {"N2"}


def test_a_move_and_a_class_correction_of_its_registration(racing: Partner) -> None:
    schema = racing.schema_name
    with schema_context(schema):
        application = QuotaApplication.objects.order_by("-pk").first()
    assert application is not None

    waited = _race(
        "UPDATE quota_quotaapplication SET status = 'qa_entered' WHERE id = %s",
        [application.pk],
        "UPDATE registrations_bevregistration SET vehicle_class = 'N3' WHERE id = %s",
        [application.registration_id],
        schema,
    )

    assert waited  # the correction locks the registration's applications FOR UPDATE first
    with schema_context(schema):
        assert live() == rolled()
        assert any(key[1] == "qa_entered" and key[3] == "N3" for key in live())
