"""Sentry for the React app: off unless SENTRY_BROWSER_DSN is set; then the server names the DSN,
the build's release and the environment in the page (no rebuild), and the browser may reach the
DSN's host (Content-Security-Policy). The SDK itself is a lazy chunk, never on the first screen.
The scrubbing of what the browser sends is tested in Vitest (web/src/shared/lib/*.test.ts)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from common.error_reporting import web_release
from tests.ops.test_settings import import_settings

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "web" / "dist"
DSN = "https://0123abcd@o42.ingest.de.sentry.io/4507"
META = re.compile(rb'<meta name="thg-error-reporting"[^>]*>')

pytestmark = pytest.mark.django_db


@pytest.fixture
def built() -> None:
    if not (DIST / "index.html").exists():
        pytest.fail("the web app is not built: run `npm run build:web` (make test does)")


def test_without_a_browser_dsn_the_page_names_no_error_reporting(built: None, client: Any) -> None:
    for host in ("autohaus.localhost", "inaktiv.localhost"):
        page = client.get("/terms", HTTP_HOST=host).content
        assert b'<div id="root">' in page
        assert not META.search(page), host
        assert b"sentry" not in page.lower()


def test_with_a_browser_dsn_the_page_names_dsn_release_and_environment(
    built: None, client: Any, settings: Any
) -> None:
    settings.SENTRY_BROWSER_DSN = DSN
    settings.SENTRY_ENVIRONMENT = 'prod"uction'
    release = web_release((DIST / "index.html").read_bytes())

    for host in ("stadtwerk.localhost", "wallbox.localhost"):
        page = client.get("/terms", HTTP_HOST=host).content
        meta = META.search(page)
        assert meta, host
        assert (
            meta.group()
            == (
                f'<meta name="thg-error-reporting" content="{DSN}" data-release="{release}"'
                ' data-environment="prod&quot;uction" />'
            ).encode()
        )
        # In the head, before the entry script runs.
        assert page.index(b"thg-partner") < page.index(meta.group()) < page.index(b"<script")

    # Switched off again: the shell cached per partner follows.
    settings.SENTRY_BROWSER_DSN = ""
    assert not META.search(client.get("/terms", HTTP_HOST="stadtwerk.localhost").content)


def test_the_release_is_a_digest_of_the_build() -> None:
    assert web_release(b"<html>a</html>") == web_release(b"<html>a</html>")
    assert web_release(b"<html>a</html>") != web_release(b"<html>b</html>")
    assert re.fullmatch(r"web@[0-9a-f]{12}", web_release(b"x"))


PRINT_REPORTING = (
    "import json; from config import settings; print('OUT' + json.dumps([settings.SENTRY_BROWSER_DSN,"
    " settings.CONTENT_SECURITY_POLICY]))"
)


def _reporting(**env: str) -> tuple[str, str]:
    result = import_settings(PRINT_REPORTING, **{"SENTRY_BROWSER_DSN": "", **env})
    assert result.returncode == 0, result.stderr[-2000:]
    line = next(line for line in result.stdout.splitlines() if line.startswith("OUT"))
    dsn, policy = json.loads(line.removeprefix("OUT"))
    return dsn, policy


def _connect_src(policy: str) -> list[str]:
    directive = next(part.strip() for part in policy.split(";") if part.strip().startswith("connect-src"))
    return directive.split()[1:]


def test_the_browser_may_reach_the_dsn_host_only_when_configured() -> None:
    dsn, policy = _reporting()
    assert dsn == ""
    assert not any("sentry" in source for source in _connect_src(policy))

    dsn, policy = _reporting(SENTRY_BROWSER_DSN=f" {DSN} ")
    assert dsn == DSN
    assert "https://o42.ingest.de.sentry.io" in _connect_src(policy)
    assert "'self'" in _connect_src(policy)

    _, policy = _reporting(SENTRY_BROWSER_DSN="http://key@sentry.internal:9000/3")
    assert "http://sentry.internal:9000" in _connect_src(policy)


@pytest.mark.parametrize(
    "value", ["not a dsn", "https://o42.ingest.sentry.io/4507", "https://key@host", "ftp://k@h/1"]
)
def test_a_malformed_browser_dsn_stops_the_start_naming_the_variable(value: str) -> None:
    result = import_settings(PRINT_REPORTING, SENTRY_BROWSER_DSN=value)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "SENTRY_BROWSER_DSN must be a Sentry DSN" in result.stderr


def _first_screen(manifest: dict[str, Any]) -> set[str]:
    entry = next(key for key, chunk in manifest.items() if chunk.get("isEntry"))
    files: set[str] = set()
    todo = [entry]
    while todo:
        chunk = manifest[todo.pop()]
        if chunk["file"] not in files:
            files.add(chunk["file"])
            todo.extend(chunk.get("imports", []))
    return files


def test_the_sentry_sdk_is_a_lazy_chunk_off_the_first_screen(built: None) -> None:
    manifest = json.loads((DIST / ".vite" / "manifest.json").read_text())
    first = _first_screen(manifest)
    # The SDK names itself in every event it sends: the string is in its chunk only.
    marker = "sentry.javascript"
    holding = {
        name
        for name in (p.relative_to(DIST).as_posix() for p in DIST.glob("assets/*.js"))
        if marker in (DIST / name).read_text(encoding="utf-8")
    }
    assert holding, "the Sentry SDK is not in the build"
    assert not holding & first, holding & first
    # ... and it is the chunk error-reporting.ts imports dynamically.
    client = next(key for key in manifest if key.endswith("shared/lib/sentry-client.ts"))
    assert manifest[client]["file"] in holding
    assert manifest[client].get("isDynamicEntry") is True
