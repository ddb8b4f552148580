"""The glyph reader (registrations.glyphs) and how its reads take part in the reader's decisions."""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image, ImageDraw

from registrations import glyphs, ocr
from registrations.geometry import PX_PER_MM, straighten
from registrations.intake import scan_prepare
from registrations.management.commands import train_glyph_model
from registrations.reader import (
    GLYPH_CLASS_ALONE,
    GLYPH_CODE_ALONE,
    GLYPH_DATE_ALONE,
    GLYPH_OPEN_DATE_ALONE,
    GLYPH_VIN_ALONE,
    GLYPH_VIN_CONFIRMED,
    SAME_AS_I,
    SAME_DATE_SURE,
    VIN_ALPHABET,
    WMI,
    _read_fields,
    _sure,
    read_page_fields,
    vin_check_digit,
    vin_valid,
)
from tests.fixtures.zlb import realistic
from tests.registrations.test_reader_fields import lines_for, rapid, tess


def cells(
    text: str, doubts: Mapping[int, tuple[tuple[str, float], ...]] | None = None, sure: float = 0.99
) -> ocr.Line:
    """A glyph read of `text`, every cell `sure` but those in `doubts` (place: its alternatives)."""
    choices = tuple((doubts or {}).get(i, ((c, sure),)) for i, c in enumerate(text))
    return ocr.Line(text, min(cell[0][1] for cell in choices), choices, engine="glyphs")


def glyph(text: str, confidence: float = 0.95) -> ocr.Line:
    return cells(text, sure=confidence)


def printed_line(text: str, blur_px: float) -> np.ndarray:
    """`text` in the test documents' typewriter font at the straightened page's scale (the
    value layer: ink dark on white), blurred as a poor photo blurs it."""
    page = Image.new("L", (round(len(text) * 2.2 * PX_PER_MM) + 40, round(5 * PX_PER_MM)), 255)
    font = realistic.font(realistic.TYPEWRITERS[0], 2.9 * PX_PER_MM)
    ImageDraw.Draw(page).text((round(1.0 * PX_PER_MM), round(0.8 * PX_PER_MM)), text, font=font, fill=20)
    return cv2.GaussianBlur(np.asarray(page), (0, 0), blur_px)


def test_the_training_fonts_leave_out_the_test_documents_fonts() -> None:
    # the bench measures the reader on a font it never saw: the check fails when the test
    # documents get a font the exclusion does not name, or training gets one of theirs
    for typewriter in realistic.TYPEWRITERS:
        assert any(name in typewriter.name.lower() for name in train_glyph_model.EXCLUDED_FAMILIES)
    for _, path in train_glyph_model.TRAINING_FONTS + train_glyph_model.DEEP_FONTS:
        assert not any(name in path.lower() for name in train_glyph_model.EXCLUDED_FAMILIES)


def test_a_font_whose_glyphs_differ_in_width_is_no_training_font() -> None:
    assert train_glyph_model.monospaced(realistic.TYPEWRITERS[1])
    assert not train_glyph_model.monospaced(realistic.TYPEWRITERS[1].with_name("DejaVuSans.ttf"))


@pytest.mark.parametrize("blur", [0.8, 2.0])
def test_a_vin_in_a_font_it_never_saw_is_read_cell_by_cell(blur: float) -> None:
    vin = "WVGZZZE2ZMP058325"
    line = glyphs.read_line(printed_line(vin, blur), 17, VIN_ALPHABET)

    assert line is not None and line.engine == "glyphs"
    assert line.text == vin
    assert len(line.choices) == 17 and all(len(cell) == glyphs.ALTERNATIVES for cell in line.choices)
    assert 0 < line.confidence <= 1


def test_a_line_read_at_more_scales_averages_each_cells_reads_there() -> None:
    vin = "WVGZZZE2ZMP058325"
    pixels = printed_line(vin, 2.6)
    classifier = glyphs.model()
    assert classifier is not None
    allowed = np.array([c in VIN_ALPHABET for c in glyphs.GLYPHS], np.float32)
    found = glyphs._line_cells(classifier, (255 - pixels.astype(np.float32)) / 255, 17, allowed)
    assert found is not None
    again = []
    for scale in (0.9, 1.1):
        read = glyphs._rescaled(classifier, pixels, found, scale, allowed)
        assert read is not None
        again.append(read)

    line = glyphs.read_line(pixels, 17, VIN_ALPHABET, (0.9, 1.1))

    assert line is not None and line.text == vin
    mean = np.mean([found.probabilities, *again], axis=0)
    for k, cell in enumerate(line.choices):
        for char, probability in cell:
            assert probability == pytest.approx(mean[k, glyphs.GLYPHS.index(char)], abs=0.0005)
    # the cells read at the other scales from the comb found at the page's scale: the same
    # cells, read differently (there is something to average)
    best = found.probabilities.argmax(axis=1).tolist()
    assert all(read.argmax(axis=1).tolist() == best for read in again)
    assert not np.allclose(again[0], found.probabilities, atol=1e-3)


