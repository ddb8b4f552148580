"""The huey worker's allocator, set when a worker starts (a startup hook of the consumer).

A bulk upload's worker reads one scan after the other in its own process (huey's process
workers are daemonic and may not start the OCR pool). Each scan makes a handful of page-sized
arrays (a float32 copy of a page is about 34 MB) that live for a part of a second. glibc's
malloc serves a block above its mmap threshold from mmap and returns it at free, but raises the
threshold to the size of each such block it frees (up to 32 MB): from the first scan on, the
page arrays came from the heap, whose free space is not returned while anything above it
lives, and the next array was placed beside the freed ones instead of in them. Measured on the
bench's scans (one worker, Django loaded, both OCR engines): peak 427 MB and 360 MB between
scans with the default; 384 MB and 275 MB with a fixed threshold. A fixed threshold costs a
page fault per page of each large array (a few milliseconds per scan).

WORKER_MMAP_THRESHOLD (bytes, 0: glibc's default) sets it; at most WORKER_MALLOC_ARENAS arenas
(the OCR engines' and OpenCV's threads each get one by default, up to 8 per core).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging

from django.conf import settings
from huey.contrib.djhuey import HUEY

logger = logging.getLogger(__name__)

# mallopt() parameters (malloc.h)
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8


def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    if not name:
        return None
    try:
        libc = ctypes.CDLL(name)
    except OSError:
        return None
    # glibc only (musl has no mallopt); anything else is left as it is.
    return libc if hasattr(libc, "mallopt") and hasattr(libc, "gnu_get_libc_version") else None


def allocator_setup(threshold: int | None = None, arenas: int | None = None) -> dict[str, int]:
    """Set this process's allocator (by default as configured); returns what was set."""
    if threshold is None:
        threshold = int(getattr(settings, "WORKER_MMAP_THRESHOLD", 0))
    if arenas is None:
        arenas = int(getattr(settings, "WORKER_MALLOC_ARENAS", 0))
    libc = _libc()
    if libc is None:
        return {}
    done: dict[str, int] = {}
    # Setting either threshold also ends glibc's dynamic raise of both.
    if (
        threshold > 0
        and libc.mallopt(M_MMAP_THRESHOLD, threshold)
        and libc.mallopt(M_TRIM_THRESHOLD, threshold)
    ):
        done["mmap_threshold"] = threshold
    if arenas > 0 and libc.mallopt(M_ARENA_MAX, arenas):
        done["arena_max"] = arenas
    return done


@HUEY.on_startup("thg_worker_memory")
def worker_memory_setup() -> None:
    done = allocator_setup()
    logger.debug("worker allocator", extra=done)
