"""Registration API figures:

1. the upload pipeline (type sniffing, limits, decode, EXIF, re-encode, Tesseract document
   check and field reading, storage, row) for a 12-megapixel JPEG and a one-page PDF: median
   time, and the peak resident size of the process and of Tesseract, each in a fresh process;
   beside it the decode/re-encode step alone (scan_prepare) as the same run's baseline;
2. login codes issued per second (code made, hashed, stored, mail task queued) under
   gunicorn, against the bare endpoint of the same server.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from django_tenants.utils import tenant_context
from PIL import Image

from accounts.models import LoginCode
from tenants.models import Partner
from tests.bench.conftest import record
from tests.bench.test_foundation import WRK, wrk
from tests.conftest import ROOT, database_url, start_server
from tests.fixtures.zlb.generate import encode, zlb_document, zlb_page

OTP_LUA = Path(__file__).with_name("otp.lua")
RUNS = 5


def _probe(data: bytes, suffix: str) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile(suffix=suffix) as handle:
        handle.write(data)
        handle.flush()
        output = subprocess.run(
            [sys.executable, "-m", "tests.bench.upload_probe", handle.name, str(RUNS)],
            env={**os.environ, "DATABASE_URL": database_url(), "HUEY_IMMEDIATE": "1"},
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
    assert output.returncode == 0, output.stderr[-3000:]
    result: dict[str, Any] = json.loads(output.stdout.strip().splitlines()[-1])
    return result


def test_upload_pipeline_time_and_peak_memory(django_db_setup: None) -> None:
    jpeg = _phone_photo(11)
    pdf, _ = zlb_document(12, fmt="pdf")
    for name, data, suffix in (("jpeg_12mp", jpeg, ".jpg"), ("pdf_1_page", pdf, ".pdf")):
        result = _probe(data, suffix)
        record(
            f"upload_pipeline_{name}",
            {
                **result,
                "pipeline_to_prepare_ratio": round(
                    result["pipeline_median_s"] / result["prepare_median_s"], 2
                ),
                "target": "median <= 1.5 s with the document check, peak <= 400 MB",
            },
        )


def _phone_photo(seed: int) -> bytes:
    """A 12-megapixel ZLB as a phone camera takes it: sensor noise, JPEG quality 92 (some MB)."""
    page, _ = zlb_page(seed, size=(4000, 3000))
    noise = Image.effect_noise(page.size, 24).convert("RGB")
    photo = Image.blend(page.convert("RGB"), noise, 0.12)
    return encode(photo, "jpeg", quality=92)


BENCH_REDIS = "redis://127.0.0.1:6379/13"


@pytest.fixture(params=["embedded", "redis"])
def otp_server(request: pytest.FixtureRequest, django_db_setup: None) -> Iterator[int]:
    """The default run's backends (SQLite queue, file cache) or production's (Redis)."""
    if WRK is None:
        pytest.skip("wrk is not installed (make bench installs Debian's wrk as root)")
    extra = {"BENCH_ENDPOINTS": "1", "HUEY_IMMEDIATE": "0", "LOGIN_SENDS_PER_ADDRESS_HOUR": str(10**9)}
    with tempfile.TemporaryDirectory() as queue:
        # Tasks are queued as in production (a consumer would send them), into a throw-away
        # queue; the per-address hourly limit is lifted for the run.
        if request.param == "redis":
            client = redis.Redis.from_url(BENCH_REDIS)
            try:
                client.ping()
            except redis.ConnectionError:
                pytest.skip("no Redis on 127.0.0.1:6379")
            client.flushdb()
            extra["REDIS_URL"] = BENCH_REDIS
        else:
            extra["HUEY_FILENAME"] = f"{queue}/huey.sqlite3"
        process, port = start_server(workers=2, threads=4, extra_env=extra)
        yield port
        process.terminate()
        process.wait(timeout=10)
        if request.param == "redis":
            client.flushdb()


def test_login_codes_issued_per_second(
    otp_server: int, request: pytest.FixtureRequest, django_db_blocker: Any
) -> None:
    host = ["autohaus.localhost"]
    wrk(otp_server, host, "/", seconds=2, connections=4, script=OTP_LUA)  # warm up
    wrk(otp_server, host, "/api/bench/constant/", seconds=2, connections=4)
    rounds: dict[str, list[float]] = {"codes": [], "constant": []}
    issued = 0
    for index in range(3):
        order = ("codes", "constant") if index % 2 else ("constant", "codes")
        for name in order:
            if name == "codes":
                result = wrk(otp_server, host, "/", seconds=4, connections=4, script=OTP_LUA)
                issued += result["requests"]
            else:
                result = wrk(otp_server, host, "/api/bench/constant/", seconds=4, connections=4)
            rounds[name].append(result["rps"])
    with django_db_blocker.unblock(), tenant_context(Partner.objects.get(subdomain="autohaus")):
        stored = LoginCode.objects.filter(email__startswith="bench-").count()
        LoginCode.objects.filter(email__startswith="bench-").delete()
    codes, constant = statistics.median(rounds["codes"]), statistics.median(rounds["constant"])
    record(
        f"login_codes_per_second_{request.node.callspec.params['otp_server']}",
        {
            "codes_per_s_median": round(codes, 1),
            "constant_rps_median": round(constant, 1),
            "ratio": round(codes / constant, 3),
            "codes_stored": stored,
            "rounds": {k: [round(v, 1) for v in vs] for k, vs in rounds.items()},
        },
    )
    assert stored >= issued  # every answered request left its code (warm-up ones too)
