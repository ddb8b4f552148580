"""Test fixtures: a real PostgreSQL test database with the template schema and the demo
partners provisioned once per session, exactly as `make run` does."""

from __future__ import annotations

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

from tenants import selectors
from tenants.directory import directory
from tenants.quota_years import calendar_forget
from tenants.services import template_schema_migrate

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    from django.test.utils import setup_databases, teardown_databases

    own = None
    with django_db_blocker.unblock():
        if not connection.settings_dict["NAME"].startswith("test_"):
            # pytest-django creates the test database only when a collected test is marked
            # for it; e2e and bench tests reach it through a server process, unmarked.
            own = setup_databases(verbosity=0, interactive=False, aliases={"default": {}})
        assert connection.settings_dict["NAME"].startswith("test_"), "tests must never touch a real database"
        template_schema_migrate()
        call_command("seed_demo", verbosity=0)
        _calendar_open_all_year()
    yield
    if own is not None:
        with django_db_blocker.unblock():
            teardown_databases(own, verbosity=0)


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
LONG_FIRST = ("tests/registrations/test_reader_stages.py",)
SPREAD = "tests/storybook/"


def _file(nodeid: str) -> str:
    return nodeid.split("::")[0]


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
