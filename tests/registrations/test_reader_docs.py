"""The per-document bench tool (tests/bench/reader_docs.py) on a set of two: a scan and a
wrong document, read by the bench's own functions, and the difference of two runs."""

import copy
import json
from dataclasses import asdict
from pathlib import Path

from tests.bench import reader_docs
from tests.fixtures.zlb.real import documents, wrong
from tests.fixtures.zlb.real.set import Sample, suffix


def test_each_document_is_told_apart_and_a_changed_field_is_named(tmp_path: Path) -> None:
    data, expected, tags = documents.real_document(90004, "scan")  # a dev seed, not of the bench
    other, other_tags = wrong.wrong_document(0, "invoice")
    samples = [Sample("scan-1", "scan", "scan-1" + suffix(data), expected, tags)]
    samples.append(Sample("wrong-1", "invoice", "wrong-1" + suffix(other), None, other_tags))
    (tmp_path / samples[0].file).write_bytes(data)
    (tmp_path / samples[1].file).write_bytes(other)
    (tmp_path / "index.json").write_text(json.dumps([asdict(s) for s in samples]))

    lines = {line["name"]: line for line in reader_docs.run(tmp_path, processes=1)}
    assert lines["wrong-1"]["accepted"] is False and lines["wrong-1"]["wrong_document"]
    scan = lines["scan-1"]
    assert scan["accepted"] and scan["fields"]["E"] == {
        "got": expected["E"], "want": expected["E"], "right": True, "by": scan["fields"]["E"]["by"]
    }  # fmt: skip
    assert scan["fields"]["E"]["by"]  # the rule that decided it

    later = copy.deepcopy(scan)
    later["fields"]["E"].update(got=None, right=False, by="unsure")
    changed = reader_docs.differences([scan, lines["wrong-1"]], [later, lines["wrong-1"]])
    assert changed == [
        f"scan-1 E: {expected['E']!r} (right) -> None (not right), printed {expected['E']!r}, by unsure"
    ]
    assert reader_docs.differences([scan], [scan]) == []
