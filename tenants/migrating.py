"""Migrating many schemas: find the ones with something to apply, migrate those in parallel.

`migrate` brings a schema to the leaf nodes of the migration graph and records every
migration it applies in that schema's django_migrations table (for every app, also where
the router skips an app's operations). So a schema whose table holds every leaf node has
nothing to apply. One query over all schemas reads that, instead of one migrate run per
schema, which costs about half a second each even when it applies nothing.

The check errs on the safe side: a schema without the table, or with a leaf missing (a
new migration, or a squashed migration not yet recorded under its own name), is migrated
by django-tenants as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.db import connection
from django.db.migrations.loader import MigrationLoader
from django_tenants.management.commands.migrate_schemas import Command as MigrateSchemasCommand
from django_tenants.migration_executors import MultiprocessingExecutor, StandardExecutor

# One statement reads this many schemas; a few thousand subqueries would make one huge plan.
SCHEMAS_PER_QUERY = 500


def migration_leaves() -> set[tuple[str, str]]:
    """The (app, name) pairs `migrate` brings every schema to."""
    loader = MigrationLoader(None, ignore_no_migrations=True)
    return set(loader.graph.leaf_nodes())


def schemas_with_pending_migrations(schemas: Sequence[str], leaves: Iterable[tuple[str, str]]) -> list[str]:
    """The given schemas that lack a leaf migration, in the given order."""
    leaves = sorted(set(leaves))
    if not schemas:
        return []
    if not leaves:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT table_schema FROM information_schema.tables "
            "WHERE table_name = 'django_migrations' AND table_schema = ANY(%s)",
            [list(schemas)],
        )
        found = {row[0] for row in cursor.fetchall()}
        with_table = [schema for schema in schemas if schema in found]
        complete: set[str] = set()
        leaf_values = ", ".join(["(%s, %s)"] * len(leaves))
        leaf_params = [part for leaf in leaves for part in leaf]
        for start in range(0, len(with_table), SCHEMAS_PER_QUERY):
            chunk = with_table[start : start + SCHEMAS_PER_QUERY]
            # Schema names are identifiers from the catalogue, quoted; the leaves are parameters.
            union = " UNION ALL ".join(
                f"SELECT %s AS schema_name, app, name FROM {connection.ops.quote_name(schema)}.django_migrations"  # noqa: S608
                for schema in chunk
            )
            cursor.execute(
                f"SELECT schema_name FROM ({union}) AS applied "  # noqa: S608
                f"WHERE (app, name) IN ({leaf_values}) "
                "GROUP BY schema_name HAVING count(DISTINCT (app, name)) = %s",
                [*chunk, *leaf_params, len(leaves)],
            )
            complete.update(row[0] for row in cursor.fetchall())
    return [schema for schema in schemas if schema not in complete]


def schemas_migrate(*, schemas: Sequence[str], verbosity: int = 1) -> None:
    """Run django-tenants' migrate on the given tenant schemas; several at once when there
    are several (one process each, TENANT_MULTIPROCESSING_MAX_PROCESSES at a time)."""
    if not schemas:
        return
    parser = MigrateSchemasCommand().create_parser("manage.py", "migrate_schemas")
    options = vars(parser.parse_args(["--noinput", "--skip-checks", "--verbosity", str(verbosity)]))
    executor_class = MultiprocessingExecutor if len(schemas) > 1 else StandardExecutor
    executor_class(args=(), options=options).run_migrations(tenants=list(schemas))
    # The pool's children closed their own connections; this process reconnects on use.
    connection.close()
