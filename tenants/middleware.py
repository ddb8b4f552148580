"""Tenant resolution by the host alone: a partner's domain, or a public host for the admin.

X-SUBDOMAIN (sent by the web app) may only agree with the host; it never selects a partner.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import connection as default_connection
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseNotFound,
    JsonResponse,
)
from django.urls import set_urlconf

from tenants.directory import directory
from tenants.models import Partner, is_local_host

PARTNER_NOT_FOUND = "Partner not found."
HOST_MISMATCH = "X-SUBDOMAIN does not match this host."
CONFIG_CALL = re.compile(r"^/api/configs/([^/]+)/$")
# A host that is no partner's: a neutral page, no partner's name, colours or data.
UNKNOWN_HOST_PAGE = """<!doctype html>
<html lang="de">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<meta name="robots" content="noindex" />
<title>Adresse nicht zugeordnet</title>
<style>
body{margin:0;min-height:100vh;display:grid;place-items:center;background:#f5f5f5;color:#212121;
font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif}
main{max-width:32rem;margin:1rem;padding:2rem;background:#fff;border-radius:8px;
box-shadow:0 1px 3px rgba(0,0,0,.15)}
h1{font-size:1.375rem;line-height:1.3;margin:0 0 .75rem;overflow-wrap:anywhere}
p{margin:0;line-height:1.5}
</style>
</head>
<body>
<main>
<h1>Seite nicht gefunden</h1>
<p>Diese Adresse ist keinem Partner zugeordnet. Bitte prüfen Sie den Link, den Sie erhalten haben.</p>
</main>
</body>
</html>
"""

# django-tenants' connection wrapper (set_tenant, set_schema_to_public) comes untyped.
connection: Any = default_connection


def request_hostname(request: HttpRequest) -> str:
    host = request.META.get("HTTP_HOST") or request.META.get("SERVER_NAME", "")
    host = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    host = host.strip().lower().rstrip(".")
    return host.removeprefix("www.")


def partner_site_url(partner: Partner, request: HttpRequest | None = None) -> str:
    """The partner's site root for a mailed link, from its configured primary domain.

    Never the request's Host: a request through a foreign host (or a forged Host header)
    must not put that host into a mail. https, except on a developer's *.localhost host,
    where the request's port is kept when the request came to a local host too (the
    partner's own, or the platform admin's localhost beside it).
    """
    domain = partner.primary_domain()
    if not is_local_host(domain):
        return f"https://{domain}/"
    port = ""
    if request is not None and is_local_host(request_hostname(request)):
        raw = request.META.get("HTTP_HOST", "")
        candidate = raw.rsplit(":", 1)[1] if ":" in raw and not raw.endswith("]") else ""
        port = f":{candidate}" if candidate.isdigit() else ""
    return f"http://{domain}{port}/"


def config_call_subdomain(path: str) -> str | None:
    """The subdomain in the path of the config call, None for any other path."""
    match = CONFIG_CALL.match(path)
    return match.group(1).lower() if match else None


def request_partner(request: HttpRequest) -> Partner | None:
    """The partner a request was resolved to, or None on the public host."""
    tenant = getattr(request, "tenant", None)
    return tenant if isinstance(tenant, Partner) else None


class PartnerMiddleware:
    """Activates the partner's schema and urlconf for the request.

    Host validation happens here, against the Domain table and PUBLIC_HOSTS, which is why
    ALLOWED_HOSTS may be broad: an unknown host never reaches a view.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # Restored afterwards: code around the request (a test, a command) keeps its schema.
        previous = connection.tenant
        connection.set_schema_to_public()
        try:
            return self._resolve(request)
        finally:
            connection.set_tenant(previous)

    def _resolve(self, request: HttpRequest) -> HttpResponse:
        host = request_hostname(request)
        partner = directory.by_host(host)
        header = request.META.get("HTTP_X_SUBDOMAIN", "").strip().lower()
        if partner is not None:
            # The header may agree with the host, never name another partner.
            if header and header != partner.subdomain:
                return self.refused(request)
            request.tenant = partner  # type: ignore[attr-defined]
            connection.set_tenant(partner)
            request.urlconf = settings.ROOT_URLCONF  # type: ignore[attr-defined]
        elif host in settings.PUBLIC_HOSTS:
            # No partner here, whatever the header says. The one call a shared host answers
            # for a partner is the config call, where the path decides (DESIGN.md); a header
            # that agrees with that path is harmless, any other is refused.
            if header and header != config_call_subdomain(request.path):
                return self.refused(request)
            # django-tenants' stand-in for the public schema (its admin templates read it).
            request.tenant = connection.tenant  # type: ignore[attr-defined]
            request.urlconf = settings.PUBLIC_SCHEMA_URLCONF  # type: ignore[attr-defined]
            set_urlconf(settings.PUBLIC_SCHEMA_URLCONF)
        elif header:
            # An unknown host naming a partner: someone pointing a foreign domain at us.
            return self.refused(request)
        else:
            return self.not_found(request)
        return self.get_response(request)

    @staticmethod
    def refused(request: HttpRequest) -> HttpResponse:
        if request.path.startswith("/api/"):
            return JsonResponse({"detail": HOST_MISMATCH}, status=400)
        return HttpResponseBadRequest(
            "<!doctype html><title>Ungültige Anfrage</title><h1>Ungültige Anfrage</h1>",
            content_type="text/html; charset=utf-8",
        )

    @staticmethod
    def not_found(request: HttpRequest) -> HttpResponse:
        if request.path.startswith("/api/"):
            return JsonResponse({"detail": PARTNER_NOT_FOUND}, status=404)
        return HttpResponseNotFound(
            UNKNOWN_HOST_PAGE,
            content_type="text/html; charset=utf-8",
            headers={"Cache-Control": "no-cache"},
        )
