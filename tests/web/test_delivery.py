"""What a browser receives, over HTTP through gunicorn: compressed, cacheable assets, no source
maps, the first screen within its byte budget (issue 15, delivery)."""

from __future__ import annotations

import http.client
import re
from collections.abc import Callable
from pathlib import Path

import pytest

DIST = Path(__file__).resolve().parents[2] / "web" / "dist"
# Issue 15: HTML + everything the first screen loads, compressed as served.
FIRST_SCREEN_BUDGET = 170 * 1024

pytestmark = pytest.mark.django_db

Response = tuple[int, dict[str, str], bytes]
Get = Callable[..., Response]


@pytest.fixture(scope="module")
def get(live_server_port: int) -> Get:
    """GET on a partner's host (or the public one) through gunicorn, body as transferred."""

    def fetch(host: str, path: str, encoding: str | None = None) -> Response:
        connection = http.client.HTTPConnection("127.0.0.1", live_server_port, timeout=10)
        headers = {"Host": host if host == "localhost" else f"{host}.localhost"}
        if encoding:
            headers["Accept-Encoding"] = encoding
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        body = response.read()
        connection.close()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, body

    return fetch


def _first_screen_files(html: str) -> list[str]:
    """The entry script, its preloaded chunks and the stylesheets the HTML links."""
    scripts = re.findall(r'<script type="module"[^>]*src="(/assets/[^"]+)"', html)
    links = re.findall(r'<link rel="(?:modulepreload|stylesheet)"[^>]*href="(/assets/[^"]+)"', html)
    return scripts + links


@pytest.fixture(scope="module")
def built() -> None:
    if not (DIST / "index.html").exists():
        pytest.fail("the web app is not built: run `npm run build:web` (make test does)")


def test_the_entry_script_arrives_compressed_and_cached_for_good(built: None, get: Get) -> None:
    _, _, html = get("autohaus", "/")
    entry = _first_screen_files(html.decode())[0]
    plain_status, plain_headers, plain = get("autohaus", entry)
    assert plain_status == 200 and "content-encoding" not in plain_headers

    for encoding, name in (("gzip", "gzip"), ("br", "br"), ("br, gzip", "br")):
        status, headers, body = get("autohaus", entry, encoding)
        assert status == 200
        assert headers.get("content-encoding") == name, encoding
        assert len(body) < len(plain) / 2
        assert "Accept-Encoding" in headers.get("vary", "")
        cache = headers["cache-control"]
        assert "immutable" in cache and "public" in cache
        assert int(re.search(r"max-age=(\d+)", cache).group(1)) >= 31_536_000  # type: ignore[union-attr]


def test_a_hashed_stylesheet_and_font_are_immutable(built: None, get: Get) -> None:
    assets = sorted(p.name for p in (DIST / "assets").iterdir())
    css = next(name for name in assets if name.endswith(".css"))
    font = next(name for name in assets if name.endswith(".woff2"))
    for name in (css, font):
        status, headers, _ = get("autohaus", f"/assets/{name}", "gzip")
        assert status == 200
        assert "immutable" in headers["cache-control"], name


def test_the_shell_is_never_cached(built: None, get: Get) -> None:
    for path in ("/", "/terms", "/index.html"):
        status, headers, body = get("autohaus", path, "gzip")
        assert status == 200, path
        assert headers["cache-control"] == "no-cache", path
        assert b'<div id="root">' in body


def test_source_maps_are_not_served(built: None, get: Get) -> None:
    _, _, html = get("autohaus", "/")
    entry = _first_screen_files(html.decode())[0]
    assert not list(DIST.rglob("*.map")), "source maps must stay out of web/dist"
    status, _, _ = get("autohaus", f"{entry}.map")
    assert status == 404
    # Built hidden: the script does not point at a map either.
    _, _, script = get("autohaus", entry)
    assert b"sourceMappingURL" not in script


def test_react_and_mui_core_live_in_a_vendor_chunk(built: None, get: Get) -> None:
    _, _, html = get("autohaus", "/")
    files = _first_screen_files(html.decode())
    assert any(re.fullmatch(r"/assets/vendor-[\w-]{8}\.js", name) for name in files), files


@pytest.mark.parametrize("subdomain", ["autohaus", "stadtwerk", "wallbox"])
def test_the_first_screen_transfers_at_most_170_kb(built: None, get: Get, subdomain: str) -> None:
    sizes: dict[str, int] = {}
    for encoding in ("br, gzip", "gzip", None):
        status, _, html = get(subdomain, "/", encoding)
        assert status == 200
        total = len(html)
        for name in _first_screen_files(html.decode()):
            status, _, body = get(subdomain, name, encoding)
            assert status == 200, name
            total += len(body)
        sizes[encoding or "identity"] = total
    print(
        f"\nfirst screen of {subdomain}, bytes transferred: "
        + ", ".join(f"{k}: {v / 1024:.1f} KB" for k, v in sizes.items())
    )
    # Brotli for today's browsers, gzip for the rest: both within the budget.
    assert sizes["br, gzip"] <= FIRST_SCREEN_BUDGET
    assert sizes["gzip"] <= FIRST_SCREEN_BUDGET
