"""The huey worker's own HTTP endpoint (manage.py run_worker), on WORKER_HEALTH_PORT:

- /healthz: 200 while the consumer runs with its workers and scheduler alive, else 503 (the
  chart's liveness probe: a consumer whose threads died is restarted);
- /metrics: the task metrics (common.metrics, summed over process workers through
  PROMETHEUS_MULTIPROC_DIR) and the queue length, with METRICS_ENABLED, to a peer in
  METRICS_ALLOWED_NETWORKS; else 404. The worker has no Service or ingress: Prometheus scrapes
  the pod.
"""

from __future__ import annotations

import ipaddress
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from django.conf import settings
from prometheus_client import CONTENT_TYPE_LATEST

from common.metrics import _networks, exposition


def consumer_alive(consumer: Any) -> bool:
    if consumer.stop_flag.is_set():
        return False
    processes = [process for _, process in consumer.worker_threads]
    if consumer.scheduler is not None:
        processes.append(consumer.scheduler)
    return all(consumer.environment.is_alive(process) for process in processes)


def metrics_dir_reset() -> None:
    """A new consumer starts from zero, as gunicorn's master does (deploy/gunicorn.conf.py)."""
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        for stale in Path(folder).glob("*.db"):
            stale.unlink()


def endpoint_start(consumer: Any, port: int, host: str = "0.0.0.0") -> ThreadingHTTPServer:  # noqa: S104 (the pod's port)
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path == "/healthz":
                alive = consumer_alive(consumer)
                self.answer(200 if alive else 503, json.dumps({"status": "ok" if alive else "down"}).encode())
            elif self.path == "/metrics" and self.may_read_metrics():
                self.answer(200, exposition(), CONTENT_TYPE_LATEST)
            else:
                self.answer(404, b'{"detail": "Not found."}')

        def may_read_metrics(self) -> bool:
            if not settings.METRICS_ENABLED:
                return False
            peer = ipaddress.ip_address(self.client_address[0])
            return any(peer in network for network in _networks(settings.METRICS_ALLOWED_NETWORKS))

        def answer(self, status: int, body: bytes, content_type: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass  # probes and scrapes every few seconds: no log lines

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="worker-endpoint", daemon=True).start()
    return server
