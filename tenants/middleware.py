"""Tenant resolution: X-SUBDOMAIN when present, else the host; public host for the admin."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import connection as default_connection
from django.http import HttpRequest, HttpResponse, HttpResponseNotFound, JsonResponse
from django.urls import set_urlconf

from tenants.directory import directory
from tenants.models import Partner

PARTNER_NOT_FOUND = "Partner not found."

# django-tenants' connection wrapper (set_tenant, set_schema_to_public) comes untyped.
connection: Any = default_connection


def request_hostname(request: HttpRequest) -> str:
    host = request.META.get("HTTP_HOST") or request.META.get("SERVER_NAME", "")
    host = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    host = host.strip().lower().rstrip(".")
    return host.removeprefix("www.")


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
        host_partner = directory.by_host(host)
        header = request.META.get("HTTP_X_SUBDOMAIN", "").strip()
        partner = host_partner
        if header:
            partner = directory.by_subdomain(header)
            # On a partner's own host the header may only name that same partner.
            if host_partner is not None and partner is not None and partner.pk != host_partner.pk:
                partner = None
            if partner is None:
                return self.not_found(request)
        if partner is not None:
            request.tenant = partner  # type: ignore[attr-defined]
            connection.set_tenant(partner)
            request.urlconf = settings.ROOT_URLCONF  # type: ignore[attr-defined]
        elif host in settings.PUBLIC_HOSTS:
            # django-tenants' stand-in for the public schema (its admin templates read it).
            request.tenant = connection.tenant  # type: ignore[attr-defined]
            request.urlconf = settings.PUBLIC_SCHEMA_URLCONF  # type: ignore[attr-defined]
            set_urlconf(settings.PUBLIC_SCHEMA_URLCONF)
        else:
            return self.not_found(request)
        return self.get_response(request)

    @staticmethod
    def not_found(request: HttpRequest) -> HttpResponse:
        if request.path.startswith("/api/"):
            return JsonResponse({"detail": PARTNER_NOT_FOUND}, status=404)
        return HttpResponseNotFound(
            "<!doctype html><title>Nicht gefunden</title><h1>Seite nicht gefunden</h1>",
            content_type="text/html; charset=utf-8",
        )
