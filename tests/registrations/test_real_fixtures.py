"""The real-layout test documents (tests/fixtures/zlb/real/) are what they claim: the rules and
label cells where the specimen has them, the values where the layout puts them and readable,
field 3 the KBA check digit of the VIN, families and conditions that differ, one family held out.
Fast: a few faces, no reader."""

from __future__ import annotations

import io
import random
import re

import cv2
import numpy as np
import pytest
from PIL import Image, ImageOps

from registrations.ocr import PSM_SINGLE_LINE, read_line
from registrations.vin import ALPHABET, kba_check_digit
from tests.fixtures.zlb.real import documents, fonts, layout, render, values, wrong
from tests.fixtures.zlb.real import set as real_set
from tests.fixtures.zlb.real.fonts import ROOT

SPECIMEN = ROOT / "var" / "specimen" / "zulassungsbescheinigung.png"
# the specimen's form border (px) and scale: see layout.py's docstring
SPECIMEN_ORIGIN = (13.5, 13.5)
SPECIMEN_SCALE = (7.10, 7.333)


def horizontal_rules_mm(
    gray: np.ndarray, x0: float, x1: float, scale: tuple[float, float], origin: tuple[float, float]
) -> list[float]:
    """y (mm) of the horizontal rules crossing the band x0..x1 (mm) of a grey image."""
    dark = (gray < 150).astype(np.uint8) * 255
    long = cv2.morphologyEx(
        dark, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (round(4 * scale[0]), 1))
    )
    left, right = round(origin[0] + x0 * scale[0]), round(origin[0] + x1 * scale[0])
    share = (long[:, left:right] > 0).mean(axis=1)
    rows = np.where(share > 0.8)[0]
    lines: list[list[int]] = []
    for row in rows:
        if lines and row - lines[-1][-1] <= 2:
            lines[-1].append(int(row))
        else:
            lines.append([int(row)])
    return [(sum(rows_) / len(rows_) - origin[1]) / scale[1] for rows_ in lines]


def vertical_rules_mm(
    gray: np.ndarray, y0: float, y1: float, scale: tuple[float, float], origin: tuple[float, float]
) -> list[float]:
    """x (mm) of the vertical rules crossing the band y0..y1 (mm) whole."""
    dark = (gray < 150).astype(np.uint8) * 255
    top, bottom = round(origin[1] + y0 * scale[1]), round(origin[1] + y1 * scale[1])
    share = (dark[top:bottom] > 0).mean(axis=0)
    columns = np.where(share > 0.9)[0]
    lines: list[list[int]] = []
    for column in columns:
        if lines and column - lines[-1][-1] <= 2:
            lines[-1].append(int(column))
        else:
            lines.append([int(column)])
    return [(sum(c) / len(c) - origin[0]) / scale[0] for c in lines]


def plain_face(
    seed: int = 3, family: fonts.Family | None = None, **printer: float
) -> tuple[Image.Image, values.Document]:
    """A face without the pre-print's drift and with a chosen printer offset."""
    rng = random.Random(seed)
    document = values.document_values(rng)
    chosen = family or fonts.available()[0]
    press = render.Printer(
        family=chosen,
        cap=layout.VALUE_CAP,
        pitch=layout.VALUE_PITCH,
        dx=printer.get("dx", 0.0),
        dy=printer.get("dy", 0.0),
        angle=0.0,
        ink=render.INKS[0],
    )
    variant = render.Variant(chosen, "eu", True, False)
    image = render.face(rng, document, variant, geometry=render.Geometry(), printer=press)
    return image, document


def test_rendered_rules_are_where_the_layout_puts_them() -> None:
    # given a face drawn without drift
    image, _ = plain_face()
    gray = np.asarray(image.convert("L"))
    scale = (render.PX_PER_MM, render.PX_PER_MM)
    # when its middle panel's rules are found
    found = horizontal_rules_mm(gray, 67, 93, scale, (0, 0))
    # then they are the layout's 24 rules, within 0.2 mm
    assert len(found) == layout.RULES
    for index, y in enumerate(found):
        assert abs(y - layout.rule_y(index)) < 0.2, index
    # and the B row's label cells (B, 2.1, 2.2) have their sides where layout.py says
    row = layout.segments()["B"]
    columns = vertical_rules_mm(gray, row.top + 0.5, row.bottom - 0.5, scale, (0, 0))
    for code in ("2.1", "2.2"):
        cell = layout.segments()[code]
        assert min(abs(x - cell.x0) for x in columns) < 0.25, code
        assert min(abs(x - cell.x1) for x in columns) < 0.25, code


