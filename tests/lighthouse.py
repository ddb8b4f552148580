"""Lighthouse 13 (the npm package) on Debian's Chromium, its default mobile profile: the runner
the benchmark (all four categories, figures in the closing note) and the check in `make test`
(accessibility and best practices only: performance moves with the machine's load) share."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
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


def served_as_deployed(dist: Path = ROOT / "web" / "dist") -> Iterator[int]:
    """gunicorn on the test database as deployed (DEBUG=0: compressed, cached assets), serving
    the web app built in dist; its port."""
    if not (dist / "index.html").exists():
        pytest.fail(f"no web app built in {dist}: run `npm run build:web` (make test and make bench do)")
    process, port = start_server(
        extra_env={
            "DEBUG": "0",
            "SECRET_KEY": secrets.token_hex(32),
            "SECURE_SSL_REDIRECT": "0",
            "WEB_DIST": str(dist),
        }
    )
    yield port
    process.terminate()
    process.wait(timeout=10)


def lighthouse(url: str, name: str, categories: tuple[str, ...] = CATEGORIES) -> dict[str, Any]:
    """Run Lighthouse on url; the JSON report is kept as var/lighthouse/<name>.json."""
    REPORTS.mkdir(parents=True, exist_ok=True)
    report = REPORTS / f"{name}.json"
    subprocess.run(
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
        check=True,
        timeout=300,
        env={**os.environ, "CHROME_PATH": CHROMIUM},
    )
    result: dict[str, Any] = json.loads(report.read_text())
    return result


def failing_audits(result: dict[str, Any], category: str) -> list[str]:
    """The audits of a category that cost it points, with Lighthouse's title (for the message)."""
    audits = result["audits"]
    return [
        f"{ref['id']}: {audits[ref['id']]['title']}"
        for ref in result["categories"][category]["auditRefs"]
        if ref.get("weight", 0) > 0 and audits[ref["id"]].get("score") not in (None, 1)
    ]
