"""The huey consumer (run_huey, same options) with the worker's health and metrics endpoint on
WORKER_HEALTH_PORT (common.worker_endpoint). SIGTERM stops it gracefully: the consumer takes
no new task and waits up to HUEY_SHUTDOWN_TIMEOUT seconds for the running ones (settings)."""

from __future__ import annotations

import os
from typing import Any

from huey.contrib.djhuey.management.commands.run_huey import Command as RunHuey

from common.tracing import init_tracing
from common.worker_endpoint import endpoint_start, metrics_dir_reset


class Command(RunHuey):
    help = "Run the huey consumer with its health and metrics endpoint (WORKER_HEALTH_PORT)."

    def handle(self, *args: Any, **options: Any) -> None:
        from huey.contrib.djhuey import HUEY

        # Spans of every task (common.tracing), when tracing is on.
        init_tracing(service_name="thg-worker")

        port = int(os.environ.get("WORKER_HEALTH_PORT") or 0)
        create = HUEY.create_consumer

        def create_with_endpoint(**consumer_options: Any) -> Any:
            metrics_dir_reset()
            consumer = create(**consumer_options)
            if port:
                endpoint_start(consumer, port, os.environ.get("WORKER_HEALTH_BIND", "0.0.0.0"))  # noqa: S104
            return consumer

        HUEY.create_consumer = create_with_endpoint  # type: ignore[method-assign]
        super().handle(*args, **options)
