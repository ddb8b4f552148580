"""Every answer under /api/ is JSON in the spec's shape and is not stored by any cache.

The API's own errors are shaped in config.api. This middleware covers what happens outside an
endpoint: bodies refused before they are read (chunked, over the limit), errors Django answers
with its own HTML page (a 400 for a bad request, a CSRF 403, a 405, the 500 page of an
exception in a middleware) and the Cache-Control of answers carrying personal data or tokens.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.http.request import UnreadablePostError

API_PREFIX = "/api/"
# Public, partner-wide answers with caching of their own (ETag / revalidation); everything
# else under /api/ may carry personal data or tokens.
CACHEABLE = re.compile(r"^/api/(configs/[^/]+/|system_constraints/)$")

BAD_REQUEST = "Ungültige Anfrage."
CHUNKED = "Die Anfrage braucht eine Content-Length; Transfer-Encoding: chunked wird nicht angenommen."
TOO_LARGE = "Die Anfrage ist zu groß."
NOT_FOUND = "Not found."
SERVER_ERROR = "Interner Fehler."
DETAILS = {
    400: BAD_REQUEST,
    401: "Nicht angemeldet.",
    403: "Zugriff verweigert.",
    404: NOT_FOUND,
    405: "Diese Methode ist hier nicht erlaubt.",
    413: TOO_LARGE,
    415: "Dieser Content-Type wird nicht angenommen.",
    429: "Zu viele Anfragen. Bitte versuchen Sie es später erneut.",
}

# Raised lazily by Django when request.body / POST / FILES is read: the client's fault.
BODY_ERRORS: tuple[type[Exception], ...] = (
    TooManyFieldsSent,
    TooManyFilesSent,
    MultiPartParserError,
    UnreadablePostError,
)

BULK_UPLOAD_PATH = "/api/partner/bulk_uploads/"


def body_error_response(exc: Exception) -> JsonResponse | None:
    """The JSON answer to a body Django refused to parse, or None for any other error."""
    if isinstance(exc, RequestDataTooBig):
        return JsonResponse({"detail": TOO_LARGE}, status=413)
    if isinstance(exc, BODY_ERRORS):
        return JsonResponse({"detail": BAD_REQUEST}, status=400)
    return None


def body_limit(content_type: str, path: str = "") -> int:
    """The largest body accepted: a scan upload (multipart) or any other request."""
    if content_type.startswith("multipart/form-data") and path == BULK_UPLOAD_PATH:
        return int(settings.BULK_UPLOAD_MAX_BODY_SIZE)  # a ZIP of scans (operations.archive)
    if content_type.startswith("multipart/form-data"):
        return int(settings.UPLOAD_MAX_BODY_SIZE)
    return int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)


def _is_json(response: HttpResponse) -> bool:
    return str(response.get("Content-Type", "")).startswith("application/json")


class ApiErrorMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith(API_PREFIX):
            return self.get_response(request)
        response = self._refuse_body(request) or self.get_response(request)
        if response.status_code >= 400 and not _is_json(response) and not response.streaming:
            response = self._as_json(response)
        if not CACHEABLE.match(request.path):
            response["Cache-Control"] = "no-store"
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        # An endpoint's body errors are answered in config.api; these come from a view or
        # middleware outside ninja that read the body.
        if request.path.startswith(API_PREFIX):
            return body_error_response(exception)
        return None

    def _refuse_body(self, request: HttpRequest) -> JsonResponse | None:
        meta = request.META
        declared = meta.get("CONTENT_LENGTH") or ""
        if meta.get("HTTP_TRANSFER_ENCODING") and not declared:
            # Django reads no more than Content-Length: a chunked body would be taken as empty.
            return JsonResponse({"detail": CHUNKED, "error_code": "LENGTH_REQUIRED"}, status=400)
        if not declared:
            return None
        if not declared.isdigit():
            return JsonResponse({"detail": BAD_REQUEST}, status=400)
        if int(declared) > body_limit(str(meta.get("CONTENT_TYPE", "")), request.path):
            # Refused before a byte of the body is read or stored.
            return JsonResponse({"detail": TOO_LARGE}, status=413)
        return None

    def _as_json(self, response: HttpResponse) -> HttpResponse:
        """Django's HTML error pages (or an empty 405) as the API's {"detail": ...}."""
        status = response.status_code
        shaped = JsonResponse({"detail": DETAILS.get(status, SERVER_ERROR if status >= 500 else BAD_REQUEST)})
        shaped.status_code = status
        for header in ("Allow", "Retry-After", "WWW-Authenticate"):
            if header in response:
                shaped[header] = response[header]
        shaped.cookies = response.cookies
        return shaped
