"""pg_trgm for the partner area's search (GIN indexes over upper-cased text columns, as Django's
icontains/istartswith compare: `UPPER(col::text) LIKE UPPER(%s)`).

The extension lives in the public schema, once per database: every partner schema sees it
(django-tenants puts public on each schema's search_path) and dropping a partner's schema never
drops it. It is a contrib module: the production image (postgres:16) and Debian's server have
it, the embedded development server (pgserver) does not. So the migrations create the extension
and the indexes where the server offers it, and leave both out where it does not: the search
answers the same there, only without the index. (A server that gains the extension later gets
the indexes from `index_sql`'s statements; the migrations do not run twice.)"""

from __future__ import annotations

from django.contrib.postgres.indexes import GinIndex, OpClass
from django.db import migrations
from django.db.migrations.operations.base import Operation
from django.db.models.functions import Upper

CREATE_EXTENSION = """
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') THEN
    CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public;
  END IF;
END $$;
"""


def create_extension() -> Operation:
    return migrations.RunSQL(CREATE_EXTENSION, reverse_sql=migrations.RunSQL.noop)


def index_sql(*, table: str, column: str, name: str) -> str:
    return (
        f'CREATE INDEX IF NOT EXISTS "{name}" ON "{table}" USING gin ((UPPER("{column}"::text)) gin_trgm_ops)'
    )


def trigram_index(*, model_name: str, table: str, column: str, name: str) -> Operation:
    """The index in Django's state (as the model's Meta declares it); in the database only where
    the extension is installed (the unqualified table is the schema being migrated)."""
    # The names come from the migrations, never from input.
    statement = index_sql(table=table, column=column, name=name)
    create = f"DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN {statement}; END IF; END $$;"  # noqa: S608
    return migrations.SeparateDatabaseAndState(
        state_operations=[
            migrations.AddIndex(
                model_name=model_name,
                index=GinIndex(OpClass(Upper(column), name="gin_trgm_ops"), name=name),
            )
        ],
        database_operations=[migrations.RunSQL(create, reverse_sql=f'DROP INDEX IF EXISTS "{name}"')],
    )
