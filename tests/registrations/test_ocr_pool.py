"""The document check's pool (registrations.ocr_pool): uploads are checked in pool processes,
a full pool or a late result is a clear 503 in the upload's error shape, the check's time is
on /metrics by outcome, and no pool process outlives its server (also a killed worker's)."""

from __future__ import annotations

import os
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
import requests
from django.test import Client
from django_tenants.utils import schema_context

from accounts.models import User
from accounts.tokens import tokens_issue
from registrations.models import BevRegistration
from registrations.ocr_pool import POOL, CheckLimits, scan_check_pooled
from tenants.models import Partner
from tests.api.live import committed_owner_tokens
from tests.conftest import start_server
from tests.fixtures.zlb.real import documents, wrong
from tests.registrations.test_api import HOST, YEAR, upload

LIMITS = CheckLimits(min_size=500, max_pixels=25_000_000, max_bytes=10 * 1024 * 1024)


@pytest.fixture
def fresh_pool(settings: Any) -> Iterator[Any]:
    """A pool built from this test's settings (and shut down after it)."""
    POOL.shutdown()
    yield settings
    POOL.shutdown()


@pytest.fixture
def auth() -> dict[str, str]:
    with schema_context("p_autohaus"):
        owner = User.objects.create(username="pool@example.de", email="pool@example.de")
        token = tokens_issue(user=owner, partner=Partner.objects.get(subdomain="autohaus"))["access"]
    return {"Authorization": f"Bearer {token}"}


def _teil2() -> bytes:
    return wrong.wrong_document(1, "teil2")[0]


@pytest.mark.django_db
def test_a_full_pool_answers_503_with_retry_after_and_keeps_nothing(
    client: Client,
    auth: dict[str, str],
    fresh_pool: Any,
    tmp_path: Path,
) -> None:
    fresh_pool.OCR_MAX_IN_FLIGHT = 1
    fresh_pool.MEDIA_ROOT = tmp_path
    client.get("/api/system_constraints/", HTTP_HOST=HOST)  # the URLs loaded: the upload is quick
    # given: another upload's check holds the only place (taken here directly: a real check
    # may end, now that the reader is fast, before the second upload arrives)
    _executor, slots = POOL._ensure()
    assert slots.acquire(timeout=10)
    try:
        # when
        with schema_context("p_autohaus"):
            response = upload(client, auth, _teil2())
    finally:
        slots.release()

    # then
    assert response.status_code == 503, response.content
    assert response.json() == {
        "detail": "Die Dokumentenprüfung ist gerade ausgelastet. Bitte versuchen Sie es in wenigen Sekunden erneut.",
        "error_code": "UPLOAD002",
    }
    assert int(response["Retry-After"]) >= 5
    with schema_context("p_autohaus"):
        assert not BevRegistration.objects.exists()
    assert not list(tmp_path.rglob("*.jpg"))


@pytest.mark.django_db
def test_a_check_that_takes_longer_than_the_wait_is_503_and_frees_its_place_when_done(
    client: Client,
    auth: dict[str, str],
    fresh_pool: Any,
) -> None:
    fresh_pool.OCR_WAIT_SECONDS = 0.05
    fresh_pool.OCR_MAX_IN_FLIGHT = 1

    with schema_context("p_autohaus"):
        late = upload(client, auth, _teil2())
    # the place is free again once the abandoned check ended: the next upload is checked
    fresh_pool.OCR_WAIT_SECONDS = 60
    deadline = time.monotonic() + 60
    while POOL._slots is not None and POOL._slots._value == 0 and time.monotonic() < deadline:  # type: ignore[attr-defined]
        time.sleep(0.1)
    with schema_context("p_autohaus"):
        checked = upload(client, auth, _teil2())

    assert late.status_code == 503 and late.json()["error_code"] == "UPLOAD002"
    assert checked.status_code == 400 and checked.json()["zlb_scan"]["error_code"] in {"IMGC002", "IMGC003"}


