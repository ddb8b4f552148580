"""gunicorn for production: the image's web command is `gunicorn -c deploy/gunicorn.conf.py`.

Every number can be changed by an environment variable; the chart sets them.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for entry in (str(ROOT), str(ROOT / "platform")):
    if entry not in sys.path:
        sys.path.insert(0, entry)

# Metrics of all workers (common.metrics): each worker writes its values into this folder,
# emptied here when the server starts, since files of an earlier run would be counted again.
PROMETHEUS_MULTIPROC_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")
if PROMETHEUS_MULTIPROC_DIR:
    _metrics_dir = Path(PROMETHEUS_MULTIPROC_DIR)
    _metrics_dir.mkdir(parents=True, exist_ok=True)
    for _stale in _metrics_dir.glob("*.db"):
        _stale.unlink()


def child_exit(server, worker):  # type: ignore[no-untyped-def]
    """An exited worker's live gauges are dropped; its counters stay in the sums."""
    if PROMETHEUS_MULTIPROC_DIR:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]


wsgi_app = "config.wsgi:application"
chdir = str(ROOT / "platform")
bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
# Worker recycling: a worker's memory grows with the partners it served (Django's and
# django-tenants' per-schema caches); a fresh one starts after this many requests, the
# jitter keeps the workers of a pod from restarting together.
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "2000"))
max_requests_jitter = int(os.environ.get("GUNICORN_MAX_REQUESTS_JITTER", "200"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "60"))
# Shorter than the pod's terminationGracePeriodSeconds, so requests in flight finish.
graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", "20"))
keepalive = 5
# The heartbeat file on tmpfs: a container's overlay disk can stall a worker's heartbeat.
# Only heartbeat files go there (no data), in the container's own tmpfs.
SHM = "/dev/shm"  # noqa: S108
worker_tmp_dir = SHM if os.path.isdir(SHM) else None
control_socket_disable = True
# The proxies in front (TRUSTED_PROXIES, read by common.client for every per-client limit) are
# the only peers whose X-Forwarded-Proto gunicorn believes: the same networks; with a count
# the addresses are unknown, so any peer (the count already assumes every request passes the
# proxies); with none, nobody.
from common.client import trusted_proxies_parse  # noqa: E402

_trusted = trusted_proxies_parse(os.environ.get("TRUSTED_PROXIES", "").strip())
if isinstance(_trusted, int):
    forwarded_allow_ips = "*" if _trusted else ""
else:
    forwarded_allow_ips = ",".join(str(network) for network in _trusted)
# The request line comes from common.logs.RequestLogMiddleware, with the partner and without
# the query string; gunicorn's access log would repeat it without either. Should it be turned
# on, this logger drops query strings, reset tokens and the Referer's query from every line.
accesslog = None
logger_class = "common.logs.AccessLogger"
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "info").lower()
logconfig_dict = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"partner": {"()": "common.logs.PartnerFilter"}},
    "formatters": {"json": {"()": "common.logs.JsonFormatter"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json",
            "filters": ["partner"],
            "stream": "ext://sys.stderr",
        }
    },
    "loggers": {
        "gunicorn.error": {"handlers": ["console"], "level": loglevel.upper(), "propagate": False},
        "gunicorn.access": {"handlers": [], "propagate": False},
    },
}