@pytest.mark.skipif(
    not SPECIMEN.exists(), reason=f"the specimen photo is not here ({SPECIMEN}; no licence, never committed)"
)
def test_the_layout_matches_the_specimen() -> None:
    # given the specimen and a face drawn without drift
    specimen = np.asarray(Image.open(SPECIMEN).convert("L"))
    image, _ = plain_face()
    drawn = np.asarray(image.convert("L"))
    mine = (float(render.PX_PER_MM), float(render.PX_PER_MM))
    # when the rules of the middle and the right panel are found in both (the specimen photo has
    # a frame on the paper's edge, not a rule of the form; its red marks hide a rule or two)
    for band in ((67, 93), (141, 150)):
        theirs = [
            y for y in horizontal_rules_mm(specimen, *band, SPECIMEN_SCALE, SPECIMEN_ORIGIN) if 1 < y < 104
        ]
        ours = horizontal_rules_mm(drawn, *band, mine, (0, 0))
        # then every rule of the specimen has one of ours within 0.5 mm, and nearly all of ours one of its
        assert len(theirs) >= 22, band
        assert all(min(abs(t - o) for o in ours) < 0.5 for t in theirs), (band, theirs, ours)
        assert sum(min(abs(t - o) for t in theirs) < 0.5 for o in ours) >= len(ours) - 2, (band, theirs, ours)
    # and the label cells' sides of rows of both panels are where the specimen has them
    for code in ("B", "J", "E", "10", "L", "18", "O.1", "R", "6"):
        row = layout.segments()[code]
        low, high = (60, 134) if row.panel == "middle" else (136, 209)
        cells_band = (row.top + 0.7, row.bottom - 0.7)
        their_cells = [
            x
            for x in vertical_rules_mm(specimen, *cells_band, SPECIMEN_SCALE, SPECIMEN_ORIGIN)
            if low < x < high
        ]
        our_cells = [x for x in vertical_rules_mm(drawn, *cells_band, mine, (0, 0)) if low < x < high]
        assert len(their_cells) == len(our_cells) >= 2, (code, their_cells, our_cells)
        assert all(abs(t - o) < 0.5 for t, o in zip(their_cells, our_cells, strict=True)), (
            code,
            their_cells,
            our_cells,
        )


def green_text_rows_mm(
    rgb: np.ndarray, scale: tuple[float, float], origin: tuple[float, float], x0: float, x1: float
) -> list[tuple[float, float]]:
    """Top and bottom (mm) of each run of rows holding dark green pre-print within x0..x1 (mm)."""
    image = rgb.astype(int)
    red, green, blue = image[..., 0], image[..., 1], image[..., 2]
    mask = (green > red + 8) & (green > blue) & ((red + green + blue) / 3 < 120)
    rows = mask[:, round(origin[0] + x0 * scale[0]) : round(origin[0] + x1 * scale[0])].any(axis=1)
    found, start = [], None
    for y, dark in enumerate([*rows, False]):
        if dark and start is None:
            start = y
        elif not dark and start is not None:
            if y - start >= 0.4 * scale[1]:
                found.append(((start - origin[1]) / scale[1], (y - origin[1]) / scale[1]))
            start = None
    return found


@pytest.mark.skipif(not SPECIMEN.exists(), reason=f"the specimen photo is not here ({SPECIMEN})")
def test_the_holder_panel_matches_the_specimen() -> None:
    # given the specimen's and our holder panel (x 2-60 mm)
    specimen = np.asarray(Image.open(SPECIMEN).convert("RGB"))
    image, _ = plain_face()
    theirs = green_text_rows_mm(specimen, SPECIMEN_SCALE, SPECIMEN_ORIGIN, 2, 60)
    ours = green_text_rows_mm(np.asarray(image), (render.PX_PER_MM, render.PX_PER_MM), (0, 0), 2, 60)
    # then each line of pre-print there (header, Nr., the country block, A with the plate box,
    # C1.1, C1.2, C1.3, Nächste HU, I Datum, C4c) starts within 0.4 mm of one of ours
    lines = [(top, bottom) for top, bottom in theirs if bottom - top >= 1.0]
    assert len(lines) >= 12
    for top, _ in lines:
        assert min(abs(top - mine) for mine, _ in ours) < 0.4, (top, ours)


