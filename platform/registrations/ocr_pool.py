"""The document check off the web workers: a small pool of processes per serving process.

Why: the check (decode, straighten, Tesseract, redaction) takes about a second of CPU per page.
Run in gunicorn's request threads, 16 owners uploading at once filled every thread of every
worker and held the GIL between Tesseract runs: the other calls of the site waited behind
them. Here

- the work runs in OCR_WORKERS processes per serving process (spawned, not forked from a
  threaded worker: no lock copied half-held), at a lower CPU priority (OCR_NICE), so a page
  being read never takes the CPU from a request;
- at most OCR_MAX_IN_FLIGHT checks per serving process are queued or running; one more is
  refused at once (`OcrBusy`, answered 503 with Retry-After) instead of holding one more of
  the worker's threads: keep it below gunicorn's threads, so a thread stays free for the
  other calls;
- a request waits at most OCR_WAIT_SECONDS for its result (below gunicorn's timeout);
- each pool process is replaced after OCR_TASKS_PER_CHILD pages (memory stays bounded) and
  exits by itself when its parent is gone (a killed gunicorn worker leaves no process).

Background callers (the partner area's bulk upload) wait for a place instead of being refused.
The module imports no models: the pool's processes load it to run `scan_check`.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from PIL import Image

from registrations.errors import ScanRejected
from registrations.intake import scan_prepare
from registrations.reader import Reading, document_check, document_read
from registrations.redaction import scan_redact


class OcrBusy(Exception):
    """No place in the pool (or no result in time): the client may try again later."""

    def __init__(self, retry_after: int):
        self.retry_after = retry_after
        super().__init__("ocr busy")


@dataclass(frozen=True)
class CheckLimits:
    min_size: int
    max_pixels: int
    max_bytes: int


@dataclass(frozen=True)
class CheckResult:
    """What the pool hands back: the stored images, the reading (without the page's pixels)
    and the redacted copies; or the refusal (code and details of ScanRejected)."""

    seconds: float
    rejected_code: str = ""
    rejected_details: dict[str, Any] = dataclasses.field(default_factory=dict)
    image_bytes: bytes = b""
    resized_bytes: bytes = b""
    width: int = 0
    height: int = 0
    content_type: str = ""
    reading: Reading | None = None
    display_bytes: bytes = b""
    display_resized_bytes: bytes = b""
    redaction: str = ""


def scan_check(data: bytes, limits: CheckLimits, skip_classifier: bool) -> CheckResult:
    """Intake, reader, classifier and redaction of one upload (runs in a pool process)."""
    started = time.perf_counter()
    Image.MAX_IMAGE_PIXELS = limits.max_pixels  # the caller's limit (a test may lower it)
    try:
        prepared = scan_prepare(
            data, min_size=limits.min_size, max_pixels=limits.max_pixels, max_bytes=limits.max_bytes
        )
        reading = document_read(prepared.image)
        if not skip_classifier:
            document_check(reading)
    except ScanRejected as rejected:
        # returned, not raised: the exception's details would not survive pickling
        return CheckResult(
            seconds=time.perf_counter() - started,
            rejected_code=rejected.code,
            rejected_details=rejected.details,
        )
    redacted = scan_redact(prepared.image, reading)
    return CheckResult(
        seconds=time.perf_counter() - started,
        image_bytes=prepared.image_bytes,
        resized_bytes=prepared.resized_bytes,
        width=prepared.width,
        height=prepared.height,
        content_type=prepared.content_type,
        reading=dataclasses.replace(reading, page=None),
        display_bytes=redacted.image_bytes,
        display_resized_bytes=redacted.resized_bytes,
        redaction=redacted.method,
    )


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(0)


def _child_init(parent: int, nice: int) -> None:
    if nice:
        os.nice(nice)  # Tesseract, started from here, inherits it
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="ocr-parent-watch").start()


def pool_settings() -> tuple[int, int, float, int, int]:
    workers = int(getattr(settings, "OCR_WORKERS", 1))
    in_flight = int(getattr(settings, "OCR_MAX_IN_FLIGHT", 3))
    wait = float(getattr(settings, "OCR_WAIT_SECONDS", 40))
    per_child = int(getattr(settings, "OCR_TASKS_PER_CHILD", 50))
    nice = int(getattr(settings, "OCR_NICE", 10))
    return max(1, workers), max(1, in_flight), wait, max(1, per_child), max(0, nice)


class _Pool:
    """One per process (a forked gunicorn worker builds its own on first use)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pid = 0
        self._executor: ProcessPoolExecutor | None = None
        self._slots: threading.BoundedSemaphore | None = None

    def _ensure(self) -> tuple[ProcessPoolExecutor, threading.BoundedSemaphore]:
        with self._lock:
            if self._executor is None or self._pid != os.getpid() or self._slots is None:
                workers, in_flight, _, per_child, nice = pool_settings()
                self._executor = ProcessPoolExecutor(
                    max_workers=workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_child_init,
                    initargs=(os.getpid(), nice),
                    max_tasks_per_child=per_child,
                )
                self._slots = threading.BoundedSemaphore(in_flight)
                self._pid = os.getpid()
            return self._executor, self._slots

    def run(
        self, data: bytes, limits: CheckLimits, skip_classifier: bool, *, background: bool
    ) -> CheckResult:
        """The check's result. A request is refused at once when OCR_MAX_IN_FLIGHT checks are
        queued or running, and answered OcrBusy when no result came in OCR_WAIT_SECONDS; a
        background caller waits for its turn."""
        executor, slots = self._ensure()
        _, _, wait, _, _ = pool_settings()
        if not slots.acquire(blocking=background):
            raise OcrBusy(retry_after=max(5, round(wait / 4)))
        try:
            future: Future[CheckResult] = executor.submit(scan_check, data, limits, skip_classifier)
        except Exception:
            slots.release()
            raise
        # the place is freed when the work ends, not when the caller stops waiting for it
        future.add_done_callback(lambda _: slots.release())
        try:
            return future.result(timeout=None if background else wait)
        except FutureTimeout:
            future.cancel()
            raise OcrBusy(retry_after=max(5, round(wait / 4))) from None
        except BrokenProcessPool:
            # a pool process died (killed, out of memory): the next call starts a new pool
            with self._lock:
                if self._executor is executor:
                    self._executor = None
            executor.shutdown(wait=False, cancel_futures=True)
            raise

    def shutdown(self) -> None:
        with self._lock:
            if self._executor is not None and self._pid == os.getpid():
                self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor, self._slots, self._pid = None, None, 0

    def processes(self) -> list[int]:
        """The pool's process ids (tests: nothing leaks)."""
        executor = self._executor
        if executor is None or self._pid != os.getpid():
            return []
        return [p.pid for p in getattr(executor, "_processes", {}).values() if p.pid]


POOL = _Pool()


def scan_check_pooled(
    data: bytes, limits: CheckLimits, skip_classifier: bool, *, background: bool = False
) -> CheckResult:
    if background and multiprocessing.current_process().daemon:
        # A huey process worker (HUEY_WORKER_TYPE=process) is daemonic and may not start a pool;
        # it is a process of its own already, so the check runs in it.
        return scan_check(data, limits, skip_classifier)
    return POOL.run(data, limits, skip_classifier, background=background)
