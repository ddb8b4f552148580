"""Prometheus metrics: requests by route pattern, status and partner, latency histograms,
and the state of the shared dependencies (Redis, the bucket) seen by /readyz.

Labels carry no personal data and no values from a path: the route is the URL pattern
(as in common.logs.RequestLogMiddleware's log line), "[unmatched]" for a path no route
matched, the partner is its schema name.

/metrics is answered only when METRICS_ENABLED is on, to a peer in METRICS_ALLOWED_NETWORKS
(the Prometheus server scraping the pod directly) and never to a request that came through a
proxy (the ingress adds X-Forwarded-For): the internet cannot read it through any host.
Everywhere else the path answers 404.

Under gunicorn every worker is its own process: with PROMETHEUS_MULTIPROC_DIR set (the chart
sets it to a folder on the pod's /tmp emptyDir) each worker writes its values into that
folder and /metrics sums them over all workers (deploy/gunicorn.conf.py empties the folder
at start and marks exited workers dead). Without it, a scrape sees one worker's numbers.
"""

from __future__ import annotations

import ipaddress
import os
import time
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client import REGISTRY as DEFAULT_REGISTRY

METRICS_PATH = "/metrics"
PROXY_HEADERS = ("HTTP_X_FORWARDED_FOR", "HTTP_X_REAL_IP", "HTTP_FORWARDED")
KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

REQUESTS = Counter(
    "thg_http_requests",
    "HTTP requests answered, by method, route pattern, status and partner.",
    ["method", "route", "status", "partner"],
)
LATENCY = Histogram(
    "thg_http_request_duration_seconds",
    "Time to answer an HTTP request, by method and route pattern.",
    ["method", "route"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
DEPENDENCY_UP = Gauge(
    "thg_dependency_up",
    "1 when the dependency answered the last readiness check of this pod, else 0.",
    ["dependency"],
    multiprocess_mode="livemax",
)


def record_dependency(name: str, up: bool) -> None:
    DEPENDENCY_UP.labels(dependency=name).set(1 if up else 0)


def route_of(request: HttpRequest) -> str:
    """The URL pattern that answered (never the path: it carries ids and login keys)."""
    match = getattr(request, "resolver_match", None)
    if match is not None and match.route:
        return "/" + str(match.route)
    return "[unmatched]"


@lru_cache(maxsize=8)
def _networks(raw: str) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(item.strip(), strict=False) for item in raw.split(",") if item.strip())


def may_read_metrics(request: HttpRequest) -> bool:
    if not settings.METRICS_ENABLED:
        return False
    if any(header in request.META for header in PROXY_HEADERS):
        return False
    try:
        peer = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    return any(peer in network for network in _networks(settings.METRICS_ALLOWED_NETWORKS))


def exposition() -> bytes:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        registry.register(QUEUE_LENGTH)  # type: ignore[arg-type]
        return generate_latest(registry)
    return generate_latest(DEFAULT_REGISTRY)


class MetricsMiddleware:
    """Counts every request below the probes, and answers /metrics to allowed scrapers."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path == METRICS_PATH:
            if not may_read_metrics(request):
                return JsonResponse({"detail": "Not found."}, status=404)
            return HttpResponse(
                exposition(), content_type=CONTENT_TYPE_LATEST, headers={"Cache-Control": "no-store"}
            )
        started = time.perf_counter()
        response = self.get_response(request)
        method = request.method if request.method in KNOWN_METHODS else "other"
        route = route_of(request)
        tenant = getattr(request, "tenant", None)
        REQUESTS.labels(
            method=method,
            route=route,
            status=str(response.status_code),
            partner=getattr(tenant, "schema_name", None) or "-",
        ).inc()
        LATENCY.labels(method=method, route=route).observe(time.perf_counter() - started)
        return response


# --- Background tasks, mails, logins ----------------------------------------------------------
# Counted where they happen: tasks by huey's signals (common.task_metrics) in the worker, mails
# by accounts.mails.mail_send, logins and throttles by the login services. Labels are fixed
# names (task, mail template, login kind, result), never an address or a user.

TASKS = Counter(
    "thg_tasks",
    "Background task runs by task and result (complete, error, retried, interrupted, expired, ...).",
    ["task", "result"],
)
TASK_DURATION = Histogram(
    "thg_task_duration_seconds",
    "Time a background task ran, by task (complete and failed runs).",
    ["task"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300),
)
MAILS = Counter(
    "thg_mails",
    "E-mails handed to the mail server, by template and result (sent, failed).",
    ["template", "result"],
)
LOGINS = Counter(
    "thg_logins",
    "Password logins by kind (portal, admin) and result (success, failed, throttled).",
    ["kind", "result"],
)
# The document check of an upload (registrations.ocr_pool): the pool's own time per page by
# outcome (accepted, refused: no ZB I, invalid: size/type/damaged, busy: no place or no result
# in time, error), and the time an upload waited for a place in the pool.
SCAN_CHECK = Histogram(
    "thg_scan_check_duration_seconds",
    "Time the document check took for one upload, by outcome.",
    ["outcome"],
    buckets=(0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 30),
)
# Labelled on purpose: a metric without labels writes its file under PROMETHEUS_MULTIPROC_DIR
# on import, before the worker clears that folder of stale files (and with it this one).
SCAN_CHECK_WAIT = Histogram(
    "thg_scan_check_wait_seconds",
    "Time an upload waited for the document check's pool (queue and transfer), by origin (flow, bulk).",
    ["origin"],
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)


class QueueLengthCollector:
    """thg_task_queue_length{state}: read from the queue (Redis) at scrape time, so every web pod
    reports the same number. Nothing when the queue cannot be read: thg_dependency_up says why."""

    def describe(self) -> list[Any]:
        # Nothing read at registration (import time): the queue is asked only by a scrape.
        return []

    def collect(self):  # type: ignore[no-untyped-def]
        from huey.contrib.djhuey import HUEY
        from prometheus_client.core import GaugeMetricFamily

        try:
            pending, scheduled = HUEY.pending_count(), HUEY.scheduled_count()
        except Exception:  # noqa: BLE001 (a scrape must not fail with the queue)
            return
        family = GaugeMetricFamily(
            "thg_task_queue_length",
            "Tasks waiting in the queue (pending) or for their time (scheduled).",
            labels=["state"],
        )
        family.add_metric(["pending"], pending)
        family.add_metric(["scheduled"], scheduled)
        yield family


QUEUE_LENGTH = QueueLengthCollector()
DEFAULT_REGISTRY.register(QUEUE_LENGTH)  # type: ignore[arg-type]