def test_values_are_printed_readably_where_the_layout_puts_them() -> None:
    # given a face printed with a known offset in a tuned font
    family = fonts.available()[0]
    image, document = plain_face(seed=5, family=family, dx=0.8, dy=-0.5)
    segment = layout.segments()["E"]
    # when the E row (as the layout has it, moved by the offset) is read by plain Tesseract
    left = segment.x1 + layout.VALUE_GAP + 0.8
    box = (
        render.px(left - 0.6),
        render.px(segment.top - 0.5 - 0.6),
        render.px(left + 17 * layout.VALUE_PITCH + 0.6),
        render.px(segment.bottom - 0.5 + 0.6),
    )
    crop = ImageOps.grayscale(image.crop(box))
    text = read_line(np.asarray(crop), whitelist=ALPHABET, psm=PSM_SINGLE_LINE).text
    # then it is the VIN, and the check digit cell holds field 3
    assert re.sub(r"\s", "", text) == document.values["E"]
    assert document.values["3"] == kba_check_digit(document.values["E"])


def test_vins_and_field_3() -> None:
    for seed in range(300):
        document = values.document_values(random.Random(seed))
        vin = document.expected["E"]
        assert len(vin) == 17 and set(vin) <= set(ALPHABET), vin
        assert vin[-4:].isdigit(), vin
        assert document.expected["3"] == kba_check_digit(vin) == document.values["3"]
        if vin[0] in "12345L":
            assert vin[8] == values.iso_check_digit(vin), vin
        assert document.expected["I"] >= document.expected["B"]
        assert values.ENERGY[document.expected["10"]] == document.expected["P.3"]
        assert document.values["P.3"].lower() == document.expected["P.3"].lower()


def test_the_set_mixes_makes_classes_energies_and_dates() -> None:
    drawn = [values.document_values(random.Random(seed)) for seed in range(300)]
    energies = [d.expected["10"] for d in drawn]
    assert 0.7 < energies.count("0004") / len(energies) < 0.92
    assert {"0001", "0002"} <= set(energies)
    assert {"M1", "N1", "L3e"} <= {d.expected["J"] for d in drawn}
    assert len({d.expected["E"][:3] for d in drawn}) >= 15
    assert any(
        re.fullmatch(r"\d{1,2}\.\d{1,2}\.\d{4}", d.values["B"]) and len(d.values["B"]) < 10 for d in drawn
    )
    assert any(re.fullmatch(r"0\d{4}", d.values["13"]) for d in drawn)  # zero padded


def test_families_and_conditions_differ_and_one_family_is_held_out() -> None:
    reason = fonts.missing_reason()
    if reason:
        pytest.skip(reason)
    assert [f.name for f in fonts.FAMILIES if f.held_out] == [fonts.HELD_OUT.name]
    # given the same face in two families
    first, _ = plain_face(seed=7, family=fonts.FAMILIES[0])
    other, _ = plain_face(seed=7, family=fonts.HELD_OUT)
    difference = np.abs(np.asarray(first, np.int16) - np.asarray(other, np.int16)).max(axis=2)
    assert (difference > 60).mean() > 0.005  # the print differs, not only a few pixels
    # and the held-out family's documents say so
    held = [documents.real_face(seed)[2] for seed in range(len(fonts.FAMILIES))]
    assert sum(tags["held_out"] for tags in held) == 1
    assert {tags["family"] for tags in held} == {f.name for f in fonts.FAMILIES}
    # when one document is uploaded as a scanner's PDF and as a poor photo (the two quick ones;
    # scans and phone photos are large pages: the bench draws them)
    uploads = {c: documents.real_document(11, c) for c in ("pdf", "poor")}
    # then the uploads differ, the PDF is a PDF, the photo a JPEG the intake takes, same values
    assert uploads["pdf"][0].startswith(b"%PDF")
    photo = Image.open(io.BytesIO(uploads["poor"][0]))
    assert photo.format == "JPEG" and max(photo.size) >= 1000, photo.size
    assert uploads["pdf"][1] == uploads["poor"][1]
    assert uploads["pdf"][2]["family"] == uploads["poor"][2]["family"]


def test_the_bench_set_is_large_enough_and_wrong_documents_are_drawn() -> None:
    jobs = real_set.jobs(real_set.PER_CONDITION, real_set.WRONG_PER_KIND)
    assert sum(1 for what, _, _ in jobs if what == "zb1") >= 200
    assert sum(1 for what, _, _ in jobs if what == "wrong") >= 60
    data, tags = wrong.wrong_document(0, "teil2")
    assert tags["kind"] == "teil2" and data[:2] == b"\xff\xd8"
