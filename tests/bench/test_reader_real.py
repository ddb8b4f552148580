"""The reader on documents of the real ZB I layout (tests/fixtures/zlb/real/, issue 45).

The set (tests/fixtures/zlb/real/set.py): READER_REAL_PER_CONDITION ZB I of each condition
(clean scan, scanner PDF, phone photo, poor photo; default 55: 220 documents, both header
generations, five printer families) and READER_REAL_WRONG of each wrong document (Teil II, COC,
invoice, web page, tax notice, ID card, car photo, blank/dark page, a ZB I's back side; default
7: 63). Generated once into var/bench/zlb-real-<key>/. Every file goes through the upload's
intake (scan_prepare) and then `registrations.reader.document_read`; "bare" is one plain
Tesseract page run (deu, psm 3) on the same prepared image, the time baseline.

Reported per condition and per family group: the tuned families and the held-out family
(fonts.HELD_OUT, kept out of all tuning) apart. Asserted (issue 45): accepted >= 99 % of clean
scans and PDFs, >= 97 % of phone photos, >= 80 % of poor photos; wrong documents refused >= 98 %;
among accepted, exact VIN, B, J >= 97 %, code 10 >= 98 %, field 3 >= 97 %; wrong values stored
as read <= 0.5 %; the held-out family within 5 points of the tuned ones on each figure. The time
per page is reported beside bare Tesseract's (the issue's target: <= 1.5 x, median and p90), not
asserted: on this shared machine a timed assertion fails with the neighbours' load (README.md).
READER_REAL_LIMIT=0 prints the tables without asserting (while the reader for the real layout is
being written); READER_REAL_BARE=0 leaves out the bare Tesseract runs; READER_REAL_MODULE names
the module whose document_read is measured (default registrations.reader); READER_REAL_SET=FOLDER
measures a set written before (by `python -m tests.fixtures.zlb.real.set FOLDER N M` or an
earlier run) instead of the generator's current one.
"""

from __future__ import annotations

import datetime
import importlib
import io
import os
import re
import statistics
import subprocess
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image, ImageOps

from registrations.errors import ScanRejected
from registrations.intake import scan_prepare
from tests.bench.conftest import record
from tests.fixtures.zlb.real import set as real_set

LIMITS = {"min_size": 500, "max_pixels": 40_000_000}
PER_CONDITION = int(os.environ.get("READER_REAL_PER_CONDITION", str(real_set.PER_CONDITION)))
WRONG = int(os.environ.get("READER_REAL_WRONG", str(real_set.WRONG_PER_KIND)))
ASSERT = os.environ.get("READER_REAL_LIMIT", "1") != "0"
BARE = os.environ.get("READER_REAL_BARE", "1") != "0"
READER = os.environ.get("READER_REAL_MODULE", "registrations.reader")  # e.g. registrations.reader_next

# the targets
ACCEPTED = {"scan": 0.99, "pdf": 0.99, "phone": 0.97, "poor": 0.80}
REFUSED = 0.98
EXACT = {"E": 0.97, "B": 0.97, "J": 0.97, "10": 0.98, "3": 0.97}
WRONG_STORED = 0.005
HELD_OUT_POINTS = 0.05
# the fields compared: expected key -> (Reading attribute, how to compare)
FIELDS = {
    "E": "vin",
    "3": "check_digit",
    "B": "first_registration",
    "J": "vehicle_class",
    "10": "energy_code",
    "I": "registration_date",
    "P.3": "fuel",
    "D.1": "make",
    "D.3": "model",
    "A": "plate",
    "C1.1": "holder_name",
    "C1.2": "holder_first_names",
}
KEY_FIELDS = ("E", "3", "B", "J", "10")  # the ones the targets name; the others are reported


def folded(value: Any) -> str:
    """Text compared without case, accents, spaces or hyphens (P.3, D.1, D.3, A, C1.x)."""
    text = unicodedata.normalize("NFKD", str(value)).encode("ascii", "ignore").decode().upper()
    return re.sub(r"[\s\-.]", "", text)


def truth(key: str, expected: str) -> Any:
    if key in ("B", "I"):
        return datetime.date.fromisoformat(expected)
    return expected


def same(key: str, got: Any, want: Any) -> bool:
    if key in ("E", "3", "B", "I", "J", "10"):
        return got == want
    return folded(got) == folded(want)


