"""A deactivated partner (frontend_active off) keeps only its configuration call.

The web app still loads its configuration to show 'Diese Website ist nicht aktiv.'
(spec/registration-flow.md, FrontendDeactivated); every other call on the partner's host,
logins (code, link, password, refresh), uploads, billing, the portal and the Django admin,
is refused. Platform operators manage the partner from the public host, which this does not
touch. Runs right after tenants.middleware.PartnerMiddleware, which resolves the partner.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseForbidden, JsonResponse

from tenants.middleware import request_partner

PARTNER_INACTIVE = "PARTNER_INACTIVE"
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


class InactivePartnerMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return partner_inactive_refusal(request) or self.get_response(request)
