"""Lighthouse 13 (the npm package) on Debian's Chromium, its default mobile profile: the runner
the benchmark (all four categories, figures in the closing note) and the check in `make test`
(accessibility and best practices only: performance moves with the machine's load) share."""

from __future__ import annotations

import http.client
import json
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import start_server

ROOT = Path(__file__).resolve().parents[1]
LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
REPORTS = ROOT / "var" / "lighthouse"
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
# The first screen of each demo partner kind and the portal login.
PAGES = [
    ("autohaus (standard)", "autohaus", "/"),
    ("stadtwerk (utility)", "stadtwerk", "/"),
    ("wallbox (wallbox)", "wallbox", "/"),
    ("portal login (autohaus)", "autohaus", "/portal/auth/login"),
]


def served_as_deployed(dist: Path = ROOT / "web" / "dist", source: Path = ROOT) -> Iterator[int]:
    """gunicorn on the test database as deployed (DEBUG=0: compressed, cached assets), serving
    the web app built in dist with the server code under source (a checkout); its port."""
    if not (dist / "index.html").exists():
        pytest.fail(f"no web app built in {dist}: run `npm run build:web` (make test and make bench do)")
    process, port = start_server(
        extra_env={
            "DEBUG": "0",
            "SECRET_KEY": secrets.token_hex(32),
            "SECURE_SSL_REDIRECT": "0",
            "WEB_DIST": str(dist),
        },
        root=source,
    )
    warm_up(port)
    yield port
    process.terminate()
    process.wait(timeout=10)


def warm_up(port: int) -> None:
    """One plain request per measured page (and the baseline) before Lighthouse's first: a fresh
    gunicorn worker imports the app on its first request (1.5 s on a loaded machine), which
    otherwise falls into the first trace of the run, the baseline's."""
    pages = [("localhost", "/admin/login/")] + [(f"{sub}.localhost", path) for _, sub, path in PAGES]
    for _ in range(2):  # two workers: each gets its first request
        for host, path in pages:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            connection.request("GET", path, headers={"Host": host, "Accept-Encoding": "gzip"})
            connection.getresponse().read()
            connection.close()


# Lighthouse's "the browser did not record the trace properly" errors (its badTraceRecording
# message): Chrome's trace missed the navigation's start events, nothing about the page. Seen
# on the bench's first page of a round under load (NO_NAVSTART, twice; the page answered 200,
# no redirect). Such a run is repeated; any other runtime error fails at once.
TRACE_ERRORS = frozenset({"NO_TRACING_STARTED", "NO_RESOURCE_REQUEST", "NO_NAVSTART", "NO_DCL"})
ATTEMPTS = 3


def lighthouse(url: str, name: str, categories: tuple[str, ...] = CATEGORIES) -> dict[str, Any]:
    """Run Lighthouse on url; the JSON report is kept as var/lighthouse/<name>.json. A run whose
    trace was not recorded (TRACE_ERRORS) is repeated, up to ATTEMPTS in all."""
    REPORTS.mkdir(parents=True, exist_ok=True)
    report = REPORTS / f"{name}.json"
    for attempt in range(1, ATTEMPTS + 1):
        report.unlink(missing_ok=True)
        completed = subprocess.run(
            [
                str(LIGHTHOUSE),
                url,
                f"--chrome-path={CHROMIUM}",
                "--chrome-flags=--headless=new --no-sandbox --disable-gpu",
                f"--only-categories={','.join(categories)}",
                "--output=json",
                f"--output-path={report}",
                "--quiet",
            ],
            timeout=300,
            env={**os.environ, "CHROME_PATH": CHROMIUM},
            stderr=subprocess.PIPE,
            text=True,
        )
        result: dict[str, Any] = json.loads(report.read_text()) if report.exists() else {}
        error = (result.get("runtimeError") or {}).get("code")
        if completed.returncode == 0 and result and not error:
            return result
        if error in TRACE_ERRORS and attempt < ATTEMPTS:
            print(
                f"\nlighthouse {name}: {error} (trace not recorded), attempt {attempt} of {ATTEMPTS}",
                file=sys.stderr,
            )
            continue
        raise AssertionError(
            f"lighthouse {url}: exit {completed.returncode}, {error or 'no report'}\n{completed.stderr[-2000:]}"
        )
    raise AssertionError("unreachable")


def failing_audits(result: dict[str, Any], category: str) -> list[str]:
    """The audits of a category that cost it points, with Lighthouse's title (for the message)."""
    audits = result["audits"]
    return [
        f"{ref['id']}: {audits[ref['id']]['title']}"
        for ref in result["categories"][category]["auditRefs"]
        if ref.get("weight", 0) > 0 and audits[ref["id"]].get("score") not in (None, 1)
    ]
