"""Storybook's partner fixtures are the theme compiler's output, not hand-written."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings

from tools.export_partner_fixtures import fixtures_export

FIXTURES = Path(__file__).resolve().parents[2] / "storybook" / "fixtures"


def test_the_committed_fixtures_are_what_the_compiler_makes(tmp_path: Path) -> None:
    fixtures_export(tmp_path, [], echo=lambda line: None)
    written = sorted(path.name for path in tmp_path.iterdir())
    assert written == ["deactivated.json", "standard.json", "utility.json", "wallbox.json"]
    for name in written:
        fresh = (tmp_path / name).read_text(encoding="utf-8")
        assert fresh == (FIXTURES / name).read_text(encoding="utf-8"), (
            f"{name} is stale: run `.venv/bin/python tools/export_partner_fixtures.py`"
        )


def test_a_partner_is_exported_by_its_subdomain(tmp_path: Path, db: None) -> None:
    fixtures_export(tmp_path, ["stadtwerk"], echo=lambda line: None)
    assert '"kind": "utility"' in (tmp_path / "partner-stadtwerk.json").read_text(encoding="utf-8")


def test_the_stories_scan_limits_are_the_servers_defaults() -> None:
    # The stories' answers name the scan limits (IMGC001's message shows them): the server's own.
    handlers = (Path(__file__).resolve().parents[2] / "web" / "src" / "stories" / "handlers.ts").read_text()
    limits = re.search(r"SCAN_LIMITS = \{ min_size: ([\d_]+), max_pixels: ([\d_]+) \}", handlers)
    assert limits, "web/src/stories/handlers.ts has no SCAN_LIMITS"
    story = (int(limits.group(1)), int(limits.group(2)))
    assert story == (settings.SCAN_MIN_SIZE, settings.SCAN_MAX_PIXELS)
