"""Test fixtures: a real PostgreSQL test database with the template schema and the demo
partners provisioned once per session, exactly as `make run` does."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.test import override_settings

from tenants import selectors
from tenants.directory import directory
from tenants.quota_years import calendar_forget
from tenants.services import template_schema_migrate

ROOT = Path(__file__).resolve().parents[1]


def pytest_configure(config: pytest.Config) -> None:
    # Quick password hashes in the test process (tests/hashers.py): with the full 1,000,000
    # rounds a staff session cost a test 0.9 s; round 1 of the clean CI went 948 -> 791 s.
    from django.conf import settings

    override_settings(
        PASSWORD_HASHERS=["tests.hashers.QuickPBKDF2PasswordHasher", *settings.PASSWORD_HASHERS]
    ).enable()


@pytest.fixture(scope="session")
def django_db_setup(django_db_modify_db_settings: None, django_db_blocker: Any) -> Iterator[None]:
    """Each pytest process (each xdist worker, each round of `make test`) gets a database of its
    own, copied from a template database built once: migrations, the template schema and the
    demo partners (about 15-40 s) once per change of the code, then CREATE DATABASE ... TEMPLATE
    (a second or two) per worker and round."""
    with django_db_blocker.unblock():
        name = _test_database_from_template()
    yield
    with django_db_blocker.unblock():
        connection.close()
        with _creation()._nodb_cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')


# What a test database is built from: the migrations, the seed and everything they import. A
# change to any of them (or a new year: the test calendar is the running year's) builds a new
# template; the old ones go when no run uses them.
TEMPLATE_SOURCES = ("platform", "tenants", "themes")
TEMPLATE_SUFFIXES = {".py", ".json", ".html", ".txt", ".css", ".svg"}


def _creation() -> Any:
    """Django's test database creation, whose helpers (the name, a cursor outside any database)
    django-stubs does not declare."""
    return connection.creation


def _template_key() -> str:
    import hashlib

    from django.utils import timezone

    digest = hashlib.sha256(str(timezone.localdate().year).encode())
    for folder in TEMPLATE_SOURCES:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in TEMPLATE_SUFFIXES and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(ROOT)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def _test_database_from_template() -> str:
    import re

    creation = _creation()
    name = creation._get_test_db_name()
    assert name.startswith("test_"), "tests must never touch a real database"
    base = re.sub(r"_gw\d+$", "", name)
    template = f"{base}_tpl_{_template_key()}"[:63]
    with creation._nodb_cursor() as cursor:
        # One process builds, the others (the second xdist worker) wait for it.
        cursor.execute("SELECT pg_advisory_lock(hashtext(%s))", [template])
        try:
            cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [template])
            if cursor.fetchone() is None:
                _template_build(template)
                _templates_stale_drop(cursor, base, template)
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')
            cursor.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        finally:
            cursor.execute("SELECT pg_advisory_unlock(hashtext(%s))", [template])
    from django.conf import settings

    settings.DATABASES["default"]["NAME"] = name
    connection.settings_dict["NAME"] = name
    connection.close()
    return name


def _template_build(template: str) -> None:
    """The database as `make run` leaves it (migrated, template schema, demo partners), under
    a building name, renamed to the template's once complete: a run stopped halfway leaves no
    template that looks finished."""
    building = f"{template[:50]}_{os.getpid()}"
    own = connection.settings_dict["TEST"]["NAME"]
    connection.settings_dict["TEST"]["NAME"] = building
    try:
        connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
        template_schema_migrate()
        call_command("seed_demo", verbosity=0)
        _calendar_open_all_year()
        connection.close()
        with _creation()._nodb_cursor() as cursor:
            cursor.execute(f'ALTER DATABASE "{building}" RENAME TO "{template}"')
    finally:
        connection.settings_dict["TEST"]["NAME"] = own
        connection.close()


def _templates_stale_drop(cursor: Any, base: str, keep: str) -> None:
    """Templates of older code: dropped unless a run is copying one right now."""
    cursor.execute(
        "SELECT datname FROM pg_database WHERE datname LIKE %s AND datname <> %s", [f"{base}_tpl_%", keep]
    )
    for (stale,) in cursor.fetchall():
        # in use by another run (a copy being made): left for the next build
        with contextlib.suppress(Exception):
            cursor.execute(f'DROP DATABASE IF EXISTS "{stale}"')


def _calendar_open_all_year() -> None:
    """The suite runs on any day of the year: in the test database the running and the next
    quota year are open all year, as the partner's flags alone decided before the calendar
    (tenants.quota_years). The calendar's own tests put the law's dates back (law_calendar)."""
    import datetime

    from django.utils import timezone

    from tenants.quota_years import QuotaYear, calendar_forget

    year = timezone.localdate().year
    for each in (year, year + 1):
        QuotaYear.objects.update_or_create(
            year=each,
            defaults={
                "authority_deadline": datetime.date(each, 12, 31),
                "registration_cutoff": datetime.date(each, 12, 31),
                "pre_registration_start": datetime.date(year, 1, 1),
            },
        )
    calendar_forget()


# `make test` runs the API/unit tests and the Storybook file in one pytest-xdist round with
# `--dist loadgroup`, which here means our own groups (pytest_xdist_make_scheduler): a test file
# stays on one worker (its module fixtures are built once), while the Storybook checks, one long
# file of short independent tests, are spread test by test over both workers and fill the
# round's tail. The files that take longest go first, then the others by their number of tests,
# so no worker is left with one long file at the end while the other waits. (xdist's own
# loadgroup marks do nothing under pytest 9: xdist renames `item._nodeid`, which pytest 9 no
# longer reads.)
LONG_FIRST = ("tests/deploy/", "tests/registrations/test_reader_stages.py")
SPREAD = "tests/storybook/"
# A folder that is one group: its files share a session fixture that is dear to build. The
# production-shaped database of tests/deploy (migrate_all and two partners provisioned by the
# real commands, about a minute) was built once per worker that drew one of its files.
TOGETHER = ("tests/deploy/",)


def _file(nodeid: str) -> str:
    path = nodeid.split("::")[0]
    return next((folder for folder in TOGETHER if path.startswith(folder)), path)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    sizes: dict[str, int] = {}
    for item in items:
        sizes[_file(item.nodeid)] = sizes.get(_file(item.nodeid), 0) + 1

    def place(item: pytest.Item) -> tuple[int, int, int]:
        path = _file(item.nodeid)
        if path.startswith(SPREAD):
            return (2, 0, 0)
        if path in LONG_FIRST:
            return (0, LONG_FIRST.index(path), 0)
        return (1, -sizes[path], 0)

    items.sort(key=place)  # stable: a file's tests keep their order


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class FileOrStorybookTest(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return nodeid if nodeid.startswith(SPREAD) else _file(nodeid)

    config.option.loadscopereorder = False  # the order of the collection (above) stands
    return FileOrStorybookTest(config, log)


@pytest.fixture(autouse=True)
def _forget_partners() -> Iterator[None]:
    """A rolled-back test must not leave partners in the process caches, nor counters
    (rate limits) in the shared cache."""
    cache.clear()
    yield
    directory.clear()
    selectors._payloads.clear()
    calendar_forget()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def database_url() -> str:
    settings = connection.settings_dict
    host = settings["HOST"]
    if host.startswith("/"):
        return f"postgresql://{quote(settings['USER'])}:@/{settings['NAME']}?host={quote(host)}"
    auth = quote(settings["USER"]) + (":" + quote(settings["PASSWORD"]) if settings["PASSWORD"] else "")
    return f"postgresql://{auth}@{host}:{settings['PORT'] or 5432}/{settings['NAME']}"


def start_server(
    *, workers: int = 2, threads: int = 4, extra_env: dict[str, str] | None = None, root: Path = ROOT
) -> tuple[subprocess.Popen[bytes], int]:
    """A gunicorn process serving the test database, as `make run` serves the real one (the
    code under root: another checkout's, to measure a change against it)."""
    port = _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "DEBUG": "1",
        # Background tasks run in the server process; mails land in the test run's folder.
        "HUEY_IMMEDIATE": "1",
        "MAIL_DIR": str(ROOT / "var" / "test-mail"),
        "PYTHONPATH": f"{root}:{root / 'platform'}",
        **(extra_env or {}),
    }
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "config.wsgi:application",
            "--chdir",
            str(root / "platform"),
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(workers),
            "--threads",
            str(threads),
            "--no-control-socket",
            "--log-level",
            "warning",
        ],
        env=env,
        cwd=root,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return process, port
        except OSError:
            if process.poll() is not None:
                raise RuntimeError("the test server did not start") from None
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("the test server did not start in time")


def stop_server(process: subprocess.Popen[bytes]) -> None:
    """Stop a server of start_server: SIGTERM (gunicorn's graceful stop, up to its 30 s
    graceful timeout), then SIGKILL. A fixed 10 s wait failed the teardown of a passing bench on
    a busy machine (load 24 on 2 cores)."""
    process.terminate()
    try:
        process.wait(timeout=40)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


@pytest.fixture(scope="session")
def live_server_port(django_db_setup: None) -> Iterator[int]:
    # Every browser test comes from 127.0.0.1: to the per-address budgets (login mails, uploads)
    # the whole suite would look like one client hammering the server. Those limits have tests
    # of their own (tests/security/test_client_address.py, tests/registrations).
    process, port = start_server(
        extra_env={"LOGIN_SENDS_PER_ADDRESS_HOUR": "100000", "UPLOAD_LIMIT_PER_ADDRESS": "100000"}
    )
    yield port
    stop_server(process)


@pytest.fixture(scope="session")
def partner_url(live_server_port: int):  # type: ignore[no-untyped-def]
    def url(subdomain: str, path: str = "/") -> str:
        return f"http://{subdomain}.localhost:{live_server_port}{path}"

    return url
