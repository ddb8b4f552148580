"""Capture the reader's VIN reads once, then judge a change to the VIN decision in seconds.

Reading a poor photo takes about 1.4 s; a change to `reader._decide_vin` or to the line
reader's decoding only needs the reads. `capture` reads generated documents through
`reader.document_read` with every further read of E made (the adaptive stop, `reader._sure`,
switched off for E) and keeps, per document, the reads of every field, the E crop the line reader
saw and the crops RapidOCR was given for E. `replay` runs the adaptive stop again over those reads
and decides the VIN as the reader would: the same figures as the reader itself (bench poor seeds
0-37: 21 right, 0 wrong at 4162237), for any number of variants a minute.

    python -m tests.bench.reader_replay capture poor 40 139 var/replay/poor-40-139.pkl
    python -m tests.bench.reader_replay replay -v var/replay/poor-40-139.pkl
    python -m tests.bench.reader_replay replay --lines my_module:read var/replay/*.pkl

`--lines module:function` reads the captured E crop again with that function (crop -> ocr.Line
or None) in the line reader's place: a new network, another decoding. Seeds used so far: the
bench's 0-37 (poor), held out 40-139, 140-219 and 220-319 (poor), 40-99 (phone); about 10
minutes for the four poor sets on two cores. Not collected by pytest (no test_ prefix); run from
the project root with the venv's python.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pickle
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from multiprocessing import Pool
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np


@dataclass
class Captured:
    name: str
    expected: dict[str, str]
    accepted: bool
    reads: dict[str, list[Any]] = field(default_factory=dict)  # field code -> [ocr.Line]
    crop: np.ndarray | None = None  # the E crop the line reader read
    second: list[np.ndarray] = field(default_factory=list)  # the E crops RapidOCR read


@contextmanager
def _recording(into: dict[str, Any]) -> Iterator[None]:
    """document_read with every read of E made, and what it read from kept in `into`."""
    from registrations import line_model, ocr, reader  # noqa: PLC0415

    sure, read_line, page_fields = reader._sure, line_model.read_line, reader.read_page_fields
    opinions, second = reader._opinions, ocr.read_line_second

    def recorded_page_fields(flat: np.ndarray, layers: Any = None) -> Any:
        fields, reads = page_fields(flat, layers)
        into["reads"] = reads
        return fields, reads

    def recorded_line(line: np.ndarray, length: int | None = None) -> Any:
        into["crop"] = line.copy()
        return read_line(line, length)

    def recorded_opinions(code: str, *args: Any, **kwargs: Any) -> Any:
        into["code"] = code
        return opinions(code, *args, **kwargs)

    def recorded_second(image: np.ndarray) -> Any:
        if into.get("code") == "E":
            into.setdefault("second", []).append(image.copy())
        return second(image)

    with ExitStack() as stack:
        stack.enter_context(mock.patch.object(reader, "_sure", lambda c, r: c != "E" and sure(c, r)))
        stack.enter_context(mock.patch.object(reader, "read_page_fields", recorded_page_fields))
        stack.enter_context(mock.patch.object(reader, "_opinions", recorded_opinions))
        stack.enter_context(mock.patch.object(line_model, "read_line", recorded_line))
        stack.enter_context(mock.patch.object(ocr, "read_line_second", recorded_second))
        yield


def capture_one(kind: str, seed: int) -> Captured:
    from registrations import reader  # noqa: PLC0415
    from registrations.intake import scan_prepare  # noqa: PLC0415
    from tests.bench.test_reader_accuracy import LIMITS  # noqa: PLC0415
    from tests.fixtures.zlb import realistic  # noqa: PLC0415

    sample = realistic.zb1_sample(seed, kind)
    assert sample.expected is not None
    image = scan_prepare(sample.data, **LIMITS).image
    into: dict[str, Any] = {}
    with _recording(into):
        reading = reader.document_read(image)
    return Captured(
        sample.name,
        sample.expected,
        reading.is_zlb,
        into.get("reads") or {},
        into.get("crop"),
        into.get("second", []),
    )


def _capture_task(task: tuple[str, int]) -> Captured:
    return capture_one(*task)


def capture(kind: str, first: int, last: int, workers: int | None = None) -> list[Captured]:
    with Pool(workers or os.cpu_count(), initializer=_setup) as pool:
        return pool.map(_capture_task, [(kind, seed) for seed in range(first, last + 1)], chunksize=1)


def decide_vin(
    reads: Mapping[str, list[Any]], lines: Any = None, replace_lines: bool = False
) -> tuple[str | None, float | None]:
    """The VIN (and its confidence) the reader stores from captured reads: E's reads taken one by
    one until reader._sure says one more could change nothing, as read_page_fields does. With
    `replace_lines`, `lines` (an ocr.Line or None) stands in the line reader's read."""
    from registrations import reader  # noqa: PLC0415

    e_reads = list(reads.get("E", []))
    if replace_lines:
        e_reads = _with_lines(e_reads, lines)
    current = {code: list(reads.get(code, [])) for code in reader.FIELDS}
    for count in range(1, len(e_reads) + 1):
        current["E"] = e_reads[:count]
        if reader._sure("E", current):
            break
    fields = reader._read_fields(current)
    vin = fields.values.get("vin")
    return (vin if isinstance(vin, str) else None), fields.confidence.get("E")


