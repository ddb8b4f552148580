"""A huey worker's allocator (common.worker_memory): the page-sized arrays of a scan go back to
the system when freed, so a bulk upload's worker does not keep the last scan's arrays beside
the next scan's (the peak per worker was over its 400 MB target)."""

from __future__ import annotations

import multiprocessing
from typing import Any

from huey.contrib.djhuey import HUEY

from common.worker_memory import allocator_setup, worker_memory_setup

ARRAY_MB = 24


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 / 2**20


def _scan_like_work(answer: Any, threshold: int, arenas: int) -> None:
    """In a fresh daemonic process (a forked one would start from the test process's heap,
    whatever it holds): the worker's allocator setup, then page-sized arrays made and freed
    one after the other, with small blocks allocated between them (a scan's results); answers
    how much of it the process still holds."""
    import numpy as np

    done = allocator_setup(threshold, arenas)
    before = _rss_mb()
    kept = []
    for _ in range(6):
        page = np.ones(ARRAY_MB * 2**20 // 8)  # every page touched: resident
        kept.append(bytearray(4096))
        del page
    answer.put((done, _rss_mb() - before))


def _in_worker_process(threshold: int, arenas: int) -> tuple[dict[str, int], float]:
    context = multiprocessing.get_context("spawn")
    answer = context.Queue()
    process = context.Process(target=_scan_like_work, args=(answer, threshold, arenas), daemon=True)
    process.start()
    result: tuple[dict[str, int], float] = answer.get(timeout=60)
    process.join(timeout=30)
    return result


def test_a_worker_gives_back_the_arrays_it_freed(settings: Any) -> None:
    done, kept_mb = _in_worker_process(settings.WORKER_MMAP_THRESHOLD, settings.WORKER_MALLOC_ARENAS)
    assert done == {"mmap_threshold": 128 * 1024, "arena_max": 2}
    assert kept_mb < ARRAY_MB / 4, kept_mb


def test_with_glibcs_default_the_worker_kept_a_freed_array() -> None:
    """What the setting is for: glibc raises its mmap threshold to a freed array's size, and the
    next array of that size comes from the heap, where it stays resident after the free."""
    done, kept_mb = _in_worker_process(0, 0)
    assert done == {}
    assert kept_mb > ARRAY_MB * 0.75, kept_mb


def test_every_huey_worker_sets_it_as_it_starts(settings: Any) -> None:
    assert HUEY._startup.get("thg_worker_memory") is worker_memory_setup
    settings.WORKER_MMAP_THRESHOLD, settings.WORKER_MALLOC_ARENAS = 0, 0
    assert allocator_setup() == {}  # the settings decide (0: glibc's own)