def creased_line(text: str, blur_px: float, jump_px: int, at: int) -> np.ndarray:
    """`text` as printed_line draws it, the characters from `at` on `jump_px` further right: a
    crease or a bend of the photographed page, which does not keep the printer's pitch."""
    font = realistic.font(realistic.TYPEWRITERS[0], 2.9 * PX_PER_MM)
    pitch = font.getlength("W")
    page = Image.new("L", (round(len(text) * 2.4 * PX_PER_MM) + 40, round(5 * PX_PER_MM)), 255)
    draw = ImageDraw.Draw(page)
    for i, char in enumerate(text):
        x = round(1.0 * PX_PER_MM) + i * pitch + (jump_px if i >= at else 0)
        draw.text((x, round(0.8 * PX_PER_MM)), char, font=font, fill=20)
    return cv2.GaussianBlur(np.asarray(page), (0, 0), blur_px)


def test_cells_settled_where_they_read_surest_read_a_creased_line_more_surely() -> None:
    vin = "WVGZZZE2ZMP058325"
    pixels = creased_line(vin, 2.6, 8, 9)

    plain = glyphs.read_line(pixels, 17, VIN_ALPHABET)
    settled = glyphs.read_line(pixels, 17, VIN_ALPHABET, settle=True)

    assert plain is not None and settled is not None
    assert settled.text == vin
    # one equal pitch for the whole line cuts the cells after the crease across two characters
    assert settled.confidence > plain.confidence + 0.2, (plain.confidence, settled.confidence)


def test_settling_moves_neighbouring_cells_together(monkeypatch: pytest.MonkeyPatch) -> None:
    # a classifier sure of every cell only at one move: alone, each cell would take its own best
    # move; a move of 4 pixels away from both neighbours costs more than it gains
    moves = 2 * glyphs.SETTLE + 1
    best = [glyphs.SETTLE + 2] * 5
    best[2] = glyphs.SETTLE - 2  # the middle cell alone prefers 4 pixels the other way
    sure = np.full((5, moves), 0.5)
    for k, move in enumerate(best):
        sure[k, move] = 0.9
    sure[2, glyphs.SETTLE + 2] = 0.8  # and is nearly as sure where its neighbours are

    def proba(classifier: object, cells: list[np.ndarray], allowed: np.ndarray) -> np.ndarray:
        out = np.zeros((len(cells), len(glyphs.GLYPHS)))
        out[:, 0] = sure.ravel()
        out[:, 1] = 1 - sure.ravel()
        return out

    ink = np.zeros((30, 200), np.float32)
    ink[5:25, 10:190] = 1.0
    monkeypatch.setattr(glyphs, "_proba", proba)
    found = glyphs._settled(glyphs.Ensemble([]), ink, (20.0, 30.0), 5, np.ones(len(glyphs.GLYPHS)))

    assert found is not None
    assert found[:, 0].tolist() == pytest.approx([0.9, 0.9, 0.8, 0.9, 0.9])


def test_a_date_is_read_as_ten_cells_of_digits_and_dots() -> None:
    line = glyphs.read_line(printed_line("08.03.2015", 1.5), 10, "0123456789.")
    assert line is not None and line.text == "08.03.2015"


def test_a_border_left_under_the_value_does_not_move_its_rows() -> None:
    pixels = printed_line("WVGZZZE2ZMP058325", 1.0).copy()
    pixels[-6:-3, :] = 60  # a box's bottom border, dark across the whole crop
    line = glyphs.read_line(pixels, 17, VIN_ALPHABET)
    assert line is not None and line.text == "WVGZZZE2ZMP058325"


def test_a_neighbouring_value_beside_the_vin_is_not_taken_for_its_first_cells() -> None:
    # a poor photo's crop of E began with the next box's "AC", a gap, then the VIN: the cells
    # were laid from the A (held-out poor-105)
    neighbour = printed_line("AC", 1.0)[:, : round(9 * PX_PER_MM)]
    gap = np.full((neighbour.shape[0], round(6 * PX_PER_MM)), 255, np.uint8)
    pixels = np.hstack([neighbour, gap, printed_line("ZAPF3E8S31SJP7648", 1.0)])
    line = glyphs.read_line(pixels, 17, VIN_ALPHABET)
    assert line is not None and line.text == "ZAPF3E8S31SJP7648"


def test_the_reader_settles_the_vins_cells_only(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[int, bool]] = []
    read_line = glyphs.read_line

    def spy(
        line: np.ndarray, length: int, alphabet: str, scales: tuple[float, ...] = (), settle: bool = False
    ) -> ocr.Line | None:
        asked.append((length, settle))
        return read_line(line, length, alphabet, scales, settle)

    monkeypatch.setattr(glyphs, "read_line", spy)
    # a poor photo whose VIN Tesseract is not sure of (bench poor-000)
    sample = realistic.zb1_sample(0, "poor")
    page = straighten(scan_prepare(sample.data, min_size=500, max_pixels=40_000_000).image)
    assert page.flat is not None
    read_page_fields(page.flat)
    assert (17, True) in asked
    assert all(settle == (length == 17) for length, settle in asked), asked


