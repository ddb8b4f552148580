"""The schema fuzzer runs in `make fuzz` (FUZZ=1) only, never in `make test`."""

from __future__ import annotations

import os

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("FUZZ") == "1":
        return
    skip = pytest.mark.skip(reason="schema fuzzing: run with `make fuzz`")
    for item in items:
        if "tests/fuzz/" in str(item.fspath):
            item.add_marker(skip)
