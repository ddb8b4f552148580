"""The bench's replay tool (tests/bench/reader_replay.py) decides the VIN as the reader does: a
change judged on captured reads is the change the reader makes."""

from __future__ import annotations

import numpy as np
import pytest

from registrations import line_model
from registrations.glyphs import softmax
from registrations.intake import scan_prepare
from registrations.reader import document_read
from tests.bench.pipeline_lines import page_line
from tests.bench.reader_replay import capture_one, decide_vin, replay
from tests.bench.test_reader_accuracy import LIMITS
from tests.fixtures.zlb import realistic


@pytest.mark.parametrize(
    ("kind", "seed"),
    [
        ("poor", 37),  # the learned readers' joint VIN, witnessed by RapidOCR's read
        ("poor", 4),  # the joint VIN witnessed by the line reader's cut-line network
        ("poor", 24),  # the joint VIN not sure enough: nothing stored
    ],
)
def test_the_replay_of_captured_reads_stores_the_vin_the_reader_stores(kind: str, seed: int) -> None:
    sample = realistic.zb1_sample(seed, kind)
    assert sample.expected is not None
    reading = document_read(scan_prepare(sample.data, **LIMITS).image)
    captured = capture_one(kind, seed)
    assert captured.accepted == reading.is_zlb
    # every read of E was made (the adaptive stop off), the crops the further readers saw kept
    assert {"tesseract", "glyphs", "lines", "rapidocr"} <= {line.engine for line in captured.reads["E"]}
    assert captured.crop is not None and captured.second
    assert decide_vin(captured.reads)[0] == reading.vin
    # the line reader's read left out: the VIN the reader would store without it
    without = decide_vin(captured.reads, None, replace_lines=True)[0]
    assert without != reading.vin or reading.vin is None
    tally = replay([captured])
    assert tally == {"accepted": 1, "right": int(reading.vin == sample.expected["E"]), "wrong": 0}


def test_a_pipeline_line_is_the_vin_as_the_reader_cuts_it_from_a_photographed_page() -> None:
    # a page printed in a given typewriter font (here a test document's), photographed,
    # straightened and cut by the reader's own steps
    line = page_line(3, [realistic.TYPEWRITERS[1]])
    assert line is not None
    ink, width, vin = line
    assert len(vin) == 17 and set(vin) <= set(line_model.ALPHABET)
    assert ink.shape == (line_model.LINE_H, line_model.LINE_W) and ink.dtype == np.uint8
    assert 17 * line_model.STRIDE <= width <= line_model.LINE_W
    assert not ink[:, width:].any()  # nothing beyond the value
    # the value is what the line reader reads from that crop: the VIN drawn on the page
    net = line_model.model()
    assert net is not None
    read = line_model.decode(softmax(net.logits(ink[None] / 255)[0]), line_model.columns(width), 17).text
    assert sum(a == b for a, b in zip(read, vin, strict=True)) >= 14
