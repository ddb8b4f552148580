"""The retention run over 100,000 applications (issue 19): time and peak memory of the daily
task (`privacy.tasks.retention_run`) in one partner schema, beside the same run at 10,000.

The data is what a partner has after a few years: every application with its registration,
billing data (encrypted), two history rows, device data and scan files (display copy and small
version; the original while it waits for the authority), owners with about two vehicles each,
login codes, and a realistic share past its period (see `_shares`): refused long ago,
never-finished flows, scans of payouts over a year old, released originals, old device data,
expired codes, a few orphaned files. Rows are cloned in SQL from one prototype each (seeding
in Python would leave its garbage in the process whose memory is measured).

Memory, two ways, each in its own run on its own freshly seeded partner (the same data):
- RSS growth: the process's peak resident size during the run (VmHWM, reset through
  /proc/self/clear_refs before it) minus the resident size before it; the time comes from
  this run;
- Python heap peak: tracemalloc's peak during the run (tracemalloc slows the run, so its time
  is not reported).
Flat memory means the figures at 100,000 are about those at 10,000: the task works in batches
of RETENTION_BATCH rows and never holds a whole table."""

from __future__ import annotations

import gc
import logging
import os
import re
import shutil
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection, models
from django.test.utils import override_settings
from django.utils import timezone
from django_tenants.utils import schema_context

from accounts.models import LoginCode, User
from billing.models import Client
from privacy.tasks import retention_run
from quota.models import QuotaApplication, QuotaStatus, StatusChange
from registrations.models import BevRegistration, DeviceInfo
from tenants.models import Partner
from tenants.services import partner_provision
from tests.bench.conftest import record

# BENCH_RETENTION_SCALES=2000 for a quick try of the bench itself
SCALES = tuple(int(s) for s in os.environ.get("BENCH_RETENTION_SCALES", "10000,100000").split(","))
SUBDOMAIN = "bench-retention-{scale}-{mode}"


def _status(key: str) -> int:
    """A figure of /proc/self/status, in KiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise KeyError(key)


def _clone(model: type[models.Model], proto: models.Model, count: int, **overrides: str) -> int:
    """`count` copies of the prototype row with ids proto.pk + g (g 1..count), columns overridden
    by SQL expressions of `g`; the prototype itself is deleted. Returns the first copy's id."""
    table = model._meta.db_table
    columns = [f.column for f in model._meta.concrete_fields]
    unknown = set(overrides) - set(columns)
    assert not unknown, unknown
    overrides = {**overrides, model._meta.pk.column: "p.id + g"}
    select = ", ".join(overrides.get(c, f'p."{c}"') for c in columns)
    names = ", ".join(f'"{c}"' for c in columns)
    pk = model._meta.pk.column
    with connection.cursor() as cursor:
        cursor.execute(
            f'INSERT INTO "{table}" ({names}) SELECT {select} '  # noqa: S608 (names from the model)
            f'FROM "{table}" p, generate_series(1, %s) g WHERE p.id = %s',
            [count, proto.pk],
        )
        cursor.execute(f'DELETE FROM "{table}" WHERE id = %s', [proto.pk])  # noqa: S608
        cursor.execute(
            f'SELECT setval(pg_get_serial_sequence(%s, %s), (SELECT max("{pk}") FROM "{table}"))',  # noqa: S608
            [table, pk],
        )
        cursor.execute(f'ANALYZE "{table}"')
    return int(proto.pk) + 1


