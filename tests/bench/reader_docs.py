"""The reader on a bench set, document by document: what each field got, what was printed,
whether it is right and the rule that decided it (decided_by), one JSON line per document;
and the documents two such runs read differently. The bench (test_reader_real.py) gives the
figures; this says which documents a change moved, with the bench's own read and compare.

    python -m tests.bench.reader_docs run SET OUT.jsonl [--kinds poor,phone] [--processes 2]
    python -m tests.bench.reader_docs diff BEFORE.jsonl AFTER.jsonl

SET is a folder written by `python -m tests.fixtures.zlb.real.set SET 55 7`. A change is
measured by a run before and after it (git stash), on the whole set and on a dev set of tuned
families only: no rule may come from a held-out document.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from multiprocessing import Pool
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _start() -> None:
    sys.path.insert(0, str(ROOT / "platform"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def document(folder: Path, sample: dict[str, Any]) -> dict[str, Any]:
    """One document read as the bench reads it: accepted or not, and each field compared."""
    from registrations.errors import ScanRejected
    from tests.bench.test_reader_real import FIELDS, read, same, truth

    _, reading, _ = read(folder / sample["file"])
    tags = sample["tags"]
    line: dict[str, Any] = {
        "name": sample["name"],
        "kind": sample["kind"],
        "family": tags.get("family"),
        "held_out": bool(tags.get("held_out")),
        "wrong_document": sample["expected"] is None,
        "accepted": not isinstance(reading, ScanRejected) and bool(reading.is_zlb),
        "fields": {},
    }
    if line["accepted"] and sample["expected"] is not None:
        decided_by = reading.decided_by or {}
        for key, attribute in FIELDS.items():
            got = getattr(reading, attribute, None)
            want = truth(key, sample["expected"][key])
            line["fields"][key] = {
                "got": None if got in (None, "") else str(got),
                "want": str(want),
                "right": got not in (None, "") and same(key, got, want),
                "by": str(decided_by.get(key, "")),
            }
    return line


def _document(job: tuple[Path, dict[str, Any]]) -> dict[str, Any]:
    return document(*job)


def run(folder: Path, kinds: set[str] | None = None, processes: int = 2) -> Iterator[dict[str, Any]]:
    samples = json.loads((folder / "index.json").read_text())
    jobs = [(folder, s) for s in samples if kinds is None or s["kind"] in kinds]
    # set up once here first: on a fresh checkout the workers would each start the embedded
    # database at once and race to create its folder
    _start()
    with Pool(processes, initializer=_start) as pool:
        yield from pool.imap(_document, jobs)


def differences(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[str]:
    """Each document accepted or refused differently, and each field that got another value."""
    earlier = {line["name"]: line for line in before}
    lines = []
    for now in after:
        then = earlier.get(now["name"])
        if then is None:
            continue
        if then["accepted"] != now["accepted"]:
            lines.append(f"{now['name']}: accepted {then['accepted']} -> {now['accepted']}")
        for key in sorted(set(then["fields"]) | set(now["fields"])):
            old, new = then["fields"].get(key, {}), now["fields"].get(key, {})
            if old.get("got") != new.get("got"):
                lines.append(
                    f"{now['name']} {key}: {old.get('got')!r} ({'right' if old.get('right') else 'not right'})"
                    f" -> {new.get('got')!r} ({'right' if new.get('right') else 'not right'}),"
                    f" printed {new.get('want') or old.get('want')!r}, by {new.get('by') or old.get('by')}"
                )
    return lines


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    reading = commands.add_parser("run")
    reading.add_argument("set", type=Path)
    reading.add_argument("out", type=Path)
    reading.add_argument("--kinds", help="conditions or wrong kinds, comma-separated")
    reading.add_argument("--processes", type=int, default=2)
    compared = commands.add_parser("diff")
    compared.add_argument("before", type=Path)
    compared.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    if args.command == "run":
        kinds = set(args.kinds.split(",")) if args.kinds else None
        with args.out.open("w") as out:
            for line in run(args.set, kinds, args.processes):
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
        return
    print("\n".join(differences(_lines(args.before), _lines(args.after))) or "no document read differently")


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(text) for text in path.read_text().splitlines() if text]


if __name__ == "__main__":
    main(sys.argv[1:])
