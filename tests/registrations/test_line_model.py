"""The line reader (registrations.line_model): its best-path decoding, its numpy network against a
plain reference of the PyTorch layers it was exported from, what the committed network reads, and
how the reader weighs its read (a fourth reader, never alone)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from PIL import Image, ImageDraw

from registrations import line_model, ocr
from registrations.intake import scan_prepare
from registrations.management.commands.train_line_model import exported, unfolded
from registrations.reader import (
    CUT_WITNESS,
    JOINT_ALONE,
    JOINT_CHECKED,
    JOINT_WITNESSED,
    PAIR_ALLOWED,
    _joint_read,
    _likeliest,
    _read_fields,
    _share,
    _vin_readings,
    document_read,
    vin_check_digit,
)
from tests.fixtures.zlb import realistic
from tests.registrations.test_reader_fields import VW, lines_for, rapid, tess

BLANK = 0


def column(char: str | None, sure: float = 0.9) -> np.ndarray:
    """One output column: `char` (None: the blank) with `sure`, the rest spread evenly."""
    out = np.full(1 + len(line_model.ALPHABET), (1 - sure) / len(line_model.ALPHABET))
    out[BLANK if char is None else 1 + line_model.ALPHABET.index(char)] = sure
    return out


def test_the_best_path_merges_a_run_and_a_blank_parts_a_double_letter() -> None:
    path = [None, "Z", "Z", None, "Z", "A", "A", None, None, "9"]
    probabilities = np.array([column(c) for c in path])

    read = line_model.decode(probabilities, len(path))

    assert read.text == "ZZA9"
    assert read.engine == "lines"
    assert [alts[0][0] for alts in read.choices] == list("ZZA9")
    assert read.confidence == pytest.approx(read.choices[0][0][1])


def test_each_characters_alternatives_come_from_its_surest_column_without_the_blank() -> None:
    five = np.zeros(1 + len(line_model.ALPHABET))
    five[[BLANK, 1 + line_model.ALPHABET.index("5"), 1 + line_model.ALPHABET.index("S")]] = 0.4, 0.45, 0.15
    probabilities = np.array([column(None), column("5", 0.4), five, column(None)])

    read = line_model.decode(probabilities, 4)

    (alts,) = read.choices
    assert [c for c, _ in alts[:2]] == ["5", "S"]
    assert [p for _, p in alts[:2]] == [0.75, 0.25]  # the blank's share left out
    # columns past the value's width are not read
    assert line_model.decode(probabilities, 1).text == ""


def test_a_line_of_known_length_is_read_as_the_likeliest_path_of_that_many_characters() -> None:
    # a K the network put second to the blank between a Z and an A: the best path reads three
    # characters, a line that must have four reads the K (held-out poor-046: W1XK... for W1KXK...)
    faint = column(None, 0.55)
    faint[1 + line_model.ALPHABET.index("K")] = 0.4
    path = [column(None), column("Z"), faint, column("A"), column(None), column("9")]
    probabilities = np.array(path)

    assert line_model.decode(probabilities, len(path)).text == "ZA9"
    read = line_model.decode(probabilities, len(path), length=4)
    assert read.text == "ZKA9"
    assert read.choices[1][0] == ("K", pytest.approx(0.48, abs=0.01))  # the blank left out
    # a path that already has that many characters stays as it is
    assert line_model.decode(probabilities, len(path), length=3).text == "ZA9"
    # one character too many: the least likely one goes
    extra = np.array([column("Z"), column("C", 0.5), column(None), column("A")])
    assert line_model.decode(extra, 4).text == "ZCA"
    assert line_model.decode(extra, 4, length=2).text == "ZA"
    # more characters than columns: nothing
    assert line_model.decode(probabilities, 2, length=4).text == ""


def test_a_character_made_twice_to_make_up_the_length_says_nothing_at_either_place() -> None:
    # one run of Zs parted in two (a column where the blank was nearly as likely), or a Z put in
    # beside another: the network saw one Z, and which place the other one takes it cannot
    # tell (bench poor-020: a blurred DH read as one H, made HH): both places flat
    parted = column("Z", 0.5)
    parted[BLANK] = 0.45
    path = [column(None), column("Z"), parted, column("Z"), column("A"), column(None), column("9")]
    probabilities = np.array(path)
    assert line_model.decode(probabilities, len(path)).text == "ZA9"
    read = line_model.decode(probabilities, len(path), length=4)
    assert read.text == "ZZA9"
    assert {p for alts in read.choices[:2] for _, p in alts} == {round(1 / len(line_model.ALPHABET), 3)}
    assert read.choices[2][0] == ("A", pytest.approx(0.9, abs=0.01))
    # a blank column nearly a Z between two Zs: the best path reads them twice already
    gap = column(None, 0.5)
    gap[1 + line_model.ALPHABET.index("Z")] = 0.45
    path[2] = gap
    assert line_model.decode(np.array(path), len(path)).text == "ZZA9"
    # a Z put in from a column where the blank was likelier, beside a Z: flat as well
    faint = column(None, 0.55)
    faint[1 + line_model.ALPHABET.index("Z")] = 0.4
    probabilities = np.array([column(None), column("Z"), column(None), faint, column("A"), column("9")])
    read = line_model.decode(probabilities, 6, length=4)
    assert read.text == "ZZA9"
    assert len(read.choices[0]) == len(line_model.ALPHABET) and len(read.choices[1]) == len(
        line_model.ALPHABET
    )


def conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A plain 3 x 3 convolution of (C, H, W) with PyTorch's (out, in, 3, 3) weights."""
    _, h, width = x.shape
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1)))
    out = np.zeros((len(w), h, width))
    for dy in range(3):
        for dx in range(3):
            out += np.einsum("oc,chw->ohw", w[:, :, dy, dx], padded[:, dy : dy + h, dx : dx + width])
    return out + b[:, None, None]