def _with_lines(e_reads: list[Any], lines: Any) -> list[Any]:
    """E's reads with `lines` in the line reader's place: where its read was, else right after
    the glyph reader's (read_page_fields' order); None leaves the line reader out."""
    at = next((k for k, line in enumerate(e_reads) if line.engine == "lines"), None)
    rest = [line for line in e_reads if line.engine != "lines"]
    if at is None:
        at = next((k + 1 for k, line in enumerate(rest) if line.engine == "glyphs"), None)
    if at is None or lines is None:
        return rest
    return [*rest[:at], lines, *rest[at:]]


def replay(
    captured: list[Captured], line_reader: Callable[[np.ndarray], Any] | None = None, verbose: bool = False
) -> dict[str, int]:
    tally = {"accepted": 0, "right": 0, "wrong": 0}
    for doc in captured:
        if not doc.accepted or not doc.reads:
            continue
        tally["accepted"] += 1
        if line_reader is not None and doc.crop is not None:
            vin, confidence = decide_vin(doc.reads, line_reader(doc.crop), replace_lines=True)
        else:
            vin, confidence = decide_vin(doc.reads)
        right = vin == doc.expected["E"]
        tally["right"] += right
        tally["wrong"] += vin is not None and not right
        if verbose and not right:
            print(f"  {doc.name} {doc.expected['E']}: {vin} ({confidence})")
    return tally


def _setup() -> None:
    root = Path(__file__).resolve().parents[2]
    for path in (str(root / "platform"), str(root)):
        if path not in sys.path:
            sys.path.insert(0, path)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django  # noqa: PLC0415

    django.setup()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    take = commands.add_parser("capture", help="read generated documents and keep their reads")
    take.add_argument("kind", choices=("scan", "pdf", "phone", "poor"))
    take.add_argument("first", type=int)
    take.add_argument("last", type=int)
    take.add_argument("out", type=Path)
    again = commands.add_parser("replay", help="decide the VIN again from captured reads")
    again.add_argument("files", type=Path, nargs="+")
    again.add_argument("--lines", help="module:function reading the E crop in the line reader's place")
    again.add_argument("-v", "--verbose", action="store_true", help="list every VIN not read right")
    options = parser.parse_args(argv)
    _setup()
    if options.command == "capture":
        captured = capture(options.kind, options.first, options.last)
        options.out.parent.mkdir(parents=True, exist_ok=True)
        options.out.write_bytes(pickle.dumps(captured))
        print(f"{len(captured)} documents, {sum(c.accepted for c in captured)} accepted: {options.out}")
        return
    line_reader = None
    if options.lines:
        module, _, function = options.lines.partition(":")
        line_reader = getattr(importlib.import_module(module), function)
    for path in options.files:
        captured = pickle.loads(path.read_bytes())  # noqa: S301 (this tool's own files)
        tally = replay(captured, line_reader, options.verbose)
        print(f"{path}: accepted {tally['accepted']}, VIN right {tally['right']}, wrong {tally['wrong']}")


if __name__ == "__main__":
    # through the module's own name, so that the pickled captures load from anywhere (a class
    # pickled from __main__ is looked up in whatever __main__ loads them)
    from tests.bench import reader_replay

    reader_replay.main()
