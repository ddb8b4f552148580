"""`/brand/<name>` on a partner's host: the partner's uploaded brand assets (tenants.brand)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseNotFound

from tenants.brand import brand_asset_read
from tenants.middleware import request_partner


def brand_asset(request: HttpRequest, name: str) -> HttpResponse:
    partner = request_partner(request)
    found = brand_asset_read(schema_name=partner.schema_name, name=name) if partner is not None else None
    if found is None:
        return HttpResponseNotFound("Nicht gefunden", content_type="text/plain; charset=utf-8")
    data, content_type = found
    response = HttpResponse(data, content_type=content_type)
    # Content-hashed names: a new upload is a new name.
    response["Cache-Control"] = "public, max-age=31536000, immutable"
    response["X-Content-Type-Options"] = "nosniff"
    if content_type == "image/svg+xml":
        # Opened directly, an SVG is a document: nothing in it may run or load.
        response["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'; sandbox"
    return response
