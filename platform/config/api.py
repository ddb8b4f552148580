"""The one NinjaAPI: each app contributes its router."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from ninja import NinjaAPI

from tenants.api import router as tenants_router

api = NinjaAPI(title="THG-Quote API", version="1", docs_url="/docs", urls_namespace="api")
api.add_router("/", tenants_router)

if settings.BENCH_ENDPOINTS:
    CONSTANT = b'{"ok":true}'

    @api.get("/bench/constant/", auth=None, include_in_schema=False)
    def bench_constant(request: HttpRequest) -> HttpResponse:
        """Baseline of the config-call benchmark: same server and stack, constant bytes."""
        return HttpResponse(CONSTANT, content_type="application/json")
