"""The one NinjaAPI: each app contributes its router; error shapes are decided here."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, RequestDataTooBig, SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse
from ninja import NinjaAPI
from ninja.errors import ValidationError

from accounts.api import router as accounts_router
from accounts.errors import AccountError
from billing.api import router as billing_router
from common.api_errors import (
    BAD_REQUEST,
    BODY_ERRORS,
    DETAILS,
    NOT_FOUND,
    SERVER_ERROR,
    body_error_response,
)
from common.errors import ERROR_DETAIL_SCHEMA, FIELD_ERRORS_SCHEMA, FieldError, field_errors
from common.i18n import request_language
from integrations.api import router as integrations_router
from operations.api import router as operations_router
from operations.application_api import router as quota_partner_router
from operations.application_export_api import router as quota_export_router
from operations.documents_api import portal_router as documents_portal_router
from operations.documents_api import router as documents_router
from operations.errors import OperationsError
from operations.export_api import router as operations_export_router
from operations.money_api import router as money_router
from privacy.api import router as privacy_router
from quota.api import router as quota_router
from quota.fee_api import router as fee_router
from quota.fee_services import FeeTableError
from registrations.api import router as registrations_router
from staff.api import router as staff_router
from staff.errors import StaffError
from tenants.api import router as tenants_router

ERROR_DETAIL = {"$ref": "#/components/schemas/ErrorDetail"}
FIELD_ERRORS = {"$ref": "#/components/schemas/FieldErrors"}
UNDOCUMENTED_404 = {"/api/system_constraints/", "/api/config_previews/"}


def _answer(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _merged(declared: dict[str, Any] | None, description: str, *shapes: dict[str, Any]) -> dict[str, Any]:
    """The endpoint's own shape for a status, or'ed with the shapes answered around it."""
    own = (declared or {}).get("content", {}).get("application/json", {}).get("schema")
    options = [own, *shapes] if own and own not in shapes else list(shapes)
    return _answer(
        (declared or {}).get("description") or description,
        options[0] if len(options) == 1 else {"anyOf": options},
    )


class ThgNinjaAPI(NinjaAPI):
    """The OpenAPI document tells every answer an operation can give, not only the ones its
    endpoint returns itself: field errors and bad bodies (400, 413), a missing or invalid
    token (401), an unknown partner or object (404)."""

    def get_openapi_schema(self, *args: Any, **kwargs: Any) -> Any:
        schema = super().get_openapi_schema(*args, **kwargs)
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        components["ErrorDetail"] = ERROR_DETAIL_SCHEMA
        components["FieldErrors"] = FIELD_ERRORS_SCHEMA
        for path, operations in schema["paths"].items():
            for operation in operations.values():
                responses = operation["responses"]
                responses[400] = _merged(
                    responses.get(400),
                    "Invalid input: messages per field, or a detail",
                    ERROR_DETAIL,
                    FIELD_ERRORS,
                )
                if "requestBody" in operation:
                    responses.setdefault(413, _answer("The request body is too large", ERROR_DETAIL))
                if operation.get("security"):
                    responses[401] = _merged(responses.get(401), "Not signed in", ERROR_DETAIL)
                has_path_parameter = any(p.get("in") == "path" for p in operation.get("parameters", []))
                if path not in UNDOCUMENTED_404 and (
                    has_path_parameter or "auth" in operation.get("tags", [])
                ):
                    responses[404] = _merged(responses.get(404), "Unknown partner or object", ERROR_DETAIL)
        return schema


api = ThgNinjaAPI(title="THG-Quote API", version="1", docs_url="/docs", urls_namespace="api")
api.add_router("/", tenants_router)
api.add_router("/", accounts_router)
api.add_router("/", registrations_router)
api.add_router("/", billing_router)
api.add_router("/", quota_router)
api.add_router("/partner/", staff_router)
api.add_router("/partner/", quota_partner_router)
api.add_router("/partner/", operations_router)
# Issue 17: bulk uploads and settlement batches of the partner area.
api.add_router("/partner/", money_router)
api.add_router("/partner/", documents_router)
api.add_router("/", documents_portal_router)
# Issue 49: the partner's API keys and webhooks.
api.add_router("/partner/", integrations_router)
# Issue 49: the partner admin's fee table.
api.add_router("/partner/", fee_router)
# Issue 49: exports (XLSX), the upload template, sub-partner QR codes.
api.add_router("/partner/", operations_export_router)
api.add_router("/partner/", quota_export_router)
api.add_router("/", privacy_router)

logger = logging.getLogger("django.request")


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


@api.exception_handler(StaffError)
def _staff_error(request: HttpRequest, exc: StaffError) -> HttpResponse:
    response = api.create_response(request, exc.body(request), status=exc.status)
    if exc.wait:
        response["Retry-After"] = str(exc.wait)
    return response


@api.exception_handler(OperationsError)
def _operations_error(request: HttpRequest, exc: OperationsError) -> HttpResponse:
    return api.create_response(request, exc.body(request_language(request)), status=400)


@api.exception_handler(FeeTableError)
def _fee_table_error(request: HttpRequest, exc: FeeTableError) -> HttpResponse:
    return api.create_response(request, exc.body(request_language(request)), status=exc.status)


@api.exception_handler(Http404)
def _not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
    # Never Django's message: "No BevRegistration matches the given query." names a model.
    return api.create_response(request, {"detail": NOT_FOUND}, status=404)


def _body_error(request: HttpRequest, exc: Exception) -> HttpResponse:
    response = body_error_response(exc)
    assert response is not None
    return response


_body_exceptions: tuple[type[Exception], ...] = (RequestDataTooBig, *BODY_ERRORS)
for _body_exception in _body_exceptions:
    api.add_exception_handler(_body_exception, _body_error)  # type: ignore[arg-type]


@api.exception_handler(SuspiciousOperation)
def _suspicious(request: HttpRequest, exc: SuspiciousOperation) -> HttpResponse:
    # Django answers these 400 too; logged by Django's security logger as it would.
    logging.getLogger(f"django.security.{type(exc).__name__}").error(str(exc))
    return api.create_response(request, {"detail": BAD_REQUEST}, status=400)


@api.exception_handler(PermissionDenied)
def _forbidden(request: HttpRequest, exc: PermissionDenied) -> HttpResponse:
    return api.create_response(request, {"detail": DETAILS[403]}, status=403)


@api.exception_handler(Exception)
def _server_error(request: HttpRequest, exc: Exception) -> HttpResponse:
    """Any other failure: logged with its traceback, answered without it."""
    logger.error(
        "Internal Server Error: %s",
        request.path,
        exc_info=exc,
        extra={"status_code": 500, "request": request},
    )
    return api.create_response(request, {"detail": SERVER_ERROR}, status=500)


if settings.BENCH_ENDPOINTS:
    CONSTANT = b'{"ok":true}'

    @api.get("/bench/constant/", auth=None, include_in_schema=False)
    def bench_constant(request: HttpRequest) -> HttpResponse:
        """Baseline of the config-call benchmark: same server and stack, constant bytes."""
        return HttpResponse(CONSTANT, content_type="application/json")
