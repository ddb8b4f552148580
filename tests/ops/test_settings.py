"""Settings read by django-environ: DATABASE_URL keeps every libpq option, wrong values name
their variable. Each case imports the settings module in a fresh process with its own env."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRINT_DATABASE = (
    "import json; from config import settings; print('DB' + json.dumps(settings.DATABASES['default']))"
)


def import_settings(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {key: value for key, value in os.environ.items() if not key.startswith(("DATABASE_URL", "CONN_"))}
    base.update({"PYTHONPATH": f"{ROOT}:{ROOT / 'platform'}", "DEBUG": "1", **env})
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=base, capture_output=True, text=True, timeout=60
    )


def database(**env: str) -> dict[str, object]:
    result = import_settings(PRINT_DATABASE, **env)
    assert result.returncode == 0, result.stderr[-2000:]
    line = next(line for line in result.stdout.splitlines() if line.startswith("DB"))
    return json.loads(line.removeprefix("DB"))  # type: ignore[no-any-return]


def test_database_url_keeps_sslmode_options_and_connect_timeout() -> None:
    url = (
        "postgresql://thg:p%40ss@db.internal:5433/thg"
        "?sslmode=require&options=-c%20statement_timeout%3D5000&connect_timeout=3"
        "&application_name=thg-web"
    )

    db = database(DATABASE_URL=url)

    assert db["ENGINE"] == "django_tenants.postgresql_backend"
    assert (db["NAME"], db["USER"], db["PASSWORD"], db["HOST"], db["PORT"]) == (
        "thg",
        "thg",
        "p@ss",
        "db.internal",
        "5433",
    )
    assert db["OPTIONS"] == {
        "sslmode": "require",
        "options": "-c statement_timeout=5000",
        "connect_timeout": 3,
        "application_name": "thg-web",
    }
    assert db["CONN_MAX_AGE"] == 60 and db["CONN_HEALTH_CHECKS"] is True
    assert db["TEST"] == {"NAME": "test_thg"}


def test_database_url_defaults_and_socket_host() -> None:
    db = database(
        DATABASE_URL="postgresql://postgres:@/thg?host=/run/postgresql",
        CONN_MAX_AGE="0",
        DB_CONNECT_TIMEOUT="7",
        TEST_DATABASE_NAME="test_other",
    )

    assert db["HOST"] == "/run/postgresql"
    assert db["OPTIONS"] == {"connect_timeout": 7}
    assert db["CONN_MAX_AGE"] == 0
    assert db["TEST"] == {"NAME": "test_other"}


def test_a_wrong_number_names_its_variable() -> None:
    result = import_settings(PRINT_DATABASE, DATABASE_URL="postgresql://u@h/db", CONN_MAX_AGE="abc")

    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("django.core.exceptions.ImproperlyConfigured: CONN_MAX_AGE")
    assert "'abc'" in last


def test_a_wrong_switch_names_its_variable() -> None:
    result = import_settings(PRINT_DATABASE, DATABASE_URL="postgresql://u@h/db", EMAIL_USE_TLS="maybe")

    assert result.returncode != 0
    assert "ImproperlyConfigured: EMAIL_USE_TLS" in result.stderr.strip().splitlines()[-1]


def test_an_unreadable_database_url_is_named() -> None:
    result = import_settings(PRINT_DATABASE, DATABASE_URL="nosuchscheme://u@h/db")

    assert result.returncode != 0
    assert "ImproperlyConfigured: DATABASE_URL" in result.stderr.strip().splitlines()[-1]