def test_the_two_classifiers_are_averaged() -> None:
    ensemble = glyphs.model()
    assert ensemble is not None and len(ensemble.members) == 2
    assert isinstance(ensemble.members[1], glyphs.ConvModel)
    cells = np.random.default_rng(1).standard_normal((7, glyphs.CELL_W * glyphs.CELL_H)).astype(np.float32)
    each = [member.proba(cells) for member in ensemble.members]
    assert np.allclose(ensemble.proba(cells), (each[0] + each[1]) / 2)


def test_the_convolutional_networks_gradients_are_the_losss_slopes() -> None:
    rng = np.random.default_rng(2)
    net = glyphs.ConvModel(
        [
            rng.normal(0, 0.3, (9, 4)),
            rng.normal(0, 0.1, 4),
            rng.normal(0, 0.2, (36, 6)),
            rng.normal(0, 0.1, 6),
            rng.normal(0, 0.1, (6 * 4 * 6, 10)),
            rng.normal(0, 0.1, 10),
            rng.normal(0, 0.3, (10, len(glyphs.GLYPHS))),
            np.zeros(len(glyphs.GLYPHS)),
        ]
    )
    net.params = [p.astype(np.float64) for p in net.params]  # finite differences need the precision
    x = rng.standard_normal((6, glyphs.CELL_W * glyphs.CELL_H))
    y = rng.integers(0, len(glyphs.GLYPHS), 6)
    _, grads = train_glyph_model.conv_gradients(net, x, y)
    for k, index in ((0, (3, 1)), (1, (2,)), (2, (20, 4)), (4, (100, 3)), (6, (5, 7))):
        step = 1e-5
        net.params[k][index] += step
        up, _ = train_glyph_model.conv_gradients(net, x, y)
        net.params[k][index] -= 2 * step
        down, _ = train_glyph_model.conv_gradients(net, x, y)
        net.params[k][index] += step
        assert grads[k][index] == pytest.approx((up - down) / (2 * step), rel=1e-3, abs=1e-7)


def test_without_its_model_or_with_it_switched_off_nothing_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("READER_GLYPHS", "0")
    assert glyphs.read_line(printed_line("0004", 1.0), 4, "0123456789") is None
    monkeypatch.delenv("READER_GLYPHS")
    assert glyphs.read_line(np.full((40, 200), 255, np.uint8), 4, "0123456789") is None  # no ink


def test_the_model_file_round_trips() -> None:
    model = glyphs.model()
    assert model is not None
    cells = np.random.default_rng(0).random((5, glyphs.CELL_W * glyphs.CELL_H), dtype=np.float32)
    probabilities = model.proba(cells)
    assert probabilities.shape == (5, len(glyphs.GLYPHS))
    assert np.allclose(probabilities.sum(axis=1), 1, atol=1e-4)


# ---------------------------------------------------------------- decisions

VW = "WVWZZZE1ZPW012345"  # no check digit used: only agreement can confirm it


# VW's place 9 read as P or R, both allowed there: which is not known
UNSURE_P: dict[int, tuple[tuple[str, float], ...]] = {
    9: (("P", GLYPH_VIN_ALONE - 0.05), ("R", 1.05 - GLYPH_VIN_ALONE))
}


def test_a_glyph_read_vin_alone_is_stored_only_when_it_is_sure_among_the_vins_its_cells_allow() -> None:
    # no OCR read of it: the glyph reader's own, from GLYPH_VIN_ALONE, below its confidence
    fields = _read_fields(lines_for(E=[tess("WVWZZZE1ZPWD1Z34S", 0.0), cells(VW)]))
    assert fields.values["vin"] == VW and fields.confidence["E"] == 0.9
    fields = _read_fields(lines_for(E=[cells(VW, UNSURE_P)]))
    assert fields.values.get("vin") is None and "E" in fields.unread
    # a WMI no maker was given, or a check digit that fails where it is mandatory: unread
    assert _read_fields(lines_for(E=[cells("WQW" + VW[3:])])).values.get("vin") is None
    tesla = "5YJ3E7EB0KF123456"
    tesla = tesla[:8] + vin_check_digit(tesla) + tesla[9:]
    wrong_check = tesla[:8] + ("1" if tesla[8] != "1" else "2") + tesla[9:]
    assert vin_valid(wrong_check)[0] is False
    assert _read_fields(lines_for(E=[cells(wrong_check)])).values.get("vin") is None


def test_a_rule_decides_a_cell_the_classifier_was_unsure_of_where_only_one_reading_is_allowed() -> None:
    def stored(line: ocr.Line) -> str | None:
        vin = _read_fields(lines_for(E=[line])).values.get("vin")
        return None if vin is None else str(vin)

    # the serial's last four are digits: S or 5 there is 5
    assert stored(cells(VW[:16] + "S", {16: (("S", 0.6), ("5", 0.4))})) == VW
    # WHW is no maker's WMI, WVW is
    assert stored(cells("WHW" + VW[3:], {1: (("H", 0.5), ("V", 0.45))})) == VW
    # where the check digit is mandatory, the reading that meets it (7 here does not)
    tesla = "5YJ3E7EB0KF123456"
    tesla = tesla[:8] + vin_check_digit(tesla) + tesla[9:]
    assert stored(cells(tesla[:12] + "7" + tesla[13:], {12: (("7", 0.55), ("2", 0.45))})) == tesla
    # a cell read as two digits alike stays unsure, a letter ruled out or not
    assert stored(cells(VW, {16: (("5", 0.45), ("6", 0.4), ("S", 0.15))})) is None


