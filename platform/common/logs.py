"""Structured logs: one JSON object per line, each with the partner (schema) it belongs to.

The partner of a line is the schema the process's database connection is set to when the
line is written: a request sets it in tenants.middleware, a background task in
common.tasks.tenant_task. A line may name it explicitly with `extra={"partner": ...}`.

No secret goes into a log line: the request log names the route pattern, never the path
or query string; gunicorn's access log (AccessLogger) drops every query string and the
Referer's, which carry login keys, reset tokens and codes; and one redaction
(secrets_redact) takes every credential out of a path, whichever log it is in: reset,
staff-invite, data-export and signed scan-image segments (Django's "Not Found: <path>"
warnings go through it in PartnerFilter).

No personal data goes into a log line. Code logs ids, never e-mail addresses, names or
IBANs; as a second line of defence the formatter masks anything shaped like an e-mail
address or an IBAN, in the message, the extra fields and tracebacks alike.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from django.http import HttpRequest, HttpResponse
from gunicorn.glogging import Logger as GunicornLogger

EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
# Two letters, two check digits, then 11 to 30 letters or digits, in groups or not.
IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]){11,30}\b")

# Attributes every LogRecord has; anything else on a record came in through `extra`.
_RECORD_FIELDS = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


# Secrets inside URLs, in one place for every log (gunicorn's access log, Django's request
# warnings, our own lines): a path segment that is a credential, after its route's prefix, and
# query parameters that carry one. The credential paths: the password-reset check (token and
# user id), a staff invite (the web app's /partner/invite/<key> and the API's
# /api/partner/auth/invite/<key>/), an owner's data export, a signed scan image.
_SECRET_PATH = re.compile(r"(/password-reset/verify)[^?#\s\"']*")
_SECRET_SEGMENT = re.compile(
    r"(/(?:partner/invite|auth/invite|data_export|bev_registrations/images)/)(?!\[redacted\])[^/?#\s\"'<>]+"
)
_SECRET_PARAM = re.compile(
    r"([?&](?:key|api_key|token|code|otp_code|refresh|access|id|uid|thg_preview|signature|sig"
    r"|x-amz-signature|x-amz-credential)=)[^&#\s\"']+",
    re.IGNORECASE,
)


def path_redact(path: str) -> str:
    """A path (or any text holding paths) with every credential segment replaced."""
    return _SECRET_SEGMENT.sub(r"\1[redacted]", _SECRET_PATH.sub(r"\1/[redacted]/", path))


# The partner API's keys and webhook secrets (integrations), wherever one turns up in a line.
_SECRET_TOKEN = re.compile(r"\b(?:thg_[a-z0-9]{10}_|whsec_)[A-Za-z0-9_-]{20,}")


def secrets_redact(text: str) -> str:
    """Text with every URL credential replaced: the one redaction of every log."""
    return _SECRET_TOKEN.sub("[redacted]", _SECRET_PARAM.sub(r"\1[redacted]", path_redact(text)))


def redact(text: str) -> str:
    return IBAN.sub("[iban]", EMAIL.sub("[email]", secrets_redact(text)))


def current_schema() -> str:
    """The schema of this thread's database connection; '-' before Django is set up."""
    try:
        from django.db import connection

        return str(connection.schema_name)  # type: ignore[attr-defined]
    except Exception:
        return "-"


def record_partner(record: logging.LogRecord) -> str:
    """The partner of a line: named explicitly, or the request's (Django logs a 4xx/5xx
    after the partner middleware has restored the connection), or a tenant task's (huey
    logs 'Executing <task>' before the task enters its schema), or the connection's."""
    explicit = getattr(record, "partner", None)
    if explicit:
        return str(explicit)
    tenant = getattr(getattr(record, "request", None), "tenant", None)
    if tenant is not None:
        return str(tenant.schema_name)
    if isinstance(record.args, tuple):
        for arg in record.args:
            task_args = getattr(arg, "args", None)
            if getattr(arg, "tenant_task", False) and task_args:
                return str(task_args[0])
    return current_schema()


class PartnerFilter(logging.Filter):
    """Puts the partner on every record, and takes URL secrets out of its message for every
    format (Django logs a 4xx with the request's path: "Bad Request: /api/.../verify/<token>/")."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.partner = record_partner(record)
        message = record.getMessage()
        cleaned = secrets_redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, ()
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "partner": record_partner(record),
            "message": redact(record.getMessage()),
        }
        for key, value in vars(record).items():
            if key not in _RECORD_FIELDS and key not in line:
                line[key] = _clean(value)
        if record.exc_info:
            line["exception"] = redact(self.formatException(record.exc_info))
        if record.stack_info:
            line["stack"] = redact(self.formatStack(record.stack_info))
        return json.dumps(line, ensure_ascii=False, default=str)


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, bool | int | float) or value is None:
        return value
    if isinstance(value, list | tuple):
        return [_clean(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _clean(item) for key, item in value.items()}
    return redact(str(value))


request_logger = logging.getLogger("thg.request")


class RequestLogMiddleware:
    """One line per request: method, route pattern, status, duration and partner.

    The route pattern is logged rather than the path, so values in a path (login keys,
    ids) stay out of the logs; the query string never goes in.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        tenant = getattr(request, "tenant", None)
        request_logger.info(
            "request",
            extra={
                "partner": getattr(tenant, "schema_name", None) or "-",
                "method": request.method,
                "route": ("/" + match.route)
                if match is not None and match.route
                else url_redact(request.path),
                "status": response.status_code,
                "duration_ms": round((time.perf_counter() - started) * 1000, 1),
            },
        )
        return response


def url_redact(url: str) -> str:
    """A path or URL for a log line: without query string or fragment (login keys, reset
    tokens, codes travel there), with every credential segment of the path replaced."""
    head, has_query, _ = url.partition("?")
    head = head.split("#", 1)[0]
    return path_redact(head) + ("?[redacted]" if has_query else "")


class AccessLogger(GunicornLogger):
    """gunicorn's logger with an access log that carries no secrets (`--logger-class
    common.logs.AccessLogger`, or `logger_class` in deploy/gunicorn.conf.py): any format's
    request line, path, query, Referer and raw-URI atoms are redacted."""

    def atoms(self, resp: Any, req: Any, environ: dict[str, Any], request_time: Any) -> dict[str, Any]:
        atoms: dict[str, Any] = super().atoms(resp, req, environ, request_time)
        raw_uri = url_redact(str(environ.get("RAW_URI") or environ.get("PATH_INFO") or ""))
        atoms["r"] = f"{environ.get('REQUEST_METHOD')} {raw_uri} {environ.get('SERVER_PROTOCOL')}"
        atoms["U"] = url_redact(str(environ.get("PATH_INFO") or ""))
        atoms["q"] = ""
        for key in ("f", "{referer}i", "{http_referer}e", "{raw_uri}e", "{path_info}e", "{request_uri}e"):
            if isinstance(atoms.get(key), str):
                atoms[key] = url_redact(atoms[key])
        atoms["{query_string}e"] = ""
        return atoms