@dataclass
class Tally:
    """One group of ZB I documents (a condition, a family group)."""

    documents: int = 0
    accepted: int = 0
    exact: dict[str, int] = field(default_factory=dict)
    stored: int = 0  # key fields stored as read
    wrong_stored: int = 0
    stored_all: int = 0
    wrong_stored_all: int = 0

    def share(self, count: int, of: int) -> float:
        return count / of if of else 0.0

    def figures(self) -> dict[str, float]:
        shares = {"accepted": self.share(self.accepted, self.documents)}
        for key in FIELDS:
            shares[f"exact {key}"] = self.share(self.exact.get(key, 0), self.accepted)
        shares["wrong stored (key fields)"] = self.share(self.wrong_stored, self.stored)
        shares["wrong stored (all fields)"] = self.share(self.wrong_stored_all, self.stored_all)
        return shares

    def add(self, reading: Any, expected: dict[str, str], failures: list[str], name: str) -> None:
        self.documents += 1
        if reading is None or not reading.is_zlb:
            return
        self.accepted += 1
        for key, attribute in FIELDS.items():
            got = getattr(reading, attribute, None)
            want = truth(key, expected[key])
            if got is not None and same(key, got, want):
                self.exact[key] = self.exact.get(key, 0) + 1
            if got is None or got == "":
                continue
            self.stored_all += 1
            wrong = not same(key, got, want)
            self.wrong_stored_all += wrong
            if key in KEY_FIELDS:
                self.stored += 1
                self.wrong_stored += wrong
                if wrong:
                    failures.append(f"wrong {key} {name}: {got!r} (is {want!r})")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] if ordered else 0.0


def bare(image: Image.Image) -> None:
    """The `tesseract` program on the page, as a plain OCR run costs: it loads its model every
    time (what the reader's in-process engine, registrations.ocr, saves)."""
    png = io.BytesIO()
    ImageOps.grayscale(image).save(png, format="PNG")
    subprocess.run(
        ["tesseract", "stdin", "stdout", "-l", "deu", "--psm", "3"],
        input=png.getvalue(),
        capture_output=True,
        timeout=60,
        check=True,
    )


def shown(tally: Tally) -> dict[str, str]:
    figures = tally.figures()
    out = {
        "documents": str(tally.documents),
        "accepted": f"{tally.accepted}/{tally.documents} = {figures['accepted']:.1%}",
    }
    for key in FIELDS:
        out[f"exact {key} (of accepted)"] = (
            f"{tally.exact.get(key, 0)}/{tally.accepted} = {figures[f'exact {key}']:.1%}"
        )
    out["wrong stored, key fields"] = (
        f"{tally.wrong_stored}/{tally.stored} = {figures['wrong stored (key fields)']:.2%}"
    )
    out["wrong stored, all fields"] = (
        f"{tally.wrong_stored_all}/{tally.stored_all} = {figures['wrong stored (all fields)']:.2%}"
    )
    return out


def read(path: Path) -> tuple[Image.Image | None, Any, float]:
    """The upload's intake, then the reader: (prepared image, reading, reader seconds)."""
    try:
        image = scan_prepare(path.read_bytes(), **LIMITS).image  # type: ignore[arg-type]
    except ScanRejected as error:
        return None, error, 0.0
    start = time.perf_counter()
    reading = importlib.import_module(READER).document_read(image)
    return image, reading, time.perf_counter() - start


