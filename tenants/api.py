from __future__ import annotations

import time
from typing import Any, Literal

from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, JsonResponse
from ninja import Field, Router, Schema, Status

from common.client import client_ip
from common.partner_config import ConfigErrors, config_normalise, config_public
from common.schemas import DetailOut
from common.text import CleanText
from tenants.directory import directory
from tenants.middleware import PARTNER_NOT_FOUND, request_partner
from tenants.preview import PREVIEW_INVALID, preview_config, request_preview
from tenants.schemas import ConfigErrorsOut, PartnerConfigOut
from tenants.selectors import partner_config_payload, partner_preview_config
from themes.compiler import theme_compile

router = Router(tags=["partners"])


@router.get(
    "/configs/{subdomain}/",
    auth=None,
    summary="Partner configuration with its compiled theme",
    # The answer is built and serialised by tenants.selectors (cached per configuration
    # version, gzipped once), so ninja does not check it; tests/tenants/test_config_schema.py
    # checks real answers against the declared shape.
    response={200: PartnerConfigOut, 304: None, 404: DetailOut},
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
    grant = request_preview(request)
    if grant is not None and host_partner is partner:
        # A preview link's visitor: the draft (or the published configuration) as if live;
        # never cached, never 304, so the published answer's ETag stays untouched.
        config = preview_config(partner, grant)
        if config is None:
            return JsonResponse({"detail": PREVIEW_INVALID, "error_code": "PREVIEW_INVALID"}, status=404)
        return JsonResponse(
            {**partner_preview_config(partner, config), "preview": True},
            headers={"Cache-Control": "no-store", "Vary": "Host, X-Subdomain, Cookie"},
            json_dumps_params={"ensure_ascii": False},
        )
    # The hottest call: META directly (request.headers builds a dict of every header). On the
    # first screen's critical path (the app renders once it has arrived): gzipped when the
    # browser accepts it, compressed once per configuration version (no GZipMiddleware).
    gzipped = "gzip" in request.META.get("HTTP_ACCEPT_ENCODING", "")
    etag, body = partner_config_payload(partner, gzipped=gzipped)
    if gzipped:
        etag = f"W/{etag}"  # another representation of the same answer (RFC 9110, 8.8.1)
    headers = {"ETag": etag, "Cache-Control": "no-cache", "Vary": "Host, X-Subdomain, Accept-Encoding"}
    if etag in request.META.get("HTTP_IF_NONE_MATCH", ""):
        return HttpResponse(status=304, headers=headers)
    if gzipped:
        headers["Content-Encoding"] = "gzip"
    return HttpResponse(body, content_type="application/json", headers=headers)


class ConfigPreviewIn(Schema):
    kind: Literal["standard", "utility", "wallbox"] = "standard"
    name: CleanText = Field(default="Neuer Partner", max_length=200)
    config: dict[str, Any]


PREVIEWS_PER_MINUTE = 60


@router.post(
    "/config_previews/",
    auth=None,
    summary="Compile a configuration that is not a partner yet (Storybook's designer preview)",
    response={200: PartnerConfigOut, 400: ConfigErrorsOut, 429: DetailOut},
    # quota_years and preview belong to a partner's answer: left out here, as before
    exclude_unset=True,
)
def config_preview(request: HttpRequest, payload: ConfigPreviewIn) -> Any:
    """A pure compile of the given configuration: what the config call would answer, or the
    configuration schema's messages per field. Nothing is stored or read."""
    key = f"config-preview:{client_ip(request)}:{int(time.time() // 60)}"
    cache.add(key, 0, timeout=120)
    if cache.incr(key) > PREVIEWS_PER_MINUTE:
        return Status(429, {"detail": "Too many previews; try again in a minute."})
    try:
        config = config_normalise(payload.config)
    except ConfigErrors as exc:
        return Status(400, {"errors": exc.errors})
    return {
        **config_public(config),
        "frontend_active": True,
        "subdomain": "preview",
        "name": payload.name,
        "kind": payload.kind,
        "theme": theme_compile(config, payload.kind),
    }
