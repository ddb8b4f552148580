"""A deactivated partner (frontend_active off) keeps only its configuration call.

The web app still loads its configuration to show 'Diese Website ist nicht aktiv.'
(spec/registration-flow.md, FrontendDeactivated); every other call on the partner's host,
logins (code, link, password, refresh), uploads, billing, the portal and the Django admin,
is refused. Platform operators manage the partner from the public host, which this does not
touch. Runs right after tenants.middleware.PartnerMiddleware, which resolves the partner.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden, JsonResponse

from tenants.middleware import request_partner
from tenants.preview import COOKIE, PREVIEW_INVALID, QUERY, preview_token_read

PARTNER_INACTIVE = "PARTNER_INACTIVE"
PREVIEW_INVALID_CODE = "PREVIEW_INVALID"
INACTIVE_DETAIL = "Diese Website ist nicht aktiv."
# Paths a deactivated partner still answers (prefixes under /api/).
OPEN_API_PATHS = ("/api/configs/",)


def partner_inactive_refusal(request: HttpRequest) -> HttpResponse | None:
    """The answer to a request a deactivated partner does not serve, or None to go on."""
    partner = request_partner(request)
    if partner is None or partner.frontend_active:
        return None
    path = request.path
    if path.startswith("/api/"):
        if path.startswith(OPEN_API_PATHS):
            return None
        return JsonResponse({"detail": INACTIVE_DETAIL, "error_code": PARTNER_INACTIVE}, status=403)
    if path.startswith("/admin/") or path == "/admin":
        return HttpResponseForbidden(
            f"<!doctype html><title>Nicht aktiv</title><h1>{INACTIVE_DETAIL}</h1>",
            content_type="text/html; charset=utf-8",
        )
    # The web app itself and its assets: it shows the deactivated screen.
    return None


def _preview_refusal(request: HttpRequest) -> HttpResponse:
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": PREVIEW_INVALID, "error_code": PREVIEW_INVALID_CODE}, status=403)
    return HttpResponseForbidden(
        f"<!doctype html><title>Vorschau</title><h1>{PREVIEW_INVALID}</h1>",
        content_type="text/html; charset=utf-8",
    )


def _framed_by_the_console(response: HttpResponse) -> None:
    """A preview's page may be shown inside the console (its side-by-side preview, on a public
    host): the page's own policy names those hosts as the only ones that may frame it, instead
    of none. Everything else about the page's policy stays."""
    policy = response.get("Content-Security-Policy", "")
    if "frame-ancestors 'none'" not in policy:
        return
    hosts = " ".join(f"{host}:*" for host in settings.PUBLIC_HOSTS if host)
    response["Content-Security-Policy"] = policy.replace("frame-ancestors 'none'", f"frame-ancestors {hosts}")
    if "X-Frame-Options" in response:
        del response["X-Frame-Options"]


class InactivePartnerMiddleware:
    """Also the gate of preview links (tenants.preview): a valid token, from the link's query
    or from the cookie the link left, lets the request through as if the site were live."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        partner = request_partner(request)
        from_link = request.GET.get(QUERY) if partner is not None else None
        from_cookie = request.COOKIES.get(COOKIE) if partner is not None else None
        # An archived partner is closed for good: no preview either.
        if partner is not None and partner.archived_at is None and (from_link or from_cookie):
            grant = preview_token_read(from_link or from_cookie or "", partner=partner)
            if grant is None and from_link:
                # A link that does not work says so, rather than showing the closed site.
                return _preview_refusal(request)
            if grant is not None:
                request.preview = grant  # type: ignore[attr-defined]
                # Staff pages stay closed: a preview is the owner's site, not the back office.
                if not (request.path.startswith("/admin/") or request.path == "/admin"):
                    response = self.get_response(request)
                    _framed_by_the_console(response)
                    if from_link:
                        response.set_cookie(
                            COOKIE,
                            grant.token,
                            max_age=max(0, grant.expires_at - int(time.time())),
                            secure=request.is_secure(),
                            httponly=True,
                            samesite="Lax",
                        )
                    return response
        return partner_inactive_refusal(request) or self.get_response(request)