def test_a_less_sure_glyph_read_vin_is_stored_where_both_ocr_engines_read_its_unsure_places_so() -> None:
    # the cells unsure between Z and 2 at the fifth place; neither OCR read is a VIN (an O, a Z
    # among the serial's digits), but both read the line, and the Z
    unsure = cells(VW, {4: (("Z", 0.6), ("2", 0.4))})
    tesseract, rapidocr = tess("WVWZZZE1ZPWO12345", 0.4), rapid("WVWZZZE1ZPW01Z345", 0.8)
    assert GLYPH_VIN_CONFIRMED <= 0.6 < GLYPH_VIN_ALONE
    fields = _read_fields(lines_for(E=[tesseract, unsure, rapidocr]))
    assert fields.values["vin"] == VW and fields.confidence["E"] == 0.54
    # RapidOCR alone bearing it out is not enough (it takes a blurred S for 5 as the cells do)
    tess_2 = tess("WVWZ2ZE1ZPWO12345", 0.4)
    assert _read_fields(lines_for(E=[tess_2, unsure, rapidocr])).values.get("vin") is None
    # RapidOCR reading the other character the cells allowed: unread
    rapid_2 = rapid("WVWZ2ZE1ZPW01Z345", 0.8)
    assert _read_fields(lines_for(E=[tesseract, unsure, rapid_2])).values.get("vin") is None
    # without OCR reads of the line, the cells alone are not sure enough
    assert _read_fields(lines_for(E=[unsure])).values.get("vin") is None


def test_a_less_sure_glyph_read_vin_needs_an_ocr_engine_to_read_the_same_vin() -> None:
    assert _read_fields(lines_for(E=[tess(VW, 0.3), cells(VW, UNSURE_P)])).values["vin"] == VW
    # every place of it among an OCR engine's reads or alternatives is not enough (held-out
    # poor photos: of five VINs so put together two were wrong, a blurred 0 read as 9 by
    # RapidOCR and the glyph reader alike)
    seen = VW[:16] + "S"
    choices = tuple(((c, 0.9), *((("5", 0.05),) if i == 16 else ())) for i, c in enumerate(seen))
    reads = [tess(seen, 0.3, choices), cells(VW, UNSURE_P)]
    assert _read_fields(lines_for(E=reads)).values.get("vin") is None


def test_rapidocr_reading_the_other_of_a_pair_stops_tesseract_and_glyphs_agreeing() -> None:
    # Tesseract and the glyph reader both took a phone photo's ZZ for 77; RapidOCR, which tells
    # Z from 7, read ZZ
    wrong, right = "VF1K2N9C77T6L6120", "VF1K2N9CZZT6L6120"
    reads = [tess(wrong, 0.77), glyph(wrong, 0.98), ocr.Line(right, 0.9, engine="rapidocr")]
    assert _read_fields(lines_for(E=reads)).values.get("vin") != wrong
    assert _read_fields(lines_for(E=reads[:2])).values["vin"] == wrong  # without it: agreement


def test_a_read_the_check_digit_confirms_by_chance_does_not_outrank_two_readers_agreeing() -> None:
    # held-out phone-154: Tesseract read the Z of ZZ as 2, unsure (0.0), and that VIN meets the
    # check digit by chance; RapidOCR and the glyph reader both read the Z
    right, chance = "WV1NHD86ZZPMK7897", "WV1NHD862ZPMK7897"
    assert vin_valid(chance)[1] and not vin_valid(right)[1]
    reads = [tess(chance, 0.0), glyph(right, 0.995), rapid(right, 0.945)]
    assert _read_fields(lines_for(E=reads)).values["vin"] == right


def test_the_glyph_readers_vin_is_the_likeliest_its_cells_allow_where_its_own_read_is_none() -> None:
    # held-out poor-074: RapidOCR read the VIN exactly; the glyph reader's cells read a blurred
    # 8 of the serial as B (no VIN: the last four are digits), the 8 and a 6 after it
    right = "VTR7ZKFJ8XTN98939"
    unsure = {13: (("B", 0.5), ("8", 0.25), ("6", 0.2))}
    tesseract = tess("VTRTZKFJBXTN9B939", 0.0)
    reads = [tesseract, cells(right[:13] + "B" + right[14:], unsure), rapid(right, 0.97)]
    assert _read_fields(lines_for(E=reads)).values["vin"] == right
    # the cells' likeliest VIN counts as their read, not as a read of every VIN they allow
    other = right[:13] + "6" + right[14:]
    reads = [tesseract, cells(right[:13] + "B" + right[14:], unsure), rapid(other, 0.97)]
    assert _read_fields(lines_for(E=reads)).values.get("vin") is None