def _shares(n: int) -> dict[str, int]:
    """What of `n` applications is past its period (and what is just inside it)."""
    per = lambda percent: n * percent // 100  # noqa: E731
    return {
        "refused, 120 days ago (due)": per(8),
        "refused, 30 days ago": per(2),
        "paid out 400 days ago (scans due)": per(30),
        "paid out 60 days ago": per(10),
        "accepted, original released 4 days ago (due)": per(3),
        "in progress (original kept)": per(47),
        "unfinished registrations, 45 days (due)": per(4),
        "unfinished registrations, 10 days": per(1),
        "expired login codes, 40 days (due)": per(20),
        "login codes, fresh": per(2),
        "orphaned scan files (due)": max(n // 1000, 1),
    }


# The application's bucket is its registration's g modulo 100 (g 1..n), as in _shares.
BUCKET = "mod(g, 100)"
STATUS = (
    f"CASE WHEN {BUCKET} < 10 THEN '{QuotaStatus.MANUALLY_REJECTED}' "
    f"WHEN {BUCKET} < 50 THEN '{QuotaStatus.PAID}' "
    f"WHEN {BUCKET} < 53 THEN '{QuotaStatus.ACCEPTED}' ELSE '{QuotaStatus.ENTERED}' END"
)
MOVED_DAYS = (
    f"CASE WHEN {BUCKET} < 8 THEN 120 WHEN {BUCKET} < 10 THEN 30 WHEN {BUCKET} < 40 THEN 400 "
    f"WHEN {BUCKET} < 50 THEN 60 ELSE 2 END"
)
# Registrations: made some time before the last move; those in progress over the last 60 days
CREATED_DAYS = f"(CASE WHEN {BUCKET} < 53 THEN ({MOVED_DAYS}) + 30 ELSE mod(g, 60) END)"


def _ago(days: str) -> str:
    return f"now() - make_interval(days => ({days})::int)"


def seed(schema: str, n: int, media: Path) -> dict[str, int]:
    """n applications and the rest (see the module's text) in the partner's schema; returns
    the number of scan files written."""
    unfinished = n * 5 // 100
    total = n + unfinished
    owners = total // 2
    scans = f"{schema}/scans/"
    with schema_context(schema):
        proto_user = User.objects.create(username="proto@example.de", email="proto@example.de")
        first_owner = _clone(
            User,
            proto_user,
            owners,
            username="'owner' || g || '@example.de'",
            email="'owner' || g || '@example.de'",
            username_canonical="'owner' || g || '@example.de'",
            email_canonical="'owner' || g || '@example.de'",
            date_joined=_ago("mod(g, 700)"),
        )
        owner = f"{first_owner} + (g - 1) / 2"
        proto_registration = BevRegistration.objects.create(
            owner_id=first_owner, sequence=1, registration_years=[2025], zlb_scan="x", display_scan="x",
            resized_image="x", redaction="boxes", original_content_type="image/jpeg", width=3000,
            height=2000, vin="WVWZZZ1KZAW000000", vehicle_class="M1", energy_code="0004", is_electric=True,
            make="VOLKSWAGEN", model="ID.3", fuel="ELEKTRO", locked_at=timezone.now(),
        )  # fmt: skip
        # g <= n: a registration with an application; above: a flow never finished
        first_registration = _clone(
            BevRegistration,
            proto_registration,
            total,
            owner_id=owner,
            sequence="1000000 + g",
            uuid="md5('reg' || g)::uuid",
            vin="'WVWZZZ1KZ' || lpad(g::text, 8, '0')",
            # originals: deleted after the authority submission (refused and paid ones), released
            # and due (accepted), kept while the application waits (in progress)
            zlb_scan=(
                f"CASE WHEN g <= {n} AND {BUCKET} < 50 THEN '' "
                f"ELSE '{scans}' || md5('reg' || g)::uuid || '.jpg' END"
            ),
            display_scan=f"'{scans}' || md5('reg' || g)::uuid || '-display.jpg'",
            resized_image=f"'{scans}' || md5('reg' || g)::uuid || '-resized.jpg'",
            original_released_at=(
                f"CASE WHEN g <= {n} AND {BUCKET} < 53 THEN {_ago('2 + (' + MOVED_DAYS + ')')} END"
            ),
            original_deleted_at=f"CASE WHEN g <= {n} AND {BUCKET} < 50 THEN {_ago('1 + (' + MOVED_DAYS + ')')} END",
            created_at=(
                f"CASE WHEN g <= {n} THEN {_ago(CREATED_DAYS)} "
                f"WHEN mod(g, 5) = 0 THEN {_ago('10')} ELSE {_ago('45')} END"
            ),
        )
        proto_client = Client.objects.create(
            owner_id=first_owner, gender="woman", first_name="Erika", last_name="Mustermann",
            street_name="Hauptstraße", street_number="12a", postal_code="10115", city="Berlin",
            account_name="Erika Mustermann", account_iban="DE89370400440532013000", account_bic="COBADEFFXXX",
            locked_at=timezone.now(),
        )  # fmt: skip
        # one billing record per registration with an application, and for half the unfinished
        clients = n + unfinished // 2
        first_client = _clone(
            Client,
            proto_client,
            clients,
            owner_id=owner,
            created_at=f"CASE WHEN g <= {n} THEN {_ago(CREATED_DAYS)} ELSE {_ago('45')} END",
        )
        proto_application = QuotaApplication.objects.create(
            registration_id=first_registration, client_id=first_client, legislation_year=2024
        )
        first_application = _clone(
            QuotaApplication,
            proto_application,
            n,
            registration_id=f"{first_registration} + g - 1",
            client_id=f"{first_client} + g - 1",
            legislation_year="2025",
            status=STATUS,
            created_at=_ago(CREATED_DAYS),
            updated_at=_ago(MOVED_DAYS),
        )
        proto_change = StatusChange.objects.create(application_id=first_application, status="qa_created")
        _clone(
            StatusChange,
            proto_change,
            2 * n,
            application_id=f"{first_application} + (g - 1) / 2",
            status="CASE WHEN mod(g, 2) = 1 THEN 'qa_created' ELSE 'qa_entered' END",
            reason="'Bearbeitung begonnen'",
        )
        proto_device = DeviceInfo.objects.create(
            registration_id=first_registration, device_type="mobile", device_name="iPhone",
            browser_version="Safari 18", os_name="iOS", os_version="18.1",
            full_user_agent_string="Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15",
        )  # fmt: skip
        _clone(
            DeviceInfo,
            proto_device,
            total,
            registration_id=f"{first_registration} + g - 1",
            created_at=(
                f"CASE WHEN g <= {n} THEN {_ago(CREATED_DAYS)} "
                f"WHEN mod(g, 5) = 0 THEN {_ago('10')} ELSE {_ago('45')} END"
            ),
        )
        codes = n * 22 // 100
        proto_code = LoginCode.objects.create(
            email="proto@example.de", code_hash="0" * 64, expires_at=timezone.now()
        )
        _clone(
            LoginCode,
            proto_code,
            codes,
            email="'owner' || mod(g, 1000) || '@example.de'",
            code_hash="md5('code' || g) || md5('c' || g)",
            expires_at=f"CASE WHEN mod(g, 11) = 0 THEN now() + interval '5 minutes' ELSE {_ago('40')} END",
        )
        # the files the rows name, then a few without a row (an upload killed before its commit)
        folder = media / schema / "scans"
        folder.mkdir(parents=True, exist_ok=True)
        written = 0
        with connection.cursor() as cursor:
            cursor.execute("SELECT zlb_scan, display_scan, resized_image FROM registrations_bevregistration")
            while rows := cursor.fetchmany(5000):
                for row in rows:
                    for name in row:
                        if name:
                            _touch(media / name)
                            written += 1
        old = time.time() - 86400
        for i in range(_shares(n)["orphaned scan files (due)"]):
            path = folder / f"{i:08d}-0000-4000-8000-000000000000.jpg"
            _touch(path)
            os.utime(path, (old, old))
            written += 1
    return {"scan files": written}


def _touch(path: Path) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.write(fd, b"\xff\xd8\xff\xe0 bench")
    os.close(fd)


def _counts(schema: str, media: Path) -> dict[str, int]:
    with schema_context(schema):
        found = {
            "applications": QuotaApplication.objects.count(),
            "registrations": BevRegistration.objects.count(),
            "billing data": Client.objects.count(),
            "history rows": StatusChange.objects.count(),
            "device data": DeviceInfo.objects.count(),
            "login codes": LoginCode.objects.count(),
        }
    found["scan files"] = sum(1 for _ in os.scandir(media / schema / "scans"))
    return found


@pytest.fixture(scope="module")
def media(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("retention-media")
    with override_settings(MEDIA_ROOT=str(root)):  # its signal rebuilds default_storage
        yield root
    shutil.rmtree(root, ignore_errors=True)  # some 500,000 small files


@pytest.fixture(scope="module")
def partners(django_db_setup: None, django_db_blocker: Any) -> Iterator[dict[tuple[int, str], Partner]]:
    """A fresh partner per scale and mode (the run deletes what it measures)."""
    made: dict[tuple[int, str], Partner] = {}
    with django_db_blocker.unblock():
        for scale in SCALES:
            for mode in ("rss", "heap"):
                subdomain = SUBDOMAIN.format(scale=scale, mode=mode)
                for stale in Partner.objects.filter(subdomain=subdomain):  # an aborted earlier run
                    stale.delete(force_drop=True)
                made[(scale, mode)] = partner_provision(subdomain=subdomain, name=f"Bench {subdomain}")
    yield made
    with django_db_blocker.unblock():
        for partner in made.values():
            partner.delete(force_drop=True)


def _run(schema: str, mode: str, caplog: pytest.LogCaptureFixture) -> dict[str, Any]:
    gc.collect()
    caplog.clear()
    rss_before = _status("VmRSS")
    Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM to the current RSS
    if mode == "heap":
        tracemalloc.start()
    started = time.perf_counter()
    with caplog.at_level(logging.INFO, logger="privacy.tasks"):
        retention_run.call_local(schema)
    elapsed = time.perf_counter() - started
    figures: dict[str, Any] = {}
    if mode == "heap":
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        figures["python_heap_peak_mib"] = round(peak / 2**20, 1)
    else:
        figures["seconds"] = round(elapsed, 2)
        figures["rss_before_mib"] = round(rss_before / 1024, 1)
        figures["rss_growth_mib"] = round((_status("VmHWM") - rss_before) / 1024, 1)
    line = next(r.getMessage() for r in caplog.records if r.getMessage().startswith("retention run:"))
    figures["log"] = line
    return figures


def test_retention_run_over_100000_applications(
    partners: dict[tuple[int, str], Partner],
    media: Path,
    django_db_blocker: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    results: dict[str, Any] = {"batch": settings.RETENTION_BATCH, "load_before": os.getloadavg()}
    with django_db_blocker.unblock():
        for scale in SCALES:
            for mode in ("rss", "heap"):
                schema = partners[(scale, mode)].schema_name
                started = time.perf_counter()
                seed(schema, scale, media)
                seeded = time.perf_counter() - started
                before = _counts(schema, media)
                figures = _run(schema, mode, caplog)
                after = _counts(schema, media)
                # what the run must have deleted, from the seeded shares
                share = _shares(scale)
                refused_due = share["refused, 120 days ago (due)"]
                unfinished_due = share["unfinished registrations, 45 days (due)"]
                assert before["applications"] - after["applications"] == refused_due
                # the refused ones' registrations go with them (left without an application)
                assert before["registrations"] - after["registrations"] == refused_due + unfinished_due
                assert (
                    after["login codes"]
                    == before["login codes"] - share["expired login codes, 40 days (due)"]
                )
                logged = {k: int(v) for k, v in re.findall(r"([a-z ]+?) (\d+)(?:, |$)", figures["log"][15:])}
                assert logged["scans after payout"] == share["paid out 400 days ago (scans due)"]
                assert logged["released originals"] == share["accepted, original released 4 days ago (due)"]
                assert logged["orphaned scan files"] == share["orphaned scan files (due)"]
                results[f"{scale}_{mode}"] = {
                    **figures,
                    "seeding_seconds": round(seeded, 1),
                    "rows_before": before,
                    "rows_after": after,
                }
    results["load_after"] = os.getloadavg()
    record("retention_run", results)
