"""migrate_all at 200 partners, beside django-tenants' own migrate_schemas in the same run:

1. nothing to apply anywhere (every release without a migration): target under 30 s;
2. one migration pending in every partner schema (a release with a migration), migrated by
   two processes, beside the standard sequential executor.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection

from tenants.migrating import migration_leaves
from tenants.models import Partner
from tenants.services import partner_provision
from tests.bench.conftest import record
from tests.conftest import ROOT, database_url

PARTNERS = 200
PREFIX = "mig-"


@pytest.fixture(scope="module")
def partners(django_db_setup: None, django_db_blocker: Any) -> Iterator[list[str]]:
    with django_db_blocker.unblock():
        for index in range(PARTNERS):
            subdomain = f"{PREFIX}{index:03d}"
            if not Partner.objects.filter(subdomain=subdomain).exists():
                partner_provision(subdomain=subdomain, name=f"Migrate {index}")
        schemas = list(Partner.objects.exclude(schema_name="public").values_list("schema_name", flat=True))
    yield schemas
    with django_db_blocker.unblock():
        for partner in Partner.objects.filter(subdomain__startswith=PREFIX):
            partner.delete(force_drop=True)


def timed(*args: str) -> tuple[float, str]:
    env = {**os.environ, "DATABASE_URL": database_url(), "MIGRATE_PROCESSES": "2"}
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800
    )
    elapsed = time.perf_counter() - started
    assert result.returncode == 0, result.stderr[-3000:]
    return elapsed, result.stdout


def forget_last_tenants_migration(schemas: list[str]) -> None:
    """One migration 'pending' in every partner schema: the tenants app's last one, whose
    operations the router skips outside the public schema, so applying it again is safe."""
    app, name = next(leaf for leaf in migration_leaves() if leaf[0] == "tenants")
    with connection.cursor() as cursor:
        for schema in schemas:
            cursor.execute(
                f'DELETE FROM "{schema}".django_migrations WHERE app = %s AND name = %s', [app, name]
            )


def test_migrate_all_at_200_partners(partners: list[str], django_db_blocker: Any) -> None:
    assert len(partners) >= PARTNERS
    noop = [timed("migrate_all", "-v", "1")[0] for _ in range(3)]
    assert "0 of" in timed("migrate_all", "-v", "1")[1]
    stock_noop, _ = timed("migrate_schemas", "--noinput", "-v", "0")

    with django_db_blocker.unblock():
        forget_last_tenants_migration(partners)
    pending, output = timed("migrate_all", "-v", "1")
    assert f"{len(partners)} of {len(partners)}" in output
    with django_db_blocker.unblock():
        forget_last_tenants_migration(partners)
    stock_pending, _ = timed("migrate_schemas", "--tenant", "--noinput", "-v", "0")

    noop_median = sorted(noop)[1]
    record(
        "migrate_all_200_partners",
        {
            "partner_schemas": len(partners),
            "noop_migrate_all_s": round(noop_median, 2),
            "noop_samples_s": [round(value, 2) for value in noop],
            "noop_stock_migrate_schemas_s": round(stock_noop, 2),
            "noop_ratio_to_stock": round(noop_median / stock_noop, 3),
            "pending_everywhere_migrate_all_2_processes_s": round(pending, 2),
            "pending_everywhere_stock_sequential_s": round(stock_pending, 2),
            "pending_ratio_to_stock": round(pending / stock_pending, 3),
            "target": "no-op migrate_all < 30 s",
        },
    )
