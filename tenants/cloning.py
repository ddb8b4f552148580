"""New partner schemas as copies of the migrated template schema.

django-tenants' clone_schema() builds every statement from the catalogue on each call; its
queries slow down as schemas accumulate (15 s per clone at 130 partners, measured). Here the
template is dumped once with pg_dump (DDL plus its few rows: migration records, content
types, permissions) and the script is replayed under the new name, which costs the same at
1 or 1000 partners. The dump is redone when the template's migrations change.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading
from pathlib import Path

from django.conf import settings
from django.core.cache import cache
from django.db import connection

PLACEHOLDER = "__partner_schema__"
_lock = threading.Lock()
_cached: tuple[str, str] | None = None  # (template fingerprint, script with PLACEHOLDER)


def private_file(path: Path) -> int:
    """Creates (or empties) `path` readable and writable by the platform's user alone (0600,
    whatever the umask): backups and dumps hold every partner's owners. Returns the open
    descriptor for writing."""
    descriptor = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
    os.fchmod(descriptor, 0o600)  # an existing file keeps its mode through O_CREAT
    return descriptor


def pg_dump_binary() -> str:
    configured = getattr(settings, "PG_DUMP", "")
    if configured:
        return str(configured)
    try:
        import pgserver  # the embedded server ships a pg_dump of its own version

        bundled = Path(pgserver.__file__).parent / "pginstall" / "bin" / "pg_dump"
        if bundled.exists():
            return str(bundled)
    except ImportError:
        pass
    return shutil.which("pg_dump") or "pg_dump"


def _fingerprint(template: str) -> str:
    with connection.cursor() as cursor:
        # The template's name comes from settings, not from input.
        query = "SELECT count(*) || ':' || md5(string_agg(app || '.' || name, ',' ORDER BY app, name)) FROM "
        cursor.execute(query + f'"{template}".django_migrations')
        return str(cursor.fetchone()[0])


def _dump(template: str) -> str:
    db = connection.settings_dict
    env = {**os.environ, "PGPASSWORD": str(db.get("PASSWORD") or "")}
    command = [
        pg_dump_binary(), "--schema", template, "--inserts", "--no-owner", "--no-privileges", "--no-comments",
        "--dbname", str(db["NAME"]), "--username", str(db["USER"] or "postgres"),
    ]  # fmt: skip
    if db.get("HOST"):
        command += ["--host", str(db["HOST"])]
    if db.get("PORT"):
        command += ["--port", str(db["PORT"])]
    output = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout  # noqa: S603
    statements = [
        line
        for line in output.splitlines()
        # Session settings (search_path among them) would stay on Django's connection, and
        # psql meta-commands are not SQL; every object in the dump is schema-qualified.
        if not line.startswith(("SET ", "SELECT pg_catalog.set_config", "\\", "--"))
    ]
    return re.sub(rf"\b{re.escape(template)}\b", PLACEHOLDER, "\n".join(statements))


def template_script(template: str) -> str:
    """The template's script, per process and in the shared cache: a fresh web worker's first
    provisioning (the console's Save) would otherwise wait for pg_dump (seconds)."""
    global _cached
    fingerprint = _fingerprint(template)
    with _lock:
        if _cached is None or _cached[0] != fingerprint:
            key = f"tenants:template-script:{template}:{fingerprint}"
            script = cache.get(key)
            if script is None:
                script = _dump(template)
                cache.set(key, script, timeout=7 * 24 * 3600)
            _cached = (fingerprint, script)
        return _cached[1]


def template_clone(template: str, schema_name: str) -> None:
    """Create `schema_name` as a copy of the template (inside the caller's transaction)."""
    script = template_script(template)
    with connection.cursor() as cursor:
        cursor.execute(script.replace(PLACEHOLDER, schema_name))
