"""Reader accuracy on realistic ZB I documents (tests/fixtures/zlb/realistic.py), before and after.

The set: READER_BENCH_PER_KIND documents of each kind (clean scan, scanner PDF, phone photo,
poor photo; default 38: 152 documents) and READER_BENCH_WRONG of each wrong document (Teil II, COC, invoice,
web page, tax notice, ID card, car photo, blank/dark; default 8). It is generated once into
var/bench/zlb-realistic/ (keyed by the generator's source) and every file goes through the
upload's own intake (scan_prepare) first.

"before" is the reader of commit BEFORE (read from git, run unchanged); "after" is today's;
"bare" is one plain Tesseract page run (deu, psm 3) on the same prepared image, the time
baseline the issue names. READER_BENCH_READERS=after,bare skips the old reader.
READER_BENCH_FIRST_SEED=40 measures documents of other seeds (40 on): the default set, seeds
0-37, is the one the reader's thresholds were checked against (the glyph reader's VIN threshold
of 0.6 stored no wrong VIN here and 4 on poor photos of seeds 40-179: see GLYPH_VIN_ALONE in
registrations/reader.py); READER_BENCH_KINDS=poor,phone keeps only those kinds (ZB I kinds
and wrong documents' kinds alike).
The second engine (RapidOCR) takes part when it is installed; READER_SECOND_ENGINE=0 leaves
it out (to compare both in one environment); READER_GLYPHS=0 leaves out the glyph reader,
READER_LINES=0 the line reader.
"""

from __future__ import annotations

import datetime
import hashlib
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytesseract
from PIL import Image, ImageOps

from registrations import reader as after_reader
from registrations.intake import scan_prepare
from tests.bench.conftest import record
from tests.fixtures.zlb import form, realistic

ROOT = Path(__file__).resolve().parents[2]
BEFORE = os.environ.get("READER_BENCH_BEFORE", "a1c78b8")
LIMITS = {"min_size": 500, "max_pixels": 40_000_000}
PER_KIND = int(os.environ.get("READER_BENCH_PER_KIND", "38"))
WRONG = int(os.environ.get("READER_BENCH_WRONG", "8"))
READERS = os.environ.get("READER_BENCH_READERS", "before,after,bare").split(",")
FIRST_SEED = int(os.environ.get("READER_BENCH_FIRST_SEED", "0"))
KINDS = [kind for kind in os.environ.get("READER_BENCH_KINDS", "").split(",") if kind]


def generated_set() -> list[tuple[str, str, Path, dict[str, str] | None]]:
    source = b"".join(Path(m.__file__ or "").read_bytes() for m in (form, realistic))
    chosen = f"-{FIRST_SEED}-{','.join(KINDS)}" if FIRST_SEED or KINDS else ""
    key = hashlib.sha256(source + f"{PER_KIND}-{WRONG}{chosen}".encode()).hexdigest()[:12]
    folder = ROOT / "var" / "bench" / f"zlb-realistic-{key}"
    index = folder / "index.json"
    if not index.exists():
        folder.mkdir(parents=True, exist_ok=True)
        entries = []
        for sample in chosen_set():
            path = folder / sample.name
            path.write_bytes(sample.data)
            entries.append([sample.name, sample.kind, sample.name, sample.expected])
        index.write_text(json.dumps(entries))
    return [(n, k, folder / f, e) for n, k, f, e in json.loads(index.read_text())]


def chosen_set() -> list[realistic.Sample]:
    """The default set (realistic_set), or READER_BENCH_FIRST_SEED's and READER_BENCH_KINDS'."""
    if not (FIRST_SEED or KINDS):
        return realistic.realistic_set(PER_KIND, WRONG)
    seeds, wrong_seeds = range(FIRST_SEED, FIRST_SEED + PER_KIND), range(FIRST_SEED, FIRST_SEED + WRONG)
    return [
        realistic.zb1_sample(seed, kind)
        for kind in realistic.DOCUMENT_KINDS
        if not KINDS or kind in KINDS
        for seed in seeds
    ] + [
        realistic.wrong_sample(seed, kind)
        for kind in realistic.WRONG
        if not KINDS or kind in KINDS
        for seed in wrong_seeds
    ]


