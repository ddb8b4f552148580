"""Runs the upload pipeline on one file in a fresh process and prints its figures as JSON.

Usage: python -m tests.bench.upload_probe FILE RUNS (DATABASE_URL pointing at the test
database). A fresh process per file, so its peak resident size belongs to that file alone.
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def _status_mb(pid: int | str, field: str) -> float:
    """A size from /proc/PID/status in MB (0 when the process is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _children(pid: str = "self") -> list[str]:
    """Every descendant: the check's pool process (registrations.ocr_pool) and its Tesseract."""
    found: list[str] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                found += (task / "children").read_text().split()
    return found + [grandchild for child in found for grandchild in _children(child)]


class TreeSampler(threading.Thread):
    """Samples the resident size of this process plus its children (Tesseract) every 2 ms.

    getrusage's maxima cannot be used: Linux carries them across fork and exec, so they
    would report the parent's size."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak = 0.0
        self.child_peak = 0.0
        self.running = True

    def run(self) -> None:
        while self.running:
            children = sum(_status_mb(pid, "VmRSS") for pid in _children())
            self.child_peak = max(self.child_peak, children)
            self.peak = max(self.peak, _status_mb("self", "VmRSS") + children)
            time.sleep(0.002)


def main(path: str, runs: int) -> None:
    import django

    django.setup()
    from django.core.files.storage import default_storage
    from django_tenants.utils import tenant_context

    from accounts.models import User
    from registrations.intake import scan_prepare
    from registrations.models import BevRegistration
    from registrations.services import registration_create, scan_limits
    from tenants.models import Partner

    data = Path(path).read_bytes()
    partner = Partner.objects.get(subdomain="autohaus")
    limits = scan_limits()
    with tenant_context(partner):
        owner, _ = User.objects.get_or_create(email="bench-upload@example.org")
        baseline_rss = _status_mb("self", "VmRSS")
        sampler = TreeSampler()
        sampler.start()
        prepare: list[float] = []
        pipeline: list[float] = []
        created: list[BevRegistration] = []
        for _ in range(runs):
            started = time.perf_counter()
            scan_prepare(data, min_size=limits.min_size, max_pixels=limits.max_pixels)
            prepare.append(time.perf_counter() - started)
            started = time.perf_counter()
            created.append(
                registration_create(
                    partner=partner,
                    owner=owner,
                    data=data,
                    source="bench",
                    registration_years=[],
                    skip_classifier=False,
                    login="bench",
                )
            )
            pipeline.append(time.perf_counter() - started)
        sampler.running = False
        sampler.join()
        for registration in created:
            default_storage.delete(str(registration.zlb_scan))
            default_storage.delete(str(registration.resized_image))
            registration.delete()
    print(
        json.dumps(
            {
                "bytes": len(data),
                "pipeline_s": [round(t, 3) for t in pipeline],
                "prepare_s": [round(t, 3) for t in prepare],
                "pipeline_median_s": round(statistics.median(pipeline), 3),
                "prepare_median_s": round(statistics.median(prepare), 3),
                "rss_before_mb": round(baseline_rss, 1),
                "rss_peak_mb": round(_status_mb("self", "VmHWM"), 1),
                "tesseract_peak_mb": round(sampler.child_peak, 1),
                "peak_total_mb": round(sampler.peak, 1),
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
