"""Tracing with OpenTelemetry, off unless TRACING is on (by default: when OTEL_EXPORTER_OTLP_ENDPOINT
or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set). Spans go to the OTLP/HTTP exporter, configured by
the standard OTEL_* variables (endpoint, headers, OTEL_SERVICE_NAME, sampler).

- Web: a server span per Django request (opentelemetry-instrumentation-django), named by its
  route pattern, with the partner's schema as `thg.partner`; psycopg queries are child spans.
  Started in each gunicorn worker, after the fork: config.wsgi calls init_tracing before the
  app is built (gunicorn loads the app in the worker; the exporter's thread lives there).
- Worker: a consumer span per huey task (`task <name>`, with `thg.partner` for a partner's
  task), through huey's pre/post-execute hooks; the span continues the trace of the request
  that enqueued the task (its W3C traceparent travels in the task's keyword arguments and is
  taken out again before the task runs). Started by `manage.py run_worker`.

No personal data in attributes: the URL attributes keep the path only (no query string: login
keys, codes, e-mails), the SQL statement is the one with placeholders (parameters are never
captured), no user, no client address beyond what the proxy sees as its peer.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from django.conf import settings

# The task keyword argument that carries the enqueuing request's trace context.
TRACE_KWARG = "_thg_traceparent"
PARTNER_ATTRIBUTE = "thg.partner"
# URL attributes of the HTTP semantic conventions (old and new) that may hold a query string.
_URL_ATTRIBUTES = ("http.url", "url.full", "http.target")
_QUERY_ATTRIBUTES = ("url.query",)

_lock = threading.Lock()
_provider: Any = None
_pid: int | None = None
_connections: list[Any] = []


def tracing_enabled() -> bool:
    return bool(getattr(settings, "TRACING", False))


def active() -> bool:
    return _provider is not None and _pid == os.getpid()


def init_tracing(*, service_name: str, exporter: Any = None) -> bool:
    """Sets up tracing in this process once; returns whether it is on. `exporter` replaces the
    OTLP exporter (the tests pass an in-memory one, with a synchronous processor)."""
    global _provider, _pid
    if not tracing_enabled() and exporter is None:
        return False
    with _lock:
        if active():
            return True
        # Probes and the scraper are not worth a trace (read when the middleware is imported).
        os.environ.setdefault("OTEL_PYTHON_DJANGO_EXCLUDED_URLS", "healthz,readyz,metrics")
        from opentelemetry import trace
        from opentelemetry.instrumentation.django import DjangoInstrumentor
        from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

        resource = Resource.create({"service.name": os.environ.get("OTEL_SERVICE_NAME") or service_name})
        provider = TracerProvider(resource=resource)
        if exporter is None:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
        else:
            provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
        # The instrumentors patch once per process; a second provider (tests) is passed on.
        DjangoInstrumentor().instrument(
            tracer_provider=provider, request_hook=_request_hook, response_hook=_response_hook
        )
        PsycopgInstrumentor().instrument(
            tracer_provider=provider, skip_dep_check=True, enable_commenter=False
        )
        # A connection opened before (a management command's checks) is traced from now on too.
        from django.db import connections

        for wrapper in connections.all(initialized_only=True):
            if wrapper.connection is not None:
                PsycopgInstrumentor.instrument_connection(wrapper.connection, tracer_provider=provider)
                _connections.append(wrapper.connection)
        _provider, _pid = provider, os.getpid()
        return True


def shutdown_tracing() -> None:
    """Flushes and stops (the tests; a worker's exit flushes through the SDK's atexit)."""
    global _provider, _pid
    with _lock:
        if _provider is None:
            return
        from opentelemetry.instrumentation.django import DjangoInstrumentor
        from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor

        DjangoInstrumentor().uninstrument()
        PsycopgInstrumentor().uninstrument()
        for connection in _connections:
            if not connection.closed:
                PsycopgInstrumentor.uninstrument_connection(connection)
        _connections.clear()
        _provider.shutdown()
        _provider, _pid = None, None


def _without_query(url: str) -> str:
    return url.split("?", 1)[0].split("#", 1)[0]


def _scrub_url_attributes(span: Any) -> None:
    attributes = getattr(span, "attributes", None) or {}
    for name in _URL_ATTRIBUTES:
        value = attributes.get(name)
        if isinstance(value, str) and ("?" in value or "#" in value):
            span.set_attribute(name, _without_query(value))
    for name in _QUERY_ATTRIBUTES:
        if name in attributes:
            span.set_attribute(name, "")


def _request_hook(span: Any, request: Any) -> None:
    if span.is_recording():
        _scrub_url_attributes(span)


def _response_hook(span: Any, request: Any, response: Any) -> None:
    """The partner is known only after the partner middleware ran (inside this span)."""
    if not span.is_recording():
        return
    tenant = getattr(request, "tenant", None)
    span.set_attribute(PARTNER_ATTRIBUTE, getattr(tenant, "schema_name", None) or "-")
    _scrub_url_attributes(span)


# --- huey ----------------------------------------------------------------------------------

_task_spans: dict[str, tuple[Any, Any]] = {}


def _task_enqueued(signal: str, task: Any, *args: Any) -> None:
    """In the enqueuing process: the current trace context goes with the task."""
    if not active():
        return
    from opentelemetry.propagate import inject

    carrier: dict[str, str] = {}
    inject(carrier)
    if "traceparent" in carrier:
        if task.kwargs is None:
            task.kwargs = {}
        task.kwargs[TRACE_KWARG] = carrier["traceparent"]


def _task_starting(task: Any) -> None:
    """Before a task runs: the carried context is taken out of its arguments (always, so a
    worker without tracing runs a traced producer's task too), then its span starts."""
    kwargs = getattr(task, "kwargs", None) or {}
    traceparent = kwargs.pop(TRACE_KWARG, None)
    if not active():
        return
    from opentelemetry import context, trace
    from opentelemetry.propagate import extract

    parent = extract({"traceparent": traceparent}) if traceparent else None
    name = str(getattr(task, "name", None) or type(task).__name__)
    attributes = {"huey.task": name, "huey.task.id": str(task.id), "huey.retries": int(task.retries or 0)}
    if getattr(task, "tenant_task", False) and task.args:
        attributes[PARTNER_ATTRIBUTE] = str(task.args[0])
    span = _provider.get_tracer("common.tracing").start_span(
        f"task {name}", context=parent, kind=trace.SpanKind.CONSUMER, attributes=attributes
    )
    token = context.attach(trace.set_span_in_context(span))
    _task_spans[task.id] = (span, token)


def _task_finished(task: Any, value: Any, exception: BaseException | None) -> None:
    started = _task_spans.pop(task.id, None)
    if started is None:
        return
    from opentelemetry import context
    from opentelemetry.trace import Status, StatusCode

    span, token = started
    if exception is not None:
        # The exception's type only: its message may name an address or a person.
        span.set_status(Status(StatusCode.ERROR, type(exception).__name__))
        span.set_attribute("error.type", type(exception).__name__)
    span.end()
    context.detach(token)


def connect_task_tracing(huey: Any) -> None:
    """Connected when common.tasks is imported (web and worker alike); each hook does nothing
    while tracing is off, except taking a carried context out of the task's arguments."""
    from huey import signals

    huey.signal(signals.SIGNAL_ENQUEUED)(_task_enqueued)
    huey.pre_execute("thg_tracing")(_task_starting)
    huey.post_execute("thg_tracing")(_task_finished)
