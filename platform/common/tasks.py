"""Background tasks carry their partner: the schema name is an argument, and the task body
runs inside that schema. Nothing reads "the current partner" from a global."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from django_tenants.utils import schema_context
from huey.contrib.djhuey import HUEY, db_task

import common.task_metrics  # noqa: F401 (connects the task metrics to huey's signals)
import common.worker_memory  # noqa: F401 (the worker's allocator, set as it starts)
from common.tracing import connect_task_tracing

logger = logging.getLogger(__name__)

connect_task_tracing(HUEY)

P = ParamSpec("P")
R = TypeVar("R")


def tenant_task(**task_options: Any) -> Callable[[Callable[..., R]], Any]:
    """A huey task whose first argument is the schema name it runs in."""

    def decorate(func: Callable[..., R]) -> Any:
        @functools.wraps(func)
        def run(schema_name: str, *args: Any, **kwargs: Any) -> R:
            with schema_context(schema_name):
                try:
                    return func(schema_name, *args, **kwargs)
                except Exception:
                    # Logged here, inside the schema, so the line names the partner; huey
                    # logs the failure again and retries as configured.
                    logger.exception("task failed", extra={"task": func.__name__})
                    raise

        wrapper = db_task(**task_options)(run)
        # Tells the log filter (common.logs) that the first argument is the schema.
        wrapper.task_class.tenant_task = True
        return wrapper

    return decorate
