"""Probes: /healthz (the process answers) and /readyz (database, Redis and storage reachable).

They are answered before host validation, the HTTPS redirect and partner resolution: the
kubelet calls the pod by its IP, with that IP as the Host header and over plain HTTP, and
neither probe reads or writes partner data.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse

logger = logging.getLogger(__name__)

HEALTH_PATH = "/healthz"
READY_PATH = "/readyz"


def database_check() -> None:
    # A plain SELECT: no row, no table, no transaction left behind.
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


@cache
def _redis():  # type: ignore[no-untyped-def]
    import redis

    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2)


def redis_check() -> None:
    if settings.REDIS_URL:
        _redis().ping()


def storage_check() -> None:
    bucket = getattr(default_storage, "bucket_name", None)
    if bucket:
        # One HEAD on the bucket: reachable, credentials valid, bucket present.
        default_storage.connection.meta.client.head_bucket(Bucket=bucket)  # type: ignore[attr-defined]
    else:
        # Read-only: a probe called every few seconds writes nothing. The folder (or, before
        # the first upload, the nearest existing parent the storage will create it in) must
        # be a writable directory.
        folder = Path(settings.MEDIA_ROOT)
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
        if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
            raise PermissionError("media folder not writable")


CHECKS: dict[str, Callable[[], None]] = {
    "database": database_check,
    "redis": redis_check,
    "storage": storage_check,
}


def readiness() -> tuple[bool, dict[str, str]]:
    results: dict[str, str] = {}
    for name, check in CHECKS.items():
        started = time.perf_counter()
        try:
            check()
        except Exception as exc:
            # The class only: a driver's message may carry a host name or a user.
            results[name] = f"error: {type(exc).__name__}"
            logger.warning(
                "readiness check failed",
                extra={"check": name, "error": type(exc).__name__, "partner": "-"},
            )
        else:
            results[name] = f"ok ({(time.perf_counter() - started) * 1000:.0f} ms)"
    return all(value.startswith("ok") for value in results.values()), results


class HealthMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path == HEALTH_PATH:
            return JsonResponse({"status": "ok"}, headers={"Cache-Control": "no-store"})
        if request.path == READY_PATH:
            ready, checks = readiness()
            return JsonResponse(
                {"status": "ok" if ready else "unavailable", "checks": checks},
                status=200 if ready else 503,
                headers={"Cache-Control": "no-store"},
            )
        return self.get_response(request)
