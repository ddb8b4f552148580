"""Lighthouse 13 (the npm package, Debian's Chromium, its default mobile profile: a mid-range
phone on a slow 4G line, simulated) on the first screen of each demo partner kind and on the
portal login, served by gunicorn as deployed (DEBUG=0: compressed, cached assets).

Baseline of the same run: the platform admin's login on the public host (a server-rendered
Django page, no script app), the floor this machine reaches under the same throttling. Reports (JSON) are kept
under var/lighthouse/.

Lighthouse's simulated throttling multiplies the main-thread work it observes, so a score moves
with the machine's load: every page is measured LIGHTHOUSE_RUNS times (3 unless told),
interleaved (page after page, round after round), and the median is recorded with the load.

LIGHTHOUSE_BEFORE=<a build's folder> (e.g. `vite build --outDir dist-before` of the commit to
compare with) measures that build too, in the same rounds, each page right before the same page
of the current build: a change's before and after under the same load. With
LIGHTHOUSE_BEFORE_SOURCE=<a checkout's folder> (e.g. `git archive <commit> platform tenants
themes | tar -x -C <folder>`) that build is served by that checkout's server code: a change to
the server-rendered page measured the same way.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.bench.conftest import record
from tests.lighthouse import CATEGORIES, PAGES, ROOT, lighthouse, served_as_deployed

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def port(django_db_setup: None) -> Iterator[int]:
    yield from served_as_deployed()


BEFORE = os.environ.get("LIGHTHOUSE_BEFORE", "")
BEFORE_SOURCE = os.environ.get("LIGHTHOUSE_BEFORE_SOURCE", "")


@pytest.fixture(scope="module")
def before_port(django_db_setup: None) -> Iterator[int | None]:
    if not BEFORE:
        yield None
        return
    source = Path(BEFORE_SOURCE).resolve() if BEFORE_SOURCE else ROOT
    yield from served_as_deployed(Path(BEFORE).resolve(), source)


def figures(result: dict[str, Any]) -> dict[str, Any]:
    audits = result["audits"]
    return {
        **{name: result["categories"][name]["score"] for name in CATEGORIES},
        "fcp_ms": round(audits["first-contentful-paint"]["numericValue"]),
        "lcp_ms": round(audits["largest-contentful-paint"]["numericValue"]),
        "tbt_ms": round(audits["total-blocking-time"]["numericValue"]),
        "transferred_kb": round(audits["total-byte-weight"]["numericValue"] / 1024, 1),
    }


RUNS = int(os.environ.get("LIGHTHOUSE_RUNS", "3"))


def median_figures(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {name: statistics.median(run[name] for run in runs) for name in runs[0]}


def test_lighthouse_first_screens(port: int, before_port: int | None) -> None:
    baselines: list[dict[str, Any]] = []
    results: dict[str, list[dict[str, Any]]] = {label: [] for label, _, _ in PAGES}
    if before_port is not None:
        results.update({f"{label} BEFORE": [] for label, _, _ in PAGES})
    for round_ in range(RUNS):
        load = os.getloadavg()[0]
        baselines.append(
            {
                **figures(lighthouse(f"http://localhost:{port}/admin/login/", "baseline-admin-login")),
                "load": load,
            }
        )
        for label, subdomain, path in PAGES:
            name = f"{subdomain}{path.replace('/', '-')}" + (f"-{round_}" if round_ else "")
            if before_port is not None:
                load = os.getloadavg()[0]
                url = f"http://{subdomain}.localhost:{before_port}{path}"
                results[f"{label} BEFORE"].append(
                    {**figures(lighthouse(url, f"before-{name}")), "load": load}
                )
            load = os.getloadavg()[0]
            result = figures(lighthouse(f"http://{subdomain}.localhost:{port}{path}", name))
            results[label].append({**result, "load": load})
    baseline = median_figures(baselines)
    record("lighthouse: baseline (admin login, server-rendered)", {**baseline, "runs": RUNS})
    for label, runs in results.items():
        result = median_figures(runs)
        result["fcp_vs_baseline"] = round(result["fcp_ms"] / max(baseline["fcp_ms"], 1), 2)
        result["lcp_vs_baseline"] = round(result["lcp_ms"] / max(baseline["lcp_ms"], 1), 2)
        result["performance_runs"] = [run["performance"] for run in runs]
        result["machine_load_1min"] = round(result.pop("load"), 1)
        record(f"lighthouse: {label} (median of {RUNS})", result)
        assert result["accessibility"] is not None and result["performance"] is not None