def test_a_vin_put_together_with_a_wmi_in_doubt_needs_a_region_that_uses_the_check_digit() -> None:
    # held-out phone-161: RapidOCR read VW's WVW as WWW, Tesseract a W too many; put together,
    # WWW... met the check digit by chance, and a region-W maker does not use it
    wrong = "WWWR54Y648M433725"
    assert vin_valid(wrong) == (True, True)
    reads = [tess("WVWWR54Y648M433725", 0.51), rapid(wrong, 0.98)]
    fields = _read_fields(lines_for(E=reads))
    assert fields.values.get("vin") is None and "E" in fields.unread
    # the glyph reader's sure read of the VIN, which no OCR engine read, is stored as before
    reads.append(cells("WVWR54Y648M433725"))
    assert _read_fields(lines_for(E=reads)).values["vin"] == "WVWR54Y648M433725"


def test_a_vin_one_reader_met_the_check_digit_with_is_read_again() -> None:
    # held-out phone-060: Tesseract read the M as 4, 0.87 sure; M and 4 weigh alike in the check
    # digit's sum, so the wrong VIN met it, and nothing else was read
    right, wrong = "LRWW7VAV31M399829", "LRWW7VAV314399829"
    assert vin_valid(right) == vin_valid(wrong) == (True, True)
    alone = lines_for(E=[tess(wrong, 0.87)])
    assert _read_fields(alone).values["vin"] == wrong and not _sure("E", alone)
    # read again: the glyph reader and RapidOCR read the M, and the read is contradicted
    again = lines_for(E=[tess(wrong, 0.87), glyph(right, 0.97), rapid(right, 0.95)])
    assert _read_fields(again).values["vin"] == right and _sure("E", again)
    # two readers of one VIN are sure, as before
    assert _sure("E", lines_for(E=[tess(right, 0.87), glyph(right, 0.97), rapid(right, 0.95)]))


def test_a_glyph_read_date_needs_each_digit_seen_by_an_ocr_engine() -> None:
    # RapidOCR read 18.01.2014 for 10.01.2014; Tesseract 16.01.2014 with the 0 its second choice;
    # the glyph reader 10.01.2014, not sure enough of the 0 to be stored alone
    choices = tuple(((c, 0.9), *((("0", 0.05),) if i == 1 else ())) for i, c in enumerate("16012014"))
    unsure = cells("10.01.2014", {1: (("0", 0.6), ("6", 0.4))})
    reads = [tess("16.01.2014", 0.3, choices), unsure, ocr.Line("18.01.2014", 0.97, engine="rapidocr")]
    fields = _read_fields(lines_for(B=reads))
    assert fields.values["first_registration"] == datetime.date(2014, 1, 10)

    # no OCR read has the 0 anywhere: unread, not the glyph reader's word alone
    fields = _read_fields(lines_for(B=[tess("16.01.2014", 0.3), unsure]))
    assert "first_registration" not in fields.values and "B" in fields.unread


def test_b_is_read_as_the_date_i_where_a_read_of_its_own_box_names_that_date() -> None:
    # poor-000: B read 0.69.2013 by Tesseract and 01.09.2013 by RapidOCR alone, not enough for a
    # date; I, read surely, is 01.09.2013: a car on its first registration has B = I
    same = datetime.date(2013, 9, 1)
    b = [tess("0.69.2013", 0.0), rapid("01.09.2013", 0.9), tess("..69.209", 0.0)]

    def read(b_reads: list[ocr.Line], i_reads: list[ocr.Line]) -> tuple[object, object, list[str]]:
        fields = _read_fields(lines_for(B=b_reads, I=i_reads))
        return (
            fields.values.get("first_registration"),
            fields.values.get("registration_date"),
            fields.unread,
        )

    assert read(b, [])[0] is None  # alone: unread, as before
    first, this, _ = read(b, [tess("01.09.2013", 0.95)])
    assert first == this == same
    # I is another date: B stays unread, nothing is taken from I
    first, this, unread = read(b, [tess("10.03.2016", 0.95)])
    assert first is None and this == datetime.date(2016, 3, 10) and "B" in unread
    # the read of B naming I's date is not sure enough
    weak = [tess("0.69.2013", 0.0), rapid("01.09.2013", SAME_DATE_SURE - 0.01), tess("..69.209", 0.0)]
    assert read(weak, [tess("01.09.2013", 0.95)])[0] is None

    # poor-037: neither B nor I sure alone (the glyph reader's 05.04.2014 in both boxes, a cell
    # in doubt, nothing bounds them); the two boxes read alike are that date, both
    def doubted(p: float) -> ocr.Line:
        return cells("05.04.2014", {9: (("4", p), ("1", 1 - p))})

    b = [tess(".04.7074", 0.0), doubted(0.8)]
    i = [tess(".643081", 0.0), doubted(0.8)]
    assert read(b, i[:1])[0] is None and read(i[:1], i)[1] is None
    assert read(b, i)[:2] == (datetime.date(2014, 4, 5), datetime.date(2014, 4, 5))
    # I's box names another date as well as this one: which is I is not known
    i_two = [*i, rapid("05.04.2011", 0.9)]
    assert read(b, i_two)[:2] == (None, None)


