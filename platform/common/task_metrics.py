"""Task metrics from huey's signals: runs by task and result, and their duration.

Connected when common.tasks is imported (every task module imports it), in the worker and, with
immediate tasks (tests, HUEY_IMMEDIATE), in the web process. Under process workers each worker
writes into PROMETHEUS_MULTIPROC_DIR and the worker's exporter (run_worker) sums them.
"""

from __future__ import annotations

import time
from typing import Any

from huey import signals
from huey.contrib.djhuey import HUEY

from common.metrics import TASK_DURATION, TASKS

RESULTS = {
    signals.SIGNAL_COMPLETE: "complete",
    signals.SIGNAL_ERROR: "error",
    signals.SIGNAL_RETRYING: "retried",
    signals.SIGNAL_INTERRUPTED: "interrupted",
    signals.SIGNAL_EXPIRED: "expired",
    signals.SIGNAL_CANCELED: "canceled",
    signals.SIGNAL_REVOKED: "revoked",
    signals.SIGNAL_LOCKED: "locked",
    signals.SIGNAL_TIMEOUT: "timeout",
    signals.SIGNAL_RATE_LIMITED: "rate_limited",
}
_started: dict[str, float] = {}


def task_name(task: Any) -> str:
    return str(getattr(task, "name", None) or type(task).__name__)


@HUEY.signal(signals.SIGNAL_EXECUTING)
def task_started(signal: str, task: Any, *args: Any) -> None:
    _started[task.id] = time.perf_counter()


@HUEY.signal(*RESULTS)
def task_ended(signal: str, task: Any, *args: Any) -> None:
    name = task_name(task)
    TASKS.labels(task=name, result=RESULTS[signal]).inc()
    started = _started.pop(task.id, None)
    if started is not None and signal in (signals.SIGNAL_COMPLETE, signals.SIGNAL_ERROR):
        TASK_DURATION.labels(task=name).observe(time.perf_counter() - started)
