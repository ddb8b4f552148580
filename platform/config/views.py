from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

from tenants.middleware import request_partner

_index: tuple[float, bytes] | None = None


def web_app(request: HttpRequest) -> HttpResponse:
    """The built React app's index.html, for every route of the app."""
    global _index
    index = settings.WEB_DIST / "index.html"
    try:
        mtime = index.stat().st_mtime
    except FileNotFoundError:
        return HttpResponse(
            "The web app is not built yet: run `make run` (or `npm run build:web`).",
            status=503,
            content_type="text/plain; charset=utf-8",
        )
    if _index is None or _index[0] != mtime:
        _index = (mtime, index.read_bytes())
    return HttpResponse(
        _with_partner(_index[1], request),
        content_type="text/html; charset=utf-8",
        headers={"Cache-Control": "no-cache"},
    )


PARTNER_META = b'<meta name="thg-partner" content="" />'


def _with_partner(page: bytes, request: HttpRequest) -> bytes:
    """Names the host's partner in the page: on a custom domain the host name does not say
    it, and the app sends it as X-SUBDOMAIN (which must agree with the host)."""
    partner = request_partner(request)
    if partner is None:
        return page
    # A subdomain is letters, digits and hyphens (tenants.models): nothing to escape.
    return page.replace(
        PARTNER_META, f'<meta name="thg-partner" content="{partner.subdomain}" />'.encode(), 1
    )


def api_not_found(request: HttpRequest) -> JsonResponse:
    """Any other path under /api/: a JSON 404 in the API's shape, never an HTML page."""
    return JsonResponse({"detail": "Not found."}, status=404)
