"""The embedded PostgreSQL (pgserver) used when DATABASE_URL is not set.

It lives under var/pgdata and keeps running between commands, so a second `make run`
and every test run reuse it; `get_server` is idempotent and returns at once when the
server is already up.
"""

from __future__ import annotations

import os
from pathlib import Path


def embedded_database_url(base_dir: Path) -> str:
    run_dir = base_dir / "var" / "run"
    run_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    # pgserver asks platformdirs for a runtime directory, which wants one of mode 0700.
    os.environ.setdefault("XDG_RUNTIME_DIR", str(run_dir))
    import pgserver  # imported here: production never starts an embedded server

    data_dir = Path(os.environ.get("EMBEDDED_PGDATA", base_dir / "var" / "pgdata"))
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    server = pgserver.get_server(data_dir, cleanup_mode=None)
    return str(server.get_uri())