def before_reader() -> ModuleType:
    text = subprocess.run(
        ["git", "show", f"{BEFORE}:platform/registrations/reader.py"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    path = ROOT / "var" / "bench" / "reader_before.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("reader_before", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["reader_before"] = module
    spec.loader.exec_module(module)
    return module


def bare(image: Image.Image) -> None:
    gray = ImageOps.grayscale(image)
    pytesseract.image_to_string(gray, lang="deu", config="--psm 3", timeout=60)


def german_date(value: str) -> datetime.date:
    day, month, year = (int(part) for part in value.split("."))
    return datetime.date(year, month, day)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] if ordered else 0.0


def evaluate(
    name: str, read: Any, samples: list[tuple[str, str, Image.Image, dict[str, str] | None]]
) -> None:
    accepted: dict[str, list[bool]] = {}
    refused: dict[str, list[bool]] = {}
    blurred: dict[str, list[bool]] = {}  # a ZB I refused as too blurred to read (IMGC007)
    exact = {"E": 0, "B": 0, "J": 0, "10": 0}
    wrong_stored = stored = documents_accepted = 0
    times: list[float] = []
    failures: list[str] = []
    for sample_name, kind, image, expected in samples:
        start = time.perf_counter()
        reading = read(image)
        times.append(time.perf_counter() - start)
        if expected is None:
            refused.setdefault(kind, []).append(not reading.is_zlb)
            if reading.is_zlb:
                failures.append(f"accepted {sample_name}")
            continue
        accepted.setdefault(kind, []).append(reading.is_zlb)
        blurred.setdefault(kind, []).append(getattr(reading, "kind", "") == "blurred")
        if not reading.is_zlb:
            failures.append(f"refused {sample_name} ({getattr(reading, 'kind', '')})")
            continue
        documents_accepted += 1
        values = {
            "E": (reading.vin, expected["E"]),
            "B": (reading.first_registration, german_date(expected["B"])),
            "J": (reading.vehicle_class, expected["J"]),
            "10": (reading.energy_code, expected["10"]),
        }
        for field, (got, want) in values.items():
            exact[field] += got == want
            if got is not None:
                stored += 1
                if got != want:
                    wrong_stored += 1
                    failures.append(f"wrong {field} {sample_name}: {got} (is {want})")
    figures: dict[str, Any] = {}
    for kind, flags in accepted.items():
        figures[f"accepted {kind}"] = f"{sum(flags)}/{len(flags)} = {sum(flags) / len(flags):.1%}"
        if any(blurred[kind]):
            figures[f"too blurred to read {kind} (IMGC007)"] = f"{sum(blurred[kind])}/{len(flags)}"
    for field, count in exact.items():
        share = count / documents_accepted if documents_accepted else 0
        figures[f"exact {field} (of accepted)"] = f"{count}/{documents_accepted} = {share:.1%}"
    figures["wrong values stored as read"] = f"{wrong_stored}/{stored} = {wrong_stored / max(1, stored):.1%}"
    for kind, flags in refused.items():
        figures[f"refused {kind}"] = f"{sum(flags)}/{len(flags)}"
    all_refused = [flag for flags in refused.values() for flag in flags]
    if all_refused:
        figures["refused wrong documents"] = (
            f"{sum(all_refused)}/{len(all_refused)} = {sum(all_refused) / len(all_refused):.1%}"
        )
    figures["time median s"] = round(statistics.median(times), 3)
    figures["time p90 s"] = round(percentile(times, 0.9), 3)
    record(f"reader {name}", figures)
    print("   " + "\n   ".join(failures[:60]))


def test_reader_accuracy_before_and_after() -> None:
    samples = []
    for sample_name, kind, path, expected in generated_set():
        image = scan_prepare(path.read_bytes(), **LIMITS).image
        samples.append((sample_name, kind, image, expected))
    if "bare" in READERS:
        times = []
        for _, _, image, _ in samples:
            start = time.perf_counter()
            bare(image)
            times.append(time.perf_counter() - start)
        record(
            "reader bare tesseract (deu, psm 3, same prepared images)",
            {
                "time median s": round(statistics.median(times), 3),
                "time p90 s": round(percentile(times, 0.9), 3),
            },
        )
    if "before" in READERS:
        evaluate(f"before ({BEFORE})", before_reader().document_read, samples)
    if "after" in READERS:
        evaluate("after", after_reader.document_read, samples)
