from __future__ import annotations

import base64
import binascii
import gzip
import json
import re
import threading
from html import escape
from pathlib import Path
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse

from tenants.middleware import request_partner
from tenants.models import Partner
from themes.compiler import FONT_PACKAGES

_index: tuple[float, bytes] | None = None
_shell_lock = threading.Lock()
# subdomain -> ((config version, name, active, index mtime), page, gzipped page). One entry
# per partner and release; an old one is replaced when the partner or the build changes.
_shells: dict[str, tuple[tuple[Any, ...], bytes, bytes]] = {}

PRODUCT_FAVICON = Path(settings.BASE_DIR) / "web" / "public" / "product-favicon.ico"
PRODUCT_TITLE = "THG-Quote"
DATA_URL = re.compile(r"^data:(image/[a-z0-9.+-]+);base64,([A-Za-z0-9+/=\s]+)$")


def _index_page() -> tuple[float, bytes] | None:
    global _index
    index = settings.WEB_DIST / "index.html"
    try:
        mtime = index.stat().st_mtime
    except FileNotFoundError:
        return None
    if _index is None or _index[0] != mtime:
        _index = (mtime, index.read_bytes())
    return _index


def web_app(request: HttpRequest) -> HttpResponse:
    """The built React app's index.html, for every route of the app, with the host's partner
    named in its head (title, description, theme colour, icon) before any script runs."""
    index = _index_page()
    if index is None:
        return HttpResponse(
            "The web app is not built yet: run `make run` (or `npm run build:web`).",
            status=503,
            content_type="text/plain; charset=utf-8",
        )
    page, gzipped = _shell(index, request_partner(request))
    headers = {"Cache-Control": "no-cache", "Vary": "Accept-Encoding"}
    # Compressed once per partner and release, like the assets (no GZipMiddleware: the API's
    # answers stay as they are).
    if "gzip" in request.headers.get("Accept-Encoding", ""):
        page = gzipped
        headers["Content-Encoding"] = "gzip"
    return HttpResponse(page, content_type="text/html; charset=utf-8", headers=headers)


PARTNER_META = b'<meta name="thg-partner" content="" />'
THEME_META = b'<meta name="theme-color" content="#ffffff" />'
TITLE = f"<title>{PRODUCT_TITLE}</title>".encode()


def _shell(index: tuple[float, bytes], partner: Partner | None) -> tuple[bytes, bytes]:
    """The page for the host, plain and gzipped."""
    subdomain = partner.subdomain if partner is not None else ""
    key = (
        (partner.config_version, partner.name, partner.frontend_active, index[0]) if partner else (index[0],)
    )
    cached = _shells.get(subdomain)
    if cached is not None and cached[0] == key:
        return cached[1], cached[2]
    page = _with_partner(index[1], partner, _font_files()) if partner is not None else index[1]
    gzipped = gzip.compress(page, compresslevel=9, mtime=0)
    with _shell_lock:
        _shells[subdomain] = (key, page, gzipped)
    return page, gzipped


_fonts: tuple[float, dict[str, str]] | None = None


def _font_files() -> dict[str, str]:
    """Font package -> the hashed URL of its Latin regular face (what German text needs
    first), from the build's manifest; read once per build."""
    global _fonts
    manifest = settings.WEB_DIST / ".vite" / "manifest.json"
    try:
        mtime = manifest.stat().st_mtime
    except FileNotFoundError:
        return {}
    if _fonts is None or _fonts[0] != mtime:
        files: dict[str, str] = {}
        for key, chunk in json.loads(manifest.read_bytes()).items():
            match = re.search(r"@fontsource/([a-z-]+)/files/\1-latin-400-normal\.woff2$", key)
            if match:
                files[match.group(1)] = "/" + chunk["file"]
        _fonts = (mtime, files)
    return _fonts[1]


def _with_partner(page: bytes, partner: Partner, fonts: dict[str, str] | None = None) -> bytes:
    """Names the host's partner in the page: on a custom domain the host name does not say
    it, and the app sends it as X-SUBDOMAIN (which must agree with the host). Every value the
    partner configured is escaped: it comes from the partner's admin, not from us."""
    config = partner.config or {}
    title = escape(str(config.get("page_title") or partner.name))
    description = escape(
        f"{partner.name}: Ihre THG-Prämie für Ihr Elektroauto – Fahrzeugschein hochladen, fertig."
    )
    color = escape(str((config.get("colors") or {}).get("button") or "#ffffff"))
    favicon = escape(str(config.get("favicon") or "/favicon.ico"))
    head = (
        f"<title>{title}</title>\n"
        f'    <meta name="description" content="{description}" />\n'
        f'    <link rel="icon" href="{favicon}" />\n'
        f'    <meta property="og:type" content="website" />\n'
        f'    <meta property="og:title" content="{title}" />\n'
        f'    <meta property="og:description" content="{description}" />\n'
        f'    <meta name="twitter:card" content="summary" />'
    )
    # The partner's font, fetched with the entry script instead of after the configuration.
    font = (fonts or {}).get(FONT_PACKAGES.get(str(config.get("font_family")), "open-sans"))
    if font:
        head += f'\n    <link rel="preload" href="{escape(font)}" as="font" type="font/woff2" crossorigin />'
    # A subdomain is letters, digits and hyphens (tenants.models): nothing to escape.
    page = page.replace(
        PARTNER_META, f'<meta name="thg-partner" content="{partner.subdomain}" />'.encode(), 1
    )
    page = page.replace(THEME_META, f'<meta name="theme-color" content="{color}" />'.encode(), 1)
    return page.replace(TITLE, head.encode(), 1)


ROBOTS_ACTIVE = "User-agent: *\nDisallow: /admin/\nDisallow: /api/\n"
ROBOTS_CLOSED = "User-agent: *\nDisallow: /\n"


def robots_txt(request: HttpRequest) -> HttpResponse:
    """A partner's active site may be indexed, except its admin and API; a deactivated
    partner and the public host (the platform admin only) not at all."""
    partner = request_partner(request)
    body = ROBOTS_ACTIVE if partner is not None and partner.frontend_active else ROBOTS_CLOSED
    return HttpResponse(
        body, content_type="text/plain; charset=utf-8", headers={"Cache-Control": "public, max-age=3600"}
    )


def favicon_ico(request: HttpRequest) -> HttpResponse:
    """The partner's configured icon (served when it is a data URL, else a redirect to it),
    otherwise the product's."""
    partner = request_partner(request)
    favicon = str((partner.config or {}).get("favicon") or "") if partner is not None else ""
    cache = {"Cache-Control": "public, max-age=3600"}
    if favicon.startswith("data:"):
        match = DATA_URL.match(favicon)
        if match:
            try:
                body = base64.b64decode(match.group(2), validate=False)
            except (binascii.Error, ValueError):
                body = b""
            if body:
                return HttpResponse(body, content_type=match.group(1), headers=cache)
    elif favicon.startswith(("https://", "http://", "/")) and favicon != "/favicon.ico":
        response = HttpResponseRedirect(favicon)
        response["Cache-Control"] = "public, max-age=3600"
        return response
    return HttpResponse(PRODUCT_FAVICON.read_bytes(), content_type="image/x-icon", headers=cache)


def api_not_found(request: HttpRequest) -> JsonResponse:
    """Any other path under /api/: a JSON 404 in the API's shape, never an HTML page."""
    return JsonResponse({"detail": "Not found."}, status=404)