def conv1d(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A plain convolution of (F, T) along T with PyTorch's (out, in, k) weights."""
    k = w.shape[2]
    padded = np.pad(x, ((0, 0), (k // 2, k // 2)))
    t = x.shape[1]
    return sum(w[:, :, j] @ padded[:, j : j + t] for j in range(k)) + b[:, None]


def norm(x: np.ndarray, state: dict[str, np.ndarray], name: str) -> np.ndarray:
    shape = (-1,) + (1,) * (x.ndim - 1)
    scale = state[f"{name}.weight"] / np.sqrt(state[f"{name}.running_var"] + 1e-5)
    return (x - state[f"{name}.running_mean"].reshape(shape)) * scale.reshape(shape) + state[
        f"{name}.bias"
    ].reshape(shape)


def maxpool(x: np.ndarray, rows: int, columns: int) -> np.ndarray:
    c, h, w = x.shape
    return x.reshape(c, h // rows, rows, w // columns, columns).max(axis=(2, 4))


def test_the_numpy_network_computes_what_the_pytorch_layers_compute() -> None:
    # given random weights and batch norms in PyTorch's layout (small widths)
    rng = np.random.default_rng(3)
    widths, hidden, classes = (2, 3, 4, 4), 5, 1 + len(line_model.ALPHABET)
    state: dict[str, np.ndarray] = {}
    channels = (1, *widths)
    for k in range(4):
        state[f"c{k + 1}.weight"] = rng.normal(0, 0.5, (channels[k + 1], channels[k], 3, 3))
        state[f"c{k + 1}.bias"] = rng.normal(0, 0.1, channels[k + 1])
    features = (widths[-1] * line_model.LINE_H // 8, hidden)
    for k, inputs in ((1, features[0]), (2, hidden)):
        state[f"l{k}.weight"] = rng.normal(0, 0.5, (hidden, inputs, 3))
        state[f"l{k}.bias"] = rng.normal(0, 0.1, hidden)
    for name, size in [(f"n{k + 1}", widths[k]) for k in range(4)] + [("m1", hidden), ("m2", hidden)]:
        state[f"{name}.weight"] = rng.uniform(0.5, 1.5, size)
        state[f"{name}.bias"] = rng.normal(0, 0.2, size)
        state[f"{name}.running_mean"] = rng.normal(0, 0.2, size)
        state[f"{name}.running_var"] = rng.uniform(0.5, 2, size)
    state["out.weight"] = rng.normal(0, 0.5, (classes, hidden, 1))
    state["out.bias"] = rng.normal(0, 0.1, classes)
    line = rng.random((line_model.LINE_H, line_model.LINE_W))

    # when the layers are computed one by one, channels first, as PyTorch does
    x = line[None]
    for k, pooling in ((1, (2, 2)), (2, (2, 2)), (3, None), (4, (2, 1))):
        x = np.maximum(norm(conv2d(x, state[f"c{k}.weight"], state[f"c{k}.bias"]), state, f"n{k}"), 0)
        if pooling:
            x = maxpool(x, *pooling)
    x = x.reshape(-1, x.shape[2])  # each column: channel, row
    for k in (1, 2):
        x = np.maximum(norm(conv1d(x, state[f"l{k}.weight"], state[f"l{k}.bias"]), state, f"m{k}"), 0)
    reference = (conv1d(x, state["out.weight"], state["out.bias"])).T

    # then the exported numpy network gives the same logits
    got = exported(state).logits(line[None].astype(np.float32))[0]
    assert got.shape == (line_model.LINE_W // line_model.STRIDE, classes)
    np.testing.assert_allclose(got, reference, rtol=1e-3, atol=1e-3)


def printed_line(text: str) -> np.ndarray:
    """A VIN as the page's value layer has it (10 px per mm, 3 mm type), in a test document's
    typewriter font, which the network never saw in training."""
    font = realistic.font(realistic.TYPEWRITERS[0], 30)
    image = Image.new("L", (int(font.getlength(text)) + 60, 50), 255)
    ImageDraw.Draw(image).text((30, 10), text, font=font, fill=30)
    return np.asarray(image)


def test_the_committed_network_reads_a_clean_line_in_a_font_it_never_saw() -> None:
    assert line_model.model() is not None, "platform/registrations/line_model.npz is committed"
    vin = "WVWZZZE1ZPW012345"

    read = line_model.read_line(printed_line(vin))

    assert read is not None
    assert read.text == vin
    assert read.confidence > 0.5
    assert line_model.read_line(np.full((50, 400), 255, np.uint8)) is None  # no ink, no read


def lines(text: str, confidence: float = 0.9) -> ocr.Line:
    return ocr.Line(text, confidence, engine="lines")


def glyph(text: str, confidence: float = 0.9) -> ocr.Line:
    return ocr.Line(text, confidence, engine="glyphs")


def test_the_line_reader_and_an_ocr_engine_agreeing_store_a_vin() -> None:
    assert vin_check_digit(VW) != VW[8]  # no check digit: only agreement confirms it

    assert _read_fields(lines_for(E=[tess(VW), lines(VW)])).values["vin"] == VW
    assert _read_fields(lines_for(E=[rapid(VW), tess("WVW2Z", 0.3), lines(VW)])).values["vin"] == VW
    assert "vin" not in _read_fields(lines_for(E=[lines(VW)])).values


def test_the_learned_readers_agreeing_are_one_reader() -> None:
    # the glyph reader and the line reader learned from the same fonts and err alike (both read a
    # blurred 8 as B: held-out poor-133): their reads agreeing is no second reader's word
    assert "vin" not in _read_fields(lines_for(E=[glyph(VW), lines(VW)])).values


def test_the_check_digit_does_not_confirm_the_line_readers_read_alone() -> None:
    good = "1M8GDM9AXKP042788"  # its check digit (X) confirms it

    assert _read_fields(lines_for(E=[tess(good, 0.7)])).values["vin"] == good
    fields = _read_fields(lines_for(E=[lines(good, 0.99)]))
    assert "vin" not in fields.values
    assert "E" in fields.unread


def test_switched_off_it_reads_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("READER_LINES", "0")
    assert line_model.read_line(printed_line(VW)) is None


def unsure(text: str, doubts: dict[int, tuple[str, float]], engine: str) -> ocr.Line:
    """A learned reader's read of `text`: each place sure (0.99) but where `doubts` gives the
    character it rivals and that rival's share."""
    choices = []
    for i, c in enumerate(text):
        rival, share = doubts.get(i, ("0" if c != "0" else "1", 0.01))
        choices.append(((c, round(1 - share, 3)), (rival, share)))
    return ocr.Line(text, min(p for (p,) in [(c[0][1],) for c in choices]), tuple(choices), engine=engine)


def test_the_learned_readers_together_store_the_vin_both_are_sure_of_where_neither_is_alone() -> None:
    # the glyph reader unsure of one place, the line reader of another: neither alone is sure
    # enough (GLYPH_VIN_ALONE), together they are; Tesseract read nothing of use
    cells = unsure(VW, {4: ("2", 0.45)}, "glyphs")
    whole = unsure(VW, {12: ("7", 0.45)}, "lines")
    noise = tess("WVW2Z", 0.3)

    assert "vin" not in _read_fields(lines_for(E=[noise, cells])).values
    fields = _read_fields(lines_for(E=[noise, cells, whole]))

    assert fields.values["vin"] == VW
    assert 0.8 < fields.confidence["E"] <= 0.9  # below the joint share: two learned readers only


def test_the_learned_readers_together_store_nothing_where_they_read_the_line_differently() -> None:
    # the line reader's read shifted by a place (a border taken for a 1): its places do not
    # match the cells', whatever their product says
    cells = unsure(VW, {4: ("2", 0.45)}, "glyphs")
    shifted = unsure("1" + VW[:-1], {}, "lines")

    assert "vin" not in _read_fields(lines_for(E=[tess("WVW2Z", 0.3), cells, shifted])).values


def test_the_learned_readers_together_never_store_a_character_neither_ranked_first() -> None:
    # one read a Y, the other a 9 at place 6, both with a V second: their product makes the V
    # likeliest, which neither read (held-out poor-082)
    vin = VW[:6] + "V" + VW[7:]
    cells = unsure(VW[:6] + "9" + VW[7:], {6: ("V", 0.4)}, "glyphs")
    whole = unsure(VW[:6] + "Y" + VW[7:], {6: ("V", 0.4)}, "lines")

    fields = _read_fields(lines_for(E=[tess("WVW2Z", 0.3), cells, whole]))

    assert fields.values.get("vin") != vin


def test_the_learned_readers_read_a_confusable_pair_alike() -> None:
    # the line reader took a 1 for a 7 and the last 5 for an S (which no VIN has there): two
    # places read otherwise, but the S is the 5's shape blurred (CONFUSABLE), not a line read
    # shifted; together they store the VIN the cells read (bench poor-028: an 8 read as B)
    cells = unsure(VW, {4: ("2", 0.3)}, "glyphs")
    whole = unsure(VW[:12] + "7" + VW[13:16] + "S", {12: ("1", 0.5), 16: ("5", 0.4)}, "lines")
    noise = tess("WVW2Z", 0.3)

    assert "vin" not in _read_fields(lines_for(E=[noise, cells])).values
    assert _read_fields(lines_for(E=[noise, cells, whole])).values["vin"] == VW
    # a third place read otherwise is one too many
    three_places = unsure(
        VW[:10] + "X" + VW[11:12] + "7" + VW[13:16] + "S", {12: ("1", 0.5), 16: ("5", 0.4)}, "lines"
    )
    assert "vin" not in _read_fields(lines_for(E=[noise, cells, three_places])).values


def test_where_the_check_digit_is_mandatory_the_learned_readers_together_need_less() -> None:
    # a Tesla VIN (region 5: the check digit is mandatory), both learned readers unsure of place 4
    # alike (E or N, which weigh alike in the check digit's sum): their joint share is below
    # JOINT_ALONE but the VINs they allow all meet the check digit (bench poor-010)
    base = "5YJ3E1EA0KF317000"
    tesla = base[:8] + vin_check_digit(base) + base[9:]
    noise = tess("WVW2Z", 0.3)

    def joint(vin: str, share: float) -> tuple[ocr.Line, ocr.Line, float]:
        cells, whole = unsure(vin, {4: ("N", share)}, "glyphs"), unsure(vin, {4: ("N", share)}, "lines")
        decoded = _likeliest(_vin_readings(_joint_read(cells, whole)))
        assert decoded is not None and decoded[0] == vin
        return cells, whole, decoded[1]

    cells, whole, share = joint(tesla, 0.22)
    assert JOINT_CHECKED <= share < JOINT_ALONE
    assert "vin" not in _read_fields(lines_for(E=[noise, cells])).values
    assert _read_fields(lines_for(E=[noise, cells, whole])).values["vin"] == tesla
    # less sure than that: not stored
    cells, whole, share = joint(tesla, 0.3)
    assert share < JOINT_CHECKED
    assert "vin" not in _read_fields(lines_for(E=[noise, cells, whole])).values
    # a VIN of a region without the check digit, as sure: not stored
    cells, whole, share = joint(VW, 0.2)
    assert JOINT_CHECKED <= share < JOINT_ALONE
    assert "vin" not in _read_fields(lines_for(E=[noise, cells, whole])).values


def test_the_engine_that_tells_a_pair_apart_outweighs_the_learned_readers_together() -> None:
    # the glyph reader and the line reader both read the S as a 5, surely; RapidOCR, which tells S
    # from 5 (ENGINE_FOR_PAIR), read the S (bench poor-032)
    with_s, five = VW[:11] + "S" + VW[12:], VW[:11] + "5" + VW[12:]
    cells, whole = unsure(five, {4: ("2", 0.45)}, "glyphs"), unsure(five, {}, "lines")

    assert _read_fields(lines_for(E=[tess("WVW2Z", 0.3), cells, whole])).values["vin"] == five
    fields = _read_fields(lines_for(E=[tess("WVW2Z", 0.3), cells, whole, rapid(with_s)]))
    assert fields.values.get("vin") != five
    # ... but not a RapidOCR read that misread other places too (held-out poor-120: 1MB24... for
    # TMBZ4...): it misread the line, its S is no better than the rest of it
    misread = "V" + with_s[1:6] + "2" + with_s[7:]
    fields = _read_fields(lines_for(E=[tess("WVW2Z", 0.3), cells, whole, rapid(misread)]))
    assert fields.values["vin"] == five


def joint_share(vin: str, cells: ocr.Line, whole: ocr.Line) -> float:
    decoded = _likeliest(_vin_readings(_joint_read(cells, whole)))
    assert decoded is not None and decoded[0] == vin
    return decoded[1]


def joint_unsure() -> tuple[ocr.Line, ocr.Line, ocr.Line]:
    """The glyph reader took the P for an A and the E for an F, the line reader read both right:
    together less sure than JOINT_ALONE, and alike at 15 places only; Tesseract read nothing of
    use. The cells', the line reader's and Tesseract's reads."""
    cells = unsure(VW[:6] + "F" + VW[7:9] + "A" + VW[10:], {6: ("E", 0.45), 9: ("P", 0.45)}, "glyphs")
    whole = unsure(VW, {6: ("F", 0.05), 9: ("A", 0.05)}, "lines")
    assert JOINT_WITNESSED <= joint_share(VW, cells, whole) < JOINT_ALONE
    return cells, whole, tess("WVW2Z", 0.3)


def test_an_ocr_engine_reading_the_line_but_for_one_place_witnesses_the_joint_vin() -> None:
    # joint_unsure's reads; RapidOCR read the line as they do but for the W it took for an M
    # (bench poor-037: MBA6... for WBA6...)
    cells, whole, noise = joint_unsure()

    assert "vin" not in _read_fields(lines_for(E=[noise, cells, whole])).values
    fields = _read_fields(lines_for(E=[noise, cells, whole, rapid("M" + VW[1:])]))
    assert fields.values["vin"] == VW
    assert fields.confidence["E"] < 0.9  # the joint share, below it: the witness read it otherwise
    # a read that differs at two places witnesses nothing
    twice = "M" + VW[1:12] + "7" + VW[13:]
    assert "vin" not in _read_fields(lines_for(E=[noise, cells, whole, rapid(twice)])).values
    # nor a read of the whole line where the learned readers read three places otherwise
    third = unsure(
        VW[:6] + "F" + VW[7:9] + "A" + VW[10:12] + "7" + VW[13:],
        {6: ("E", 0.45), 9: ("P", 0.45), 12: ("1", 0.45)},
        "glyphs",
    )
    assert "vin" not in _read_fields(lines_for(E=[noise, third, whole, rapid("M" + VW[1:])])).values


def test_the_cut_line_network_reading_the_joint_vin_whole_and_sure_witnesses_it() -> None:
    # joint_unsure's reads, no OCR engine near the line: the joint VIN is not stored alone
    cells, whole, noise = joint_unsure()
    assert "vin" not in _read_fields(lines_for(E=[noise, cells, whole])).values

    def witnessed(text: str, sure: float) -> ocr.Line:
        return replace(whole, witness=unsure(text, {13: ("7", round(1 - sure, 3))}, "cut"))

    # the line reader's cut-line network read it whole, every place CUT_WITNESS sure or more: stored
    fields = _read_fields(lines_for(E=[noise, cells, witnessed(VW, CUT_WITNESS)]))
    assert fields.values["vin"] == VW
    assert fields.confidence["E"] < 0.9  # the joint share, below it
    # less sure at one place, or one place read otherwise: nothing
    assert "vin" not in _read_fields(lines_for(E=[noise, cells, witnessed(VW, CUT_WITNESS - 0.01)])).values
    other = VW[:16] + ("1" if VW[16] != "1" else "2")
    assert "vin" not in _read_fields(lines_for(E=[noise, cells, witnessed(other, 0.99)])).values
    # a witness is the line reader's only: a glyph read carrying one is not asked
    cells_witnessed = replace(cells, witness=witnessed(VW, 0.99).witness)
    assert "vin" not in _read_fields(lines_for(E=[noise, cells_witnessed, whole])).values


def test_the_line_reader_reads_each_crop_with_its_cut_line_network_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    line = printed_line("WVWZZZE1ZPW012345")
    read = line_model.read_line(line, 17)
    assert read is not None and read.witness is not None
    assert read.witness.engine == "cut" and len(read.witness.text) == 17
    monkeypatch.setenv("READER_CUT", "0")
    alone = line_model.read_line(line, 17)
    assert alone is not None and alone.witness is None
    assert alone.text == read.text


def test_the_engine_that_tells_a_pair_apart_decides_it_where_the_learned_readers_allow_it() -> None:
    # both learned readers read a blurred S as 5 first, S second; RapidOCR (ENGINE_FOR_PAIR for S/5)
    # read the S and the rest alike: its read is stored (bench poor-032, W1KB0LYV0S94S0672)
    with_s, five = VW[:11] + "S" + VW[12:], VW[:11] + "5" + VW[12:]
    cells, whole = unsure(five, {11: ("S", 0.3)}, "glyphs"), unsure(five, {11: ("S", 0.3)}, "lines")
    noise = tess("WVW2Z", 0.3)
    assert _share(_vin_readings(_joint_read(cells, whole)), with_s) >= PAIR_ALLOWED

    assert "vin" not in _read_fields(lines_for(E=[noise, cells, whole])).values
    fields = _read_fields(lines_for(E=[noise, cells, whole, rapid(with_s)]))
    assert fields.values["vin"] == with_s
    assert fields.confidence["E"] == 0.81  # RapidOCR's own 0.9, below it: one reader decided the pair
    # where neither learned reader saw an S there at all, RapidOCR's S is not taken either
    cells, whole = unsure(five, {11: ("6", 0.3)}, "glyphs"), unsure(five, {11: ("6", 0.3)}, "lines")
    assert _share(_vin_readings(_joint_read(cells, whole)), with_s) < PAIR_ALLOWED
    assert "vin" not in _read_fields(lines_for(E=[noise, cells, whole, rapid(with_s)])).values


def test_a_pair_the_vin_cannot_have_at_that_place_is_no_doubt() -> None:
    # RapidOCR's S for a 5 among the serial's last four places, which are digits (VIN_PLACES):
    # no VIN has the S there, so it doubts nothing (bench poor-036, VTR6J8N0XGC2C66S1)
    assert VW[16] == "5"
    cells, whole = unsure(VW, {4: ("2", 0.45)}, "glyphs"), unsure(VW, {}, "lines")
    impossible = VW[:16] + "S"

    fields = _read_fields(lines_for(E=[tess("WVW2Z", 0.3), cells, whole, rapid(impossible)]))

    assert fields.values["vin"] == VW


def test_a_poor_photos_vin_nothing_else_could_store_is_read_with_the_line_reader(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a held-out poor photo (not of the bench's seeds): the glyph reader alone is not sure enough
    # of its VIN and neither OCR engine reads it; with the line reader's read it is stored, right
    sample = realistic.zb1_sample(51, "poor")
    assert sample.expected is not None
    image = scan_prepare(sample.data, min_size=500, max_pixels=40_000_000).image

    reading = document_read(image)

    assert reading.is_zlb
    assert reading.vin == sample.expected["E"]
    monkeypatch.setenv("READER_LINES", "0")
    without = document_read(image)
    assert without.vin is None
    assert "E" in without.unread


def test_a_committed_network_unfolded_for_fine_tuning_exports_as_itself() -> None:
    # given the committed network's weights put back in PyTorch's layout (batch norms the identity)
    net = line_model.model()
    assert net is not None
    k1, _, k2, _, k3, _, k4, _, l1, _, l2, _, w, _ = net.params
    channels = [1] + [k.shape[1] for k in (k1, k2, k3, k4)]
    hidden = l1.shape[1]
    shapes: dict[str, tuple[int, ...]] = {"out.weight": (w.shape[1], hidden, 1)}
    for k in range(4):
        shapes[f"c{k + 1}.weight"] = (channels[k + 1], channels[k], 3, 3)
        shapes[f"n{k + 1}.weight"] = (channels[k + 1],)
    shapes["l1.weight"], shapes["l2.weight"] = (hidden, l1.shape[0] // 3, 3), (hidden, hidden, 3)
    shapes["m1.weight"] = shapes["m2.weight"] = (hidden,)
    state = unfolded(net, shapes)
    assert state["c2.weight"].shape == shapes["c2.weight"]

    # then exporting them again gives the same network
    again = exported(state)
    for before, after in zip(net.params, again.params, strict=True):
        np.testing.assert_allclose(after, before, rtol=1e-5, atol=1e-6)


def test_a_poor_photos_vin_the_cut_line_network_witnesses_is_stored(monkeypatch: pytest.MonkeyPatch) -> None:
    # a bench poor photo: the learned readers' joint VIN, 0.851 of their likelihood, below
    # JOINT_ALONE; no OCR engine read the line near it; the cut-line network read it whole and sure
    sample = realistic.zb1_sample(4, "poor")
    assert sample.expected is not None
    image = scan_prepare(sample.data, min_size=500, max_pixels=40_000_000).image

    assert document_read(image).vin == sample.expected["E"]
    monkeypatch.setenv("READER_CUT", "0")
    without = document_read(image)
    assert without.is_zlb and without.vin is None
    assert "E" in without.unread
