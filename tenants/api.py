from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from ninja import Router

from tenants.directory import directory
from tenants.middleware import PARTNER_NOT_FOUND, request_partner
from tenants.selectors import partner_config_payload

router = Router(tags=["partners"])


@router.get(
    "/configs/{subdomain}/",
    auth=None,
    summary="Partner configuration with its compiled theme",
    response={200: dict, 304: None, 404: dict},
)
def config_detail(request: HttpRequest, subdomain: str) -> HttpResponse:
    host_partner = request_partner(request)
    if host_partner is not None:
        # A partner's host serves only its own configuration.
        partner = host_partner if host_partner.subdomain == subdomain.lower() else None
    else:
        partner = directory.by_subdomain(subdomain)
    if partner is None:
        return JsonResponse({"detail": PARTNER_NOT_FOUND}, status=404)
    etag, body = partner_config_payload(partner)
    # The hottest call: META directly (request.headers builds a dict of every header).
    headers = {"ETag": etag, "Cache-Control": "no-cache", "Vary": "Host, X-Subdomain"}
    if etag in request.META.get("HTTP_IF_NONE_MATCH", ""):
        return HttpResponse(status=304, headers=headers)
    return HttpResponse(body, content_type="application/json", headers=headers)