def test_reader_on_the_real_layout() -> None:
    chosen = os.environ.get("READER_REAL_SET")
    folder, samples = (
        real_set.existing_set(Path(chosen)) if chosen else real_set.generated_set(PER_CONDITION, WRONG)
    )
    conditions: dict[str, Tally] = {}
    groups = {"tuned families": Tally(), "held-out family": Tally()}
    families: dict[str, Tally] = {}
    refused: dict[str, list[bool]] = {}
    kinds: dict[str, int] = {}
    reader_times: list[float] = []
    bare_times: list[float] = []
    failures: list[str] = []
    for number, sample in enumerate(samples, 1):
        if number % 25 == 0:
            print(f"   {number}/{len(samples)} read", flush=True)
        image, reading, seconds = read(folder / sample.file)
        if isinstance(reading, ScanRejected):
            failures.append(f"intake refused {sample.name}: {reading}")
            reading = None
        if image is not None:
            reader_times.append(seconds)
            if BARE:
                start = time.perf_counter()
                bare(image)
                bare_times.append(time.perf_counter() - start)
        if sample.expected is None:
            refused.setdefault(sample.kind, []).append(reading is None or not reading.is_zlb)
            if reading is not None and reading.is_zlb:
                failures.append(f"accepted {sample.name}")
            continue
        kind = getattr(reading, "kind", "intake") if reading is not None else "intake"
        if reading is None or not reading.is_zlb:
            kinds[kind] = kinds.get(kind, 0) + 1
            failures.append(f"refused {sample.name} ({kind}, {sample.tags.get('family')})")
        for tally in (
            conditions.setdefault(sample.kind, Tally()),
            groups["held-out family" if sample.tags.get("held_out") else "tuned families"],
            families.setdefault(str(sample.tags.get("family")), Tally()),
        ):
            tally.add(
                reading, sample.expected, failures if tally is conditions[sample.kind] else [], sample.name
            )

    print(f"\n== reader real layout: {READER}.document_read on {folder.name}")
    for condition, tally in conditions.items():
        record(f"reader real layout: {condition}", shown(tally))
    everything = Tally()
    for tally in conditions.values():
        everything.documents += tally.documents
        everything.accepted += tally.accepted
        for key, count in tally.exact.items():
            everything.exact[key] = everything.exact.get(key, 0) + count
        everything.stored += tally.stored
        everything.wrong_stored += tally.wrong_stored
        everything.stored_all += tally.stored_all
        everything.wrong_stored_all += tally.wrong_stored_all
    record("reader real layout: all ZB I", shown(everything))
    for group, tally in groups.items():
        record(f"reader real layout: {group}", shown(tally))
    record(
        "reader real layout: per family (accepted, exact E)",
        {
            name: f"{t.accepted}/{t.documents} accepted, E {t.exact.get('E', 0)}/{t.accepted}"
            for name, t in sorted(families.items())
        },
    )
    all_refused = [flag for flags in refused.values() for flag in flags]
    wrong_figures = {kind: f"{sum(flags)}/{len(flags)}" for kind, flags in refused.items()}
    wrong_figures["all"] = (
        f"{sum(all_refused)}/{len(all_refused)} = {sum(all_refused) / max(1, len(all_refused)):.1%}"
    )
    record("reader real layout: wrong documents refused", wrong_figures)
    timing = {
        "reader median s": round(statistics.median(reader_times), 3),
        "reader p90 s": round(percentile(reader_times, 0.9), 3),
    }
    if bare_times:
        timing |= {
            "bare tesseract median s": round(statistics.median(bare_times), 3),
            "bare tesseract p90 s": round(percentile(bare_times, 0.9), 3),
            "ratio median": round(statistics.median(reader_times) / statistics.median(bare_times), 2),
            "ratio p90": round(percentile(reader_times, 0.9) / percentile(bare_times, 0.9), 2),
        }
    record("reader real layout: time per page (same prepared images)", timing)
    if kinds:
        record("reader real layout: ZB I refused as", {k: str(v) for k, v in sorted(kinds.items())})
    print("   " + "\n   ".join(failures[:80]))

    if not ASSERT:
        return
    problems = []
    for condition, target in ACCEPTED.items():
        share = conditions[condition].figures()["accepted"] if condition in conditions else 0.0
        if share < target:
            problems.append(f"accepted {condition} {share:.1%} < {target:.0%}")
    refused_share = sum(all_refused) / max(1, len(all_refused))
    if refused_share < REFUSED:
        problems.append(f"wrong documents refused {refused_share:.1%} < {REFUSED:.0%}")
    overall = everything.figures()
    for key, target in EXACT.items():
        if overall[f"exact {key}"] < target:
            problems.append(f"exact {key} {overall[f'exact {key}']:.1%} < {target:.0%}")
    if overall["wrong stored (key fields)"] > WRONG_STORED:
        problems.append(f"wrong stored {overall['wrong stored (key fields)']:.2%} > {WRONG_STORED:.1%}")
    tuned, held = groups["tuned families"].figures(), groups["held-out family"].figures()
    if groups["held-out family"].documents:
        for figure in ["accepted", *(f"exact {key}" for key in EXACT)]:
            if held[figure] < tuned[figure] - HELD_OUT_POINTS:
                problems.append(f"held-out {figure} {held[figure]:.1%} vs tuned {tuned[figure]:.1%}")
        if held["wrong stored (key fields)"] > tuned["wrong stored (key fields)"] + HELD_OUT_POINTS:
            problems.append("held-out family stores more wrong values")
    assert not problems, "; ".join(problems)