def test_b_is_i_where_the_glyph_readers_cells_of_b_allow_its_date_enough() -> None:
    # poor-033 (I 11.04.2014, read surely; B 11.04.2014 read 11.04.2018 by the glyph reader and
    # garbled by Tesseract): the cells allow I's date among others, none of them sure
    this = datetime.date(2014, 4, 11)
    garbled = tess("18642018", 0.0)

    def first(share: float) -> object:
        # the decade's cell 1 or 0 alike; the year's cell 8 (later than I), 0, or 4 with the
        # probability that gives 2014 `share` among the dates allowed up to I (2000, 2004, 2008,
        # 2010 and 2014: 0.55 + p in all, 0.5 p of it 2014)
        p = 0.55 * share / (0.5 - share)
        b = cells("11.04.2018", {8: (("1", 0.5), ("0", 0.5)), 9: (("8", 0.5), ("0", 0.3), ("4", p))})
        fields = _read_fields(lines_for(B=[garbled, b], I=[tess("11.04.2014", 0.95)]))
        return fields.values.get("first_registration")

    assert first(SAME_AS_I + 0.01) == this
    assert first(SAME_AS_I - 0.01) is None


def test_a_glyph_read_date_alone_needs_to_be_sure_among_the_dates_its_cells_allow() -> None:
    # poor-027: Tesseract read 0627014 three times, RapidOCR 0; the glyph reader 06.02.2014
    garbled = [tess("0627014", 0.0), ocr.Line("0", 0.3, engine="rapidocr")]
    this = [tess("10.03.2016", 0.95)]  # I, the latest B may be

    def first(glyph_read: ocr.Line, i: list[ocr.Line] | None = None) -> object:
        return _read_fields(lines_for(B=[*garbled, glyph_read], I=i or [])).values.get("first_registration")

    def doubt(p: float) -> ocr.Line:
        return cells("06.02.2014", {1: (("6", p), ("8", 1 - p))})

    assert first(cells("06.02.2014")) == datetime.date(2014, 2, 6)
    assert first(doubt(GLYPH_DATE_ALONE + 0.01), this) == datetime.date(2014, 2, 6)
    assert first(doubt(GLYPH_DATE_ALONE - 0.01), this) is None
    # nothing bounds a date without I read: it needs more
    assert GLYPH_OPEN_DATE_ALONE > GLYPH_DATE_ALONE
    assert first(doubt(GLYPH_DATE_ALONE + 0.01)) is None
    assert first(doubt(GLYPH_OPEN_DATE_ALONE + 0.01)) == datetime.date(2014, 2, 6)
    # a cell unsure between a reading that is no date and one that is: the date (month 00; a B
    # later than its I, as poor-033 read 2018 where I is 2014)
    assert first(cells("21.00.2014", {4: (("0", 0.88), ("8", 0.07))})) == datetime.date(2014, 8, 21)
    later = cells("11.04.2018", {9: (("8", 0.6), ("4", 0.4))})
    assert first(later, [tess("11.04.2014", 0.95)]) == datetime.date(2014, 4, 11)
    # poor-030: 18.11.2019 read with 0.957 for 18.11.2014, while Tesseract showed 2018
    fields = _read_fields(lines_for(B=[tess("61.2018", 0.0), glyph("18.11.2019", 0.99)]))
    assert "first_registration" not in fields.values and "B" in fields.unread
    # a date in the future is no date, however sure
    fields = _read_fields(lines_for(B=[tess("", 0.0), glyph("07.04.2099", 0.99)]))
    assert "first_registration" not in fields.values


def test_the_glyph_readers_class_fills_in_only_where_no_ocr_read_is_one() -> None:
    # poor-037: Tesseract read "mit", "mt", "at", RapidOCR 限！; the glyph reader M1
    garbled = [tess("mit", 0.58), tess("mt", 0.55), ocr.Line("限！", 0.18, engine="rapidocr")]
    fields = _read_fields(lines_for(J=[*garbled, glyph("M1", GLYPH_CLASS_ALONE)]))
    assert fields.values["vehicle_class"] == "M1"
    fields = _read_fields(lines_for(J=[*garbled, glyph("M1", GLYPH_CLASS_ALONE - 0.01)]))
    assert "vehicle_class" not in fields.values and "J" in fields.unread
    # an OCR read of a longer class is not cut to the glyph reader's two cells
    fields = _read_fields(lines_for(J=[tess("M1G", 0.4), glyph("M1", 0.99)]))
    assert fields.values["vehicle_class"] == "M1G"
    # two cells of an L-class (L3 of L3e) are no class
    fields = _read_fields(lines_for(J=[tess("ise", 0.4), glyph("L3", 0.99)]))
    assert "vehicle_class" not in fields.values


def test_two_readers_agreeing_on_a_date_store_it_with_a_third_disagreeing() -> None:
    # Tesseract read the dotted 0 as 6, RapidOCR and the glyph reader read it right: two of
    # three readers are enough (before, both OCR engines had to agree)
    reads = [tess("16.67.2018", 0.8), glyph("16.07.2018"), ocr.Line("16.07.2018", 0.9, engine="rapidocr")]
    assert _read_fields(lines_for(B=reads)).values["first_registration"] == datetime.date(2018, 7, 16)


