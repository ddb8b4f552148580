"""migrate_all skips schemas with nothing to apply and migrates the others in parallel."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest
from django.db import connection

from tenants.migrating import migration_leaves, schemas_with_pending_migrations
from tests.conftest import ROOT, database_url


def migrate_all() -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": database_url(), "MIGRATE_PROCESSES": "2"}
    result = subprocess.run(
        [sys.executable, "manage.py", "migrate_all", "-v", "1"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result


def recorded(schema: str, app: str, name: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            f'SELECT 1 FROM "{schema}".django_migrations WHERE app = %s AND name = %s', [app, name]
        )
        return cursor.fetchone() is not None


def test_only_schemas_with_pending_migrations_are_migrated(
    django_db_setup: None, django_db_blocker: Any
) -> None:
    # The tenants app lives in the public schema only: in a partner schema its migration is
    # recorded but has no operations, so forgetting its record is a harmless "pending".
    app, name = next(leaf for leaf in migration_leaves() if leaf[0] == "tenants")
    partners = ["p_autohaus", "p_stadtwerk", "p_wallbox"]
    with django_db_blocker.unblock():
        assert (
            schemas_with_pending_migrations([*partners, "partner_template", "public"], migration_leaves())
            == []
        )
        assert schemas_with_pending_migrations(["no_such_schema"], migration_leaves()) == ["no_such_schema"]

        noop = migrate_all()
        assert "Starting migration" not in noop.stdout
        assert "migrate_all: 0 of" in noop.stdout

        # given two partner schemas and the template lack the last migration of one app
        with connection.cursor() as cursor:
            for schema in ("p_stadtwerk", "p_wallbox", "partner_template"):
                cursor.execute(
                    f'DELETE FROM "{schema}".django_migrations WHERE app = %s AND name = %s', [app, name]
                )
        assert schemas_with_pending_migrations(partners, migration_leaves()) == ["p_stadtwerk", "p_wallbox"]

        run = migrate_all()

        # then exactly those were migrated (two at once) and their records are back
        assert "migrate_all: 2 of" in run.stdout
        assert run.stdout.count("=== Starting migration") == 3  # the template, then the two partners
        assert "multiprocessing:p_stadtwerk]" in run.stdout and "multiprocessing:p_wallbox]" in run.stdout
        assert "p_autohaus" not in run.stdout
        for schema in ("p_stadtwerk", "p_wallbox", "partner_template"):
            assert recorded(schema, app, name), schema
        assert schemas_with_pending_migrations(partners, migration_leaves()) == []


@pytest.mark.django_db
def test_leaves_cover_every_app_with_migrations() -> None:
    apps = {app for app, _ in migration_leaves()}

    assert {"tenants", "accounts", "registrations", "billing", "quota", "auth", "contenttypes"} <= apps