@pytest.mark.django_db
def test_the_check_runs_in_a_pool_process_at_a_lower_priority(fresh_pool: Any) -> None:
    fresh_pool.OCR_NICE = 10  # production's default
    result = scan_check_pooled(_teil2(), LIMITS, False)

    children = POOL.processes()
    assert result.rejected_code in {"IMGC002", "IMGC003"} and result.seconds > 0
    assert children and os.getpid() not in children
    assert all(psutil.Process(pid).nice() >= os.nice(0) + 10 for pid in children)


def _pool_processes(server: psutil.Process) -> list[psutil.Process]:
    return [
        child
        for child in server.children(recursive=True)
        if "multiprocessing" in " ".join(child.cmdline())
        and "resource_tracker" not in " ".join(child.cmdline())
    ]


def _metric(text: str, name: str, outcome: str) -> float:
    match = re.search(rf'^{name}\{{outcome="{outcome}"\}} (\S+)$', text, re.MULTILINE)
    return float(match.group(1)) if match else 0.0


def test_under_gunicorn_the_time_is_on_metrics_and_no_pool_process_outlives_its_worker(
    django_db_setup: None, django_db_blocker: Any, tmp_path: Path
) -> None:
    token = committed_owner_tokens(django_db_blocker, email="pool-owner@example.org")["access"]
    process, port = start_server(
        workers=1,
        threads=2,
        extra_env={"METRICS_ENABLED": "1", "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)},
    )
    base = f"http://127.0.0.1:{port}"
    server = psutil.Process(process.pid)
    try:
        # a Teil II: the check runs in full and is refused, so no row is committed
        response = requests.post(
            f"{base}/api/bev_registrations/",
            data={
                "partner": "autohaus",
                "source": "",
                "registration_years": str(YEAR),
                "skip_classifier": "False",
            },
            files={"zlb_scan": ("scan.jpg", _teil2(), "image/jpeg")},
            headers={"Host": HOST, "Authorization": f"Bearer {token}"},
            timeout=60,
        )
        metrics = requests.get(f"{base}/metrics", timeout=10).text
        pool = _pool_processes(server)

        assert response.status_code == 400, response.text
        assert _metric(metrics, "thg_scan_check_duration_seconds_count", "refused") == 1
        assert _metric(metrics, "thg_scan_check_duration_seconds_sum", "refused") > 0
        assert 'thg_scan_check_wait_seconds_count{origin="flow"} 1.0' in metrics
        assert "pool-owner" not in metrics and "teil" not in metrics.lower()
        assert len(pool) == 1  # OCR_WORKERS=1 per serving process

        # a worker killed outright: its pool process notices and exits
        worker = next(child for child in server.children() if child.pid != pool[0].pid)
        os.kill(worker.pid, signal.SIGKILL)
        gone, alive = psutil.wait_procs(pool, timeout=10)
        assert not alive, [p.pid for p in alive]
    finally:
        descendants = server.children(recursive=True)
        process.terminate()
        process.wait(timeout=20)
        _gone, left = psutil.wait_procs(descendants, timeout=10)
        assert not [p for p in left if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]


def _check_in_a_daemonic_process(data: bytes, answer: Any) -> None:
    try:
        result = scan_check_pooled(data, LIMITS, False, background=True)
        answer.put(("ok", result.rejected_code))
    except Exception as error:  # the parent reports what went wrong
        answer.put(("error", f"{error.__class__.__name__}: {error}"))


def test_a_huey_process_worker_checks_the_scan_itself(fresh_pool: Any) -> None:
    """HUEY_WORKER_TYPE=process: huey's workers are daemonic, which may not start the pool's
    processes (AssertionError: daemonic processes are not allowed to have children): every file
    of a bulk upload was refused with BULK031 there. Such a worker reads the scan in-process."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    answer = context.Queue()
    worker = context.Process(
        target=_check_in_a_daemonic_process,
        args=(documents.real_document(4241, "scan", "cousine", energy="0004")[0], answer),
        daemon=True,
    )
    worker.start()
    outcome = answer.get(timeout=300)
    worker.join(timeout=30)
    assert outcome == ("ok", ""), outcome  # read, not refused
    assert POOL.processes() == []  # nothing was started in this process either
