"""The web app's routes, so the server can answer an unknown path with status 404.

The patterns live in app_routes.json next to this module (react-router syntax); the web app's
tests check them against its route tables (web/src/app/server-routes.test.tsx), so the two
cannot drift apart. react-router matches without regard to case and ignores a trailing slash:
so does this.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

ROUTES_FILE = Path(__file__).with_name("app_routes.json")


def route_patterns() -> list[str]:
    data = json.loads(ROUTES_FILE.read_text(encoding="utf-8"))
    return [pattern for area in ("flow", "portal", "partner") for pattern in data[area]]


def _segment(segment: str) -> str:
    if segment == "*":
        return "(?:/.*)?"
    if segment.startswith(":"):
        return "(?:/[^/]+)?" if segment.endswith("?") else "/[^/]+"
    return "/" + re.escape(segment)


def pattern_regex(pattern: str) -> str:
    segments = [segment for segment in pattern.split("/") if segment]
    return "".join(_segment(segment) for segment in segments) or ""


@cache
def _routes() -> re.Pattern[str]:
    alternatives = "|".join(pattern_regex(pattern) for pattern in route_patterns())
    return re.compile(rf"^(?:{alternatives})/?$", re.IGNORECASE)


def is_app_route(path: str) -> bool:
    """Whether the web app shows a screen (not its 404 page) for this path."""
    return _routes().match(path) is not None
