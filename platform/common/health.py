"""Probes: /healthz (the process answers) and /readyz (this pod can serve).

/readyz fails (503) only for what is this pod's own: the database connection and a local
media folder. Redis and the S3 bucket are shared by every web pod: when one of them blinks,
a 503 would take every pod out of the Service at once and turn a partial outage (the cache
and queue, or uploads) into a total one, so they are reported as "degraded" with a 200 and
their state goes to the metrics (thg_dependency_up, common.metrics) for alerting instead.
Every check is read-only and the probe writes nothing.

They are answered before host validation, the HTTPS redirect and partner resolution: the
kubelet calls the pod by its IP, with that IP as the Host header and over plain HTTP, and
neither probe reads or writes partner data.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse

from common.metrics import record_dependency

logger = logging.getLogger(__name__)

HEALTH_PATH = "/healthz"
READY_PATH = "/readyz"


def database_check() -> None:
    # A plain SELECT: no row, no table, no transaction left behind.
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


@lru_cache(maxsize=4)
def _redis(url: str):  # type: ignore[no-untyped-def]
    import redis

    # Well under the kubelet's probe timeout (1 s by default): a Redis that does not answer
    # must not make the probe itself time out.
    return redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)


def redis_check() -> None:
    if settings.REDIS_URL:
        _redis(settings.REDIS_URL).ping()


def storage_is_shared() -> bool:
    """A bucket is shared by every pod; a media folder is this pod's (its volume)."""
    return bool(getattr(default_storage, "bucket_name", None))


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


# The last result per dependency in this process (True: up), read by common.metrics.
LAST_STATE: dict[str, bool] = {}


def shared_dependencies() -> set[str]:
    """Checks whose failure degrades the service but does not make this pod unready."""
    return {"redis", "storage"} if storage_is_shared() else {"redis"}


def readiness() -> tuple[bool, dict[str, str]]:
    """(ready, check results): ready unless a check of this pod's own failed."""
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
        LAST_STATE[name] = results[name].startswith("ok")
        record_dependency(name, LAST_STATE[name])
    shared = shared_dependencies()
    return all(value.startswith("ok") for name, value in results.items() if name not in shared), results


def status_of(ready: bool, checks: dict[str, str]) -> str:
    if not ready:
        return "unavailable"
    return "ok" if all(value.startswith("ok") for value in checks.values()) else "degraded"


class HealthMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path == HEALTH_PATH:
            return JsonResponse({"status": "ok"}, headers={"Cache-Control": "no-store"})
        if request.path == READY_PATH:
            ready, checks = readiness()
            return JsonResponse(
                {"status": status_of(ready, checks), "checks": checks},
                status=200 if ready else 503,
                headers={"Cache-Control": "no-store"},
            )
        return self.get_response(request)
