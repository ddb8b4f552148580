"""Tracing (common.tracing): off unless configured; on, a request on a partner's host is a server
span with the partner and its queries as child spans, a task is a span continuing the trace that
enqueued it, and no attribute holds a query string's values or an e-mail address.

Spans are kept by the SDK's InMemorySpanExporter instead of being sent."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from common.tracing import TRACE_KWARG, active, init_tracing, shutdown_tracing

ROOT = Path(__file__).resolve().parents[2]
DJANGO_MIDDLEWARE = "opentelemetry.instrumentation.django.middleware.otel_middleware._DjangoMiddleware"

pytestmark = pytest.mark.django_db


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    assert init_tracing(service_name="thg-test", exporter=exporter)
    yield exporter
    shutdown_tracing()


def _schema(subdomain: str) -> str:
    from tenants.models import Partner

    return str(Partner.objects.get(subdomain=subdomain).schema_name)


def _no_personal_data(finished: Any) -> None:
    for span in finished:
        text = json.dumps({key: str(value) for key, value in (span.attributes or {}).items()})
        for personal in ("481516", "erika", "example.org", "%40"):
            assert personal not in text, (span.name, text)


def test_with_tracing_off_nothing_is_set_up() -> None:
    assert settings.TRACING is False
    assert init_tracing(service_name="thg-web") is False
    assert not active()
    assert DJANGO_MIDDLEWARE not in settings.MIDDLEWARE


def _wsgi_probe(**env: str) -> dict[str, Any]:
    code = (
        "import json, sys; import config.wsgi; from django.conf import settings; "
        "from common.tracing import active; "
        "print('OUT' + json.dumps({'active': active(), 'sdk': 'opentelemetry.sdk.trace' in sys.modules, "
        f"'middleware': {DJANGO_MIDDLEWARE!r} in settings.MIDDLEWARE}}))"
    )
    base = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "TRACING"))}
    base.update({"PYTHONPATH": f"{ROOT}:{ROOT / 'platform'}", "DEBUG": "1", **env})
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=base, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    line = next(line for line in result.stdout.splitlines() if line.startswith("OUT"))
    return json.loads(line.removeprefix("OUT"))  # type: ignore[no-any-return]


def test_the_web_process_starts_tracing_only_with_an_endpoint_or_tracing_on() -> None:
    assert _wsgi_probe() == {"active": False, "sdk": False, "middleware": False}
    on = {"active": True, "sdk": True, "middleware": True}
    assert _wsgi_probe(OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:9") == on
    assert _wsgi_probe(TRACING="1", OTEL_EXPORTER_OTLP_ENDPOINT="") == on
    assert _wsgi_probe(TRACING="0", OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:9")["active"] is False


def test_a_request_on_a_partner_host_is_a_server_span_with_the_partner_and_its_queries(
    spans: InMemorySpanExporter, client: Any
) -> None:
    # when a partner's page asks for its configuration, with personal data in the query string
    response = client.get(
        "/api/configs/autohaus/?code=481516&email=erika%40example.org", HTTP_HOST="autohaus.localhost"
    )
    assert response.status_code == 200

    finished = spans.get_finished_spans()
    server = [span for span in finished if span.kind == SpanKind.SERVER]
    assert len(server) == 1, [span.name for span in finished]
    request = server[0]
    attributes = dict(request.attributes or {})
    assert attributes[PARTNER] == _schema("autohaus")
    assert request.name == "GET api/configs/<subdomain>/"  # the route, not the path
    assert attributes.get("http.status_code", attributes.get("http.response.status_code")) == 200
    queries = [
        span for span in finished if span.kind == SpanKind.CLIENT and (span.attributes or {}).get("db.system")
    ]
    assert queries, [span.name for span in finished]
    for query in queries:
        assert query.context.trace_id == request.context.trace_id
        assert query.parent is not None and query.parent.span_id == request.context.span_id
    # the statement with placeholders, never the values
    assert not any("db.statement.parameters" in (query.attributes or {}) for query in queries)
    _no_personal_data(finished)


PARTNER = "thg.partner"


def test_a_task_is_a_span_of_its_partner_continuing_the_enqueuing_trace(spans: InMemorySpanExporter) -> None:
    from common import tracing
    from registrations.tasks import scan_orphans_sweep

    schema = _schema("stadtwerk")
    # given a request's span is current when the task is enqueued (huey runs it at once in tests)
    with tracing._provider.get_tracer("test").start_as_current_span("enqueuing request") as parent:
        scan_orphans_sweep(schema)

    finished = spans.get_finished_spans()
    task = next(span for span in finished if span.name == "task scan_orphans_sweep")
    assert task.kind == SpanKind.CONSUMER
    assert task.attributes[PARTNER] == schema  # type: ignore[index]
    assert task.status.status_code != StatusCode.ERROR
    assert task.context.trace_id == parent.get_span_context().trace_id
    assert task.parent is not None and task.parent.span_id == parent.get_span_context().span_id
    _no_personal_data(finished)


def test_a_failing_task_is_an_error_span_naming_the_type_only(spans: InMemorySpanExporter) -> None:
    from operations.tasks import bulk_item_run

    bulk_item_run(_schema("autohaus"), 987_654_321)  # no such item: DoesNotExist

    task = next(span for span in spans.get_finished_spans() if span.name == "task bulk_item_run")
    assert task.status.status_code == StatusCode.ERROR
    assert task.attributes["error.type"] == task.status.description == "DoesNotExist"  # type: ignore[index]
    assert task.parent is None  # nothing was current: a trace of its own


def test_a_task_carrying_a_trace_runs_in_a_worker_without_tracing() -> None:
    from huey.contrib.djhuey import HUEY

    from registrations.tasks import scan_orphans_sweep

    assert not active()
    task = scan_orphans_sweep.s(_schema("wallbox"))
    task.kwargs = {TRACE_KWARG: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}

    result = HUEY.execute(task)

    assert task.kwargs == {}
    assert result is None  # ran: a left-over argument would have been a TypeError
