"""Issue 14: while 16 owners upload realistic phone photos at once, the site's other calls keep
answering. Against a gunicorn test server with the production worker model (2 workers x 4
threads, the document check in registrations.ocr_pool), one client calls non-upload endpoints
(the partner config, system constraints, the owner's portal list) in three phases of the same
run: alone, under 16 uploading owners, alone again. Reported: p50/p90 of those calls per phase
and the ratio of the loaded p90 to the unloaded one (target: loaded p90 <= 150 ms), plus the
uploads' outcomes and times. The machine is shared: the load average is reported beside it.
"""

from __future__ import annotations

import os
import random
import statistics
import threading
import time
from collections import defaultdict
from typing import Any

import requests
from django.db import connection
from django_tenants.utils import schema_context

from registrations.models import BevRegistration
from tests.api.live import committed_owner_tokens
from tests.bench.conftest import record
from tests.conftest import start_server
from tests.fixtures.zlb import realistic

HOST = "autohaus.localhost"
OWNERS = 16
PHASE_SECONDS = 25.0
YEAR = time.localtime().tm_year


def _photos(count: int) -> list[bytes]:
    photos = []
    for seed in range(count):
        rng = random.Random(f"load-{seed}")
        car = realistic.vehicle(rng, energy="0004")
        page = realistic.render_form(rng, car.values)
        photo = realistic.photograph(rng, page, quality="phone")
        photos.append(realistic.encode(photo.rotate(90 * (seed % 4), expand=True), "jpeg", quality=85))
    return photos


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def _other_calls(base: str, token: str, until: float) -> list[float]:
    """The non-upload calls in turn, one at a time, each timed (ms)."""
    session = requests.Session()
    calls = [
        ("/api/configs/autohaus/", {}),
        ("/api/system_constraints/", {}),
        ("/api/end_user_portal/quota_applications/", {"Authorization": f"Bearer {token}"}),
    ]
    times: list[float] = []
    index = 0
    while time.monotonic() < until:
        path, headers = calls[index % len(calls)]
        started = time.perf_counter()
        response = session.get(base + path, headers={"Host": HOST, **headers}, timeout=30)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, (path, response.status_code, response.text[:200])
        index += 1
        time.sleep(0.05)
    return times


def _uploader(base: str, token: str, photo: bytes, until: float, out: dict[str, list[Any]]) -> None:
    session = requests.Session()
    while time.monotonic() < until:
        started = time.perf_counter()
        response = session.post(
            f"{base}/api/bev_registrations/",
            data={
                "partner": "autohaus",
                "source": "",
                "registration_years": str(YEAR),
                "skip_classifier": "False",
            },
            files={"zlb_scan": ("photo.jpg", photo, "image/jpeg")},
            headers={"Host": HOST, "Authorization": f"Bearer {token}"},
            timeout=120,
        )
        elapsed = time.perf_counter() - started
        out[str(response.status_code)].append(elapsed)
        if response.status_code == 503:
            # as the web app does: again after Retry-After
            time.sleep(
                min(float(response.headers.get("Retry-After", "5")), max(0.0, until - time.monotonic()))
            )


def test_other_calls_keep_answering_while_16_owners_upload(
    django_db_setup: None, django_db_blocker: Any
) -> None:
    owners = [
        committed_owner_tokens(django_db_blocker, email=f"load-{n}@example.org")["access"]
        for n in range(OWNERS)
    ]
    watcher = committed_owner_tokens(django_db_blocker, email="load-watcher@example.org")["access"]
    photos = _photos(OWNERS)
    process, port = start_server(
        extra_env={
            "UPLOAD_LIMIT_PER_ADDRESS": "100000",
            "UPLOAD_LIMIT_PER_LOGIN": "100000",
            # production's niceness unless the run says otherwise (BENCH_OCR_NICE=0 for comparison)
            "OCR_NICE": os.environ.get("BENCH_OCR_NICE", "10"),
        }
    )
    base = f"http://127.0.0.1:{port}"
    try:
        _other_calls(base, watcher, time.monotonic() + 3)  # warm up (imports, caches)
        load_before = os.getloadavg()[0]
        alone = _other_calls(base, watcher, time.monotonic() + PHASE_SECONDS)

        until = time.monotonic() + PHASE_SECONDS
        outcomes: dict[str, list[Any]] = {"201": [], "400": [], "503": [], "429": [], "500": []}
        results: defaultdict[str, list[Any]] = defaultdict(list)
        threads = [
            threading.Thread(target=_uploader, args=(base, owners[n], photos[n], until, results))
            for n in range(OWNERS)
        ]
        for thread in threads:
            thread.start()
        loaded = _other_calls(base, watcher, until)
        load_during = os.getloadavg()[0]
        for thread in threads:
            thread.join(timeout=180)
        outcomes.update(results)
        again = _other_calls(base, watcher, time.monotonic() + PHASE_SECONDS)
    finally:
        process.terminate()
        process.wait(timeout=30)
        with django_db_blocker.unblock(), schema_context("p_autohaus"):
            assert connection.settings_dict["NAME"].startswith("test_")
            BevRegistration.objects.filter(owner__email__startswith="load-").delete()

    baseline = alone + again
    accepted = outcomes["201"]
    record(
        "upload_load_16_owners",
        {
            "other_calls_alone_p50_ms": round(_percentile(baseline, 0.5), 1),
            "other_calls_alone_p90_ms": round(_percentile(baseline, 0.9), 1),
            "other_calls_loaded_p50_ms": round(_percentile(loaded, 0.5), 1),
            "other_calls_loaded_p90_ms": round(_percentile(loaded, 0.9), 1),
            "other_calls_loaded_max_ms": round(max(loaded), 1),
            "p90_ratio_loaded_vs_alone": round(_percentile(loaded, 0.9) / _percentile(baseline, 0.9), 2),
            "other_calls_counted": f"{len(baseline)} alone, {len(loaded)} loaded",
            "uploads_accepted": len(accepted),
            "uploads_refused_400": len(outcomes["400"]),
            "uploads_busy_503": len(outcomes["503"]),
            "uploads_other": {k: len(v) for k, v in outcomes.items() if k not in {"201", "400", "503"} and v},
            "upload_201_p50_s": round(statistics.median(accepted), 2) if accepted else None,
            "upload_201_p90_s": round(_percentile(accepted, 0.9), 2) if accepted else None,
            "ocr_nice": os.environ.get("BENCH_OCR_NICE", "10"),
            "load_average_1min": f"{load_before:.2f} before, {load_during:.2f} during (2 cores, shared machine)",
        },
    )
    assert accepted, outcomes
    assert not outcomes["500"]
