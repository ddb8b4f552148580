"""Benchmarks run in `make bench` only (BENCH=1), never in `make test`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

RESULTS = Path(__file__).resolve().parents[2] / "var" / "bench" / "results.json"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("BENCH") == "1":
        return
    skip = pytest.mark.skip(reason="benchmark: run with `make bench`")
    for item in items:
        if "tests/bench/" in str(item.fspath):
            item.add_marker(skip)


def record(name: str, values: dict[str, Any]) -> None:
    """Print a result and keep it in var/bench/results.json."""
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results[name] = values
    RESULTS.write_text(json.dumps(results, indent=2, sort_keys=True))
    width = max(len(key) for key in values)
    print(f"\n== {name}")
    for key, value in values.items():
        print(f"   {key:<{width}}  {value}")
