"""The one NinjaAPI: each app contributes its router; error shapes are decided here."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from ninja import NinjaAPI
from ninja.errors import ValidationError

from accounts.api import router as accounts_router
from accounts.errors import AccountError
from billing.api import router as billing_router
from config.errors import FieldError, field_errors
from config.i18n import request_language
from quota.api import router as quota_router
from registrations.api import router as registrations_router
from tenants.api import router as tenants_router

api = NinjaAPI(title="THG-Quote API", version="1", docs_url="/docs", urls_namespace="api")
api.add_router("/", tenants_router)
api.add_router("/", accounts_router)
api.add_router("/", registrations_router)
api.add_router("/", billing_router)
api.add_router("/", quota_router)


@api.exception_handler(ValidationError)
def _validation_error(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    return api.create_response(request, field_errors(list(exc.errors)), status=400)


@api.exception_handler(FieldError)
def _field_error(request: HttpRequest, exc: FieldError) -> HttpResponse:
    return api.create_response(request, {exc.field: [exc.message]}, status=400)


@api.exception_handler(AccountError)
def _account_error(request: HttpRequest, exc: AccountError) -> HttpResponse:
    response = api.create_response(
        request,
        {"detail": exc.message_in(request_language(request)), "error_code": exc.code},
        status=exc.status,
    )
    if exc.retry_after is not None:
        response["Retry-After"] = str(exc.retry_after)
    return response


if settings.BENCH_ENDPOINTS:
    CONSTANT = b'{"ok":true}'

    @api.get("/bench/constant/", auth=None, include_in_schema=False)
    def bench_constant(request: HttpRequest) -> HttpResponse:
        """Baseline of the config-call benchmark: same server and stack, constant bytes."""
        return HttpResponse(CONSTANT, content_type="application/json")