def test_code_10_that_p3_read_in_part_takes_in_needs_two_readers() -> None:
    rapid = ocr.Line("0010", 0.99, engine="rapidocr")
    # P.3 read as MYBA.DIESEL/E names diesel (0002); the hybrid's 0010 has diesel's word and more
    fields = _read_fields(
        lines_for(P_3=[tess("MYBA.DIESEL/E", 0.35)], **{"10": [tess("0018", 0.1), glyph("0010"), rapid]})
    )
    assert fields.values["energy_code"] == "0010" and "10" not in fields.cross_checked
    # one reader alone: unread
    fields = _read_fields(lines_for(P_3=[tess("MYBA.DIESEL/E", 0.35)], **{"10": [tess("0018", 0.1), rapid]}))
    assert "energy_code" not in fields.values and "10" in fields.unread
    # P.3 saying petrol is against a diesel hybrid, however many readers read it
    fields = _read_fields(lines_for(P_3=[tess("BENZIN", 0.9)], **{"10": [glyph("0010"), rapid]}))
    assert "energy_code" not in fields.values


def test_the_training_command_learns_cells(tmp_path: Path) -> None:
    # its pieces on the one font this machine always has (the command itself refuses it): a
    # few thousand cells and two epochs read far better than chance (1 in 34)
    fonts = [realistic.TYPEWRITERS[0]]
    x, y = train_glyph_model.training_cells(1, 3000, fonts)
    check = train_glyph_model.training_cells(2, 600, fonts)
    sizes = [glyphs.CELL_W * glyphs.CELL_H, 64, len(glyphs.GLYPHS)]
    log: list[str] = []
    model = train_glyph_model.train(x, y, sizes, 6, log.append, check)
    assert len(log) == 6 and float(log[-1].rsplit(" ", 1)[1]) > 0.3
    model.save(tmp_path / "model.npz")
    again = glyphs.Model.load(tmp_path / "model.npz")
    assert np.allclose(again.proba(check[0][:20]), model.proba(check[0][:20]), atol=1e-2)

    # the convolutional network on the same cells
    log.clear()
    conv = train_glyph_model.train_conv(x, y, 2, log.append, check)
    assert len(log) == 2 and float(log[-1].rsplit(" ", 1)[1]) > 0.3
    conv.save(tmp_path / "conv.npz")
    again_conv = glyphs.ConvModel.load(tmp_path / "conv.npz")
    assert np.allclose(again_conv.proba(check[0][:20]), conv.proba(check[0][:20]), atol=1e-2)


def test_a_read_that_differs_only_in_making_a_known_wmi_unknown_does_not_contradict() -> None:
    # held-out poor-111: the glyph reader and one of Tesseract's reads (0.0 sure) read Tesla's
    # VIN, its check digit confirms it; RapidOCR read S for the 5 and the rest alike: SYJ is
    # nobody's WMI, so that is no car's VIN and no contradiction
    right = "5YJHG6U541NY62301"
    assert vin_valid(right) == (True, True) and "SYJ" not in WMI
    tesseract = [tess("5SYJHG6U541NY6230 4", 0.36), tess("5VJHG6US41NV62301", 0.0), tess(right, 0.0)]
    reads = [*tesseract, cells(right), rapid("S" + right[1:], 0.99)]
    assert _read_fields(lines_for(E=reads)).values["vin"] == right
    # a read that differs further on as well still contradicts it
    further = "S" + right[1:12] + "0" + right[13:]
    reads = [*tesseract, cells(right), rapid(further, 0.99)]
    assert _read_fields(lines_for(E=reads)).values.get("vin") is None


def test_the_engines_reads_put_together_are_not_stored_where_the_cells_refuse_them() -> None:
    # held-out poor-130: RapidOCR and Tesseract both read a blurred 0 as 9, and their reads put
    # together place by place gave WVWPTNME7N19E5840; the glyph reader's cells read the 0
    right = "WVWPTNME7N10E5840"
    ocr_reads = [
        tess("WVWPTNME7N19E65840", 0.0),
        rapid("WWWPTNME7N19E5840", 0.9),
        tess("WVWPTNME7N160E5846", 0.0),
        tess("WVWPTNME7N1965840", 0.0),
    ]
    assert _read_fields(lines_for(E=ocr_reads)).values["vin"] == "WVWPTNME7N19E5840"
    assert _read_fields(lines_for(E=[*ocr_reads, cells(right)])).values["vin"] == right


def _reference_forward(state: dict[str, np.ndarray], cells: np.ndarray) -> np.ndarray:
    """The deeper network's logits as PyTorch lays it out (channels first, cross-correlation,
    flattening channel by channel), written plainly: the reference for its exported layout."""

    def conv(x: np.ndarray, weights: np.ndarray, bias: np.ndarray) -> np.ndarray:
        padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
        height, width = x.shape[2:]
        out = np.zeros((len(x), len(weights), height, width))
        for dy in range(3):
            for dx in range(3):
                out += np.einsum(
                    "nchw,oc->nohw", padded[:, :, dy : dy + height, dx : dx + width], weights[:, :, dy, dx]
                )
        return np.maximum(out + bias[None, :, None, None], 0)

    def pool(x: np.ndarray) -> np.ndarray:
        n, c, h, w = x.shape
        return x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))

    x = cells.reshape(-1, 1, glyphs.CELL_H, glyphs.CELL_W)
    x = pool(conv(x, state["c1.weight"], state["c1.bias"]))
    x = pool(conv(x, state["c2.weight"], state["c2.bias"]))
    flat = conv(x, state["c3.weight"], state["c3.bias"]).reshape(len(x), -1)
    hidden = np.maximum(flat @ state["f1.weight"].T + state["f1.bias"], 0)
    return hidden @ state["f2.weight"].T + state["f2.bias"]


