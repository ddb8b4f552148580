from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.db import connection
from django_tenants.utils import schema_context

from registrations.models import SEQUENCE_NAME

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
