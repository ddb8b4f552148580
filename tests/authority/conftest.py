"""Files the authority tests write (test scans, package ZIPs) are removed after each test: the
database rolls back, the media folder does not."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

WATCHED = ["authority", "p_autohaus/scans", "p_stadtwerk/scans", "p_wallbox/scans"]


def _files() -> set[Path]:
    root = Path(settings.MEDIA_ROOT)
    return {
        path
        for folder in WATCHED
        if (root / folder).is_dir()
        for path in (root / folder).rglob("*")
        if path.is_file()
    }


@pytest.fixture(autouse=True)
def _media_left_clean() -> Iterator[None]:
    before = _files()
    yield
    for path in _files() - before:
        path.unlink(missing_ok=True)