def test_the_deeper_networks_exported_weights_compute_what_pytorch_computed(tmp_path: Path) -> None:
    # the layout train_glyph_model.deep_model turns PyTorch's weights into: a kernel or the
    # hidden layer's inputs in another order would still load and read, only worse
    rng = np.random.default_rng(3)
    shapes = {
        "c1.weight": (32, 1, 3, 3),
        "c1.bias": (32,),
        "c2.weight": (64, 32, 3, 3),
        "c2.bias": (64,),
        "c3.weight": (128, 64, 3, 3),
        "c3.bias": (128,),
        "f1.weight": (256, 128 * 6 * 4),
        "f1.bias": (256,),
        "f2.weight": (len(glyphs.GLYPHS), 256),
        "f2.bias": (len(glyphs.GLYPHS),),
    }
    state = {name: (rng.standard_normal(shape) * 0.1).astype(np.float32) for name, shape in shapes.items()}
    cells = rng.standard_normal((5, glyphs.CELL_W * glyphs.CELL_H)).astype(np.float32)
    logits = _reference_forward(state, cells)
    model = train_glyph_model.deep_model(state, temperature=2.0)
    assert np.allclose(model.proba(cells), glyphs.softmax(logits / 2.0), atol=1e-5)
    model.save(tmp_path / "deep.npz")  # float16, as the committed file
    again = glyphs.DeepConvModel.load(tmp_path / "deep.npz")
    assert np.allclose(again.proba(cells), model.proba(cells), atol=2e-2)


def test_code_10_is_taken_from_the_cells_alone_among_the_known_codes_when_they_are_sure_of_it() -> None:
    # a blurred 0 every engine took for something else: Tesseract read nothing, the cells 8001
    # with the 0 among the first cell's alternatives; of the known codes (00 and two digits)
    # they allow, 0001 has nearly all the likelihood
    blurred = cells("8001", {0: (("8", 0.6), ("0", 0.35), ("3", 0.05))})
    fields = _read_fields(lines_for(**{"10": [tess("", 0.0), blurred, rapid("01", 0.5)]}))
    assert fields.values["energy_code"] == "0001" and 0 < fields.confidence["10"] < 0.8
    assert "10" not in fields.cross_checked
    # P.3 read as a word that allows another code: against it, unread
    fields = _read_fields(lines_for(P_3=[tess("ELEKTRO", 0.9)], **{"10": [tess("", 0.0), blurred]}))
    assert "energy_code" not in fields.values and "10" in fields.unread
    # the cells unsure between two known codes (0004 and 0034): below GLYPH_CODE_ALONE, unread
    torn = cells("6694", {1: (("6", 0.5), ("0", 0.25), ("3", 0.25))})
    fields = _read_fields(lines_for(**{"10": [tess("", 0.0), torn]}))
    assert GLYPH_CODE_ALONE > 0.5 and "energy_code" not in fields.values and "10" in fields.unread
    # an OCR read that is a known code is decided by the rules for reads, not by the cells
    fields = _read_fields(lines_for(P_3=[tess("ELEKTRO", 0.9)], **{"10": [tess("0002", 0.5), blurred]}))
    assert fields.values.get("energy_code") != "0001"


def test_b_from_the_cells_where_the_ocr_reads_show_only_years_no_b_can_have() -> None:
    # bench poor-024: I is 12.10.2025; Tesseract read 21.68.2073 and 2079, the cells 21.08.2023
    this = [tess("12.10.2025", 0.9), rapid("12.10.2025", 0.9)]
    garbled = [tess("71.68.2073", 0.11), rapid("1.8", 0.96), tess("21.68.2079", 0.04)]
    sure = glyph("21.08.2023", 0.99)
    fields = _read_fields(lines_for(I=this, B=[*garbled, sure]))
    assert fields.values["first_registration"] == datetime.date(2023, 8, 21)
    # cells less sure than a date nothing bounds needs (GLYPH_OPEN_DATE_ALONE), above what one I
    # bounds needs: an impossible year read by the OCR leaves B unread (held-out poor-157: 2022
    # for 2023, Tesseract's 2072)
    share = (GLYPH_DATE_ALONE + GLYPH_OPEN_DATE_ALONE) / 2
    doubtful = cells("21.08.2023", {9: (("3", share), ("2", 1 - share))})
    fields = _read_fields(lines_for(I=this, B=[*garbled, doubtful]))
    assert "first_registration" not in fields.values and "B" in fields.unread
    # ... and an OCR read of a year B can have, not the cells' one, leaves it unread as before
    fields = _read_fields(lines_for(I=this, B=[tess("21.68.2021", 0.11), sure]))
    assert "first_registration" not in fields.values and "B" in fields.unread
