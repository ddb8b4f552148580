"""The document reader on realistic ZB I documents (tests/fixtures/zlb/realistic.py): each
field from its box, the turns, the vetoes, the validation rules, the spec's refusal codes.
The bench (tests/bench/test_reader_accuracy.py) measures the same reader on 150+ documents."""

from __future__ import annotations

import datetime
import io
import random

import pytest
from PIL import Image, ImageEnhance, ImageFilter

from registrations import reader
from registrations.errors import ScanRejected
from registrations.intake import scan_prepare
from registrations.reader import (
    Reading,
    _read_fields,
    _veto,
    document_check,
    document_read,
    vin_check_digit,
    vin_valid,
)
from tests.fixtures.zlb import realistic
from tests.fixtures.zlb.generate import document_set

LIMITS = {"min_size": 500, "max_pixels": 40_000_000}


def german_date(value: str) -> datetime.date:
    day, month, year = (int(part) for part in value.split("."))
    return datetime.date(year, month, day)


def read(data: bytes) -> Reading:
    return document_read(scan_prepare(data, **LIMITS).image)


def clean_document(seed: int, *, energy: str | None = None) -> tuple[Image.Image, dict[str, str]]:
    """A clean scan of a realistic ZB I (seeded), as an image and its expected fields."""
    rng = random.Random(f"test-{seed}")
    car = realistic.vehicle(rng, energy=energy)
    page = realistic.render_form(rng, car.values)
    return realistic.photograph(rng, page, quality="scan"), car.expected


def jpeg(image: Image.Image) -> bytes:
    return realistic.encode(image, "jpeg", quality=90)


@pytest.fixture(scope="module")
def scanned() -> tuple[Reading, dict[str, str]]:
    image, expected = clean_document(3)
    return read(jpeg(image)), expected


def test_each_field_is_read_from_its_box(scanned: tuple[Reading, dict[str, str]]) -> None:
    reading, expected = scanned

    assert reading.is_zlb and reading.kind == "zb1"
    assert reading.vin == expected["E"]
    assert reading.first_registration == german_date(expected["B"])
    assert reading.registration_date == german_date(expected["I"])
    assert reading.vehicle_class == expected["J"]
    assert reading.energy_code == expected["10"]
    assert reading.fuel == expected["P.3"]
    assert reading.make == expected["D.1"]
    assert reading.maker_key == expected["2.1"]
    assert set(reading.confidence) >= {"E", "B", "J", "10"}
    assert all(0 <= value <= 1 for value in reading.confidence.values())


def test_field_b_is_the_first_registration_not_this_registration() -> None:
    # a document registered again later: B and I differ, and B is taken
    for seed in range(20, 60):
        image, expected = clean_document(seed)
        if expected["B"] != expected["I"]:
            break
    reading = read(jpeg(image))

    assert reading.first_registration == german_date(expected["B"])
    assert reading.first_registration != german_date(expected["I"])


def test_the_maker_key_is_not_taken_for_the_energy_code() -> None:
    # BMW's maker key 2.1 is 0005, which looks like an energy code; field 10 says 0004
    for seed in range(40):
        image, expected = clean_document(seed, energy="0004")
        if expected["2.1"].startswith("00"):
            break
    reading = read(jpeg(image))

    assert reading.maker_key == expected["2.1"]
    assert reading.energy_code == "0004"
    assert reading.is_electric is True


@pytest.mark.parametrize("turn", [90, 180, 270])
def test_a_document_turned_in_the_pixels_is_read(turn: int) -> None:
    image, expected = clean_document(11)
    reading = read(jpeg(image.rotate(turn, expand=True)))

    assert reading.is_zlb
    assert reading.first_registration == german_date(expected["B"])
    assert reading.energy_code == expected["10"]


def test_a_phone_photo_in_perspective_on_a_table_is_read() -> None:
    rng = random.Random("phone-test")
    car = realistic.vehicle(rng, energy="0004")
    photo = realistic.photograph(rng, realistic.render_form(rng, car.values), quality="phone")
    reading = read(jpeg(photo))

    assert reading.is_zlb
    assert reading.energy_code == "0004"
    assert reading.first_registration == german_date(car.expected["B"])


def test_a_photo_too_blurred_to_read_asks_for_a_sharper_one() -> None:
    """A ZB I whose values no one could read (small, out of focus) is refused as IMGC007, not
    accepted with every field left unread; the same photo sharp, or sharp and dark, is read."""
    rng = random.Random("phone-test")
    car = realistic.vehicle(rng, energy="0004")
    photo = realistic.photograph(rng, realistic.render_form(rng, car.values), quality="phone")
    small = photo.copy()
    small.thumbnail((1200, 1200))

    for radius in (1.6, 2.0):
        reading = read(jpeg(small.filter(ImageFilter.GaussianBlur(radius))))
        assert not reading.is_zlb and reading.kind == "blurred", radius
        with pytest.raises(ScanRejected) as refused:
            document_check(reading)
        assert refused.value.code == "IMGC007"
    for readable in (photo, ImageEnhance.Brightness(photo).enhance(0.45)):
        reading = read(jpeg(readable))
        assert reading.is_zlb and reading.first_registration == german_date(car.expected["B"])


def test_a_non_electric_vehicle_is_accepted_and_flagged() -> None:
    image, expected = clean_document(5, energy="0002")
    reading = read(jpeg(image))

    assert reading.is_zlb
    assert reading.energy_code == "0002"
    assert reading.is_electric is False
    assert reading.needs_review


def test_a_value_nothing_was_read_of_is_flagged_for_the_back_office() -> None:
    # poor-019: the photo cut off the grid's top rows; here the VIN and B boxes are empty
    rng = random.Random("test-empty-boxes")
    car = realistic.vehicle(rng, energy="0004")
    page = realistic.render_form(rng, {**car.values, "E": "", "B": ""})
    reading = read(jpeg(realistic.photograph(rng, page, quality="scan")))

    assert reading.is_zlb
    assert reading.vin is None and reading.first_registration is None
    assert {"E", "B"} <= set(reading.unread)
    assert reading.vehicle_class == car.expected["J"] and "J" not in reading.unread
    assert reading.needs_review


@pytest.mark.parametrize("kind", ["teil2", "coc", "invoice", "webpage"])
def test_wrong_documents_are_refused_by_kind(kind: str) -> None:
    for seed in range(2):
        sample = realistic.wrong_sample(seed, kind)
        reading = read(sample.data)

        assert not reading.is_zlb, sample.name
        with pytest.raises(ScanRejected) as refused:
            document_check(reading)
        # IMGC003 where a photo of it left too little text to read (security paper, blur)
        assert refused.value.code in {"IMGC002", "IMGC003"}, sample.name


def test_a_web_page_showing_the_form_is_refused_even_with_the_grid_visible() -> None:
    # the page embeds a sample of the form: the grid matches, the text around it vetoes
    for seed in range(10):
        sample = realistic.wrong_sample(seed, "webpage")
        reading = read(sample.data)
        if reading.grid >= 0.4:
            assert not reading.is_zlb
            assert reading.kind == "webpage"
            return
    pytest.fail("no web page with the form on it in the first ten")


def test_blank_and_dark_photos_are_imgc003() -> None:
    for seed in range(3):
        sample = realistic.wrong_sample(seed, "blank")
        with pytest.raises(ScanRejected) as refused:
            document_check(read(sample.data))
        assert refused.value.code == "IMGC003"


def test_a_picture_without_writing_is_refused_before_any_page_search_or_ocr(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # blank, dark, a car: nothing character-sized stands out, so nothing is searched or read
    # (Tesseract's page run on the noise of a dark photo took a minute)
    def not_reached(*args: object, **kwargs: object) -> None:
        raise AssertionError("searched or read a picture without writing")

    monkeypatch.setattr(reader, "straighten", not_reached)
    monkeypatch.setattr(reader, "_ocr_text", not_reached)
    monkeypatch.setattr(reader.ocr, "read_line", not_reached)
    for sample in [realistic.wrong_sample(seed, "blank") for seed in range(4)] + [
        realistic.wrong_sample(0, "carphoto")
    ]:
        reading = read(sample.data)
        assert (reading.is_zlb, reading.readable, reading.kind) == (False, False, "empty"), sample.name


def test_writing_is_told_from_blank_paper_and_from_a_table_around_the_document() -> None:
    image, _ = clean_document(4)
    assert reader._marks(image) >= reader.MIN_MARKS
    blank = scan_prepare(realistic.wrong_sample(1, "blank").data, **LIMITS).image
    assert reader._marks(blank) < reader.MIN_MARKS
    # the text around the form on a web page is read; wood grain around a photo is not text
    web = scan_prepare(realistic.wrong_sample(0, "webpage").data, **LIMITS).image
    page = reader.straighten(web)
    assert page.quad is not None
    assert reader._marks(web, page.quad, contrast=50) >= reader.OUTSIDE_MARKS
    for seed in (2, 5):  # wood grain and cloth around the document (the most marks measured)
        photo = scan_prepare(realistic.zb1_sample(seed, "phone").data, **LIMITS).image
        page = reader.straighten(photo)
        if page.quad is not None:
            assert reader._marks(photo, page.quad, contrast=50) < reader.OUTSIDE_MARKS, seed


def test_teil_ii_is_never_taken_for_teil_i() -> None:
    assert _veto("Zulassungsbescheinigung Teil II") == "teil2"
    assert _veto("Zulassungsbescheinigung Teil Il (Fahrzeugbrief)") == "teil2"
    assert _veto("Zulassungsbescheinigung Teil 11") == "teil2"
    assert _veto("Europäische Union Bundesrepublik Deutschland Zulassungsbescheinigung Teil I") is None
    assert _veto("EG-Übereinstimmungsbescheinigung Certificate of Conformity") == "coc"
    assert _veto("Rechnung Nr. 4711 MwSt 19 % Gesamtbetrag") == "invoice"


def test_vin_rules() -> None:
    assert vin_valid("WVWZZZ1KZAW000001") == (True, vin_check_digit("WVWZZZ1KZAW000001") == "Z")
    assert vin_valid("WVWZZZ1KZAW00000I")[0] is False  # I is not in the alphabet
    assert vin_valid("WVWZZZ1KZAW0O0001")[0] is False  # nor O
    assert vin_valid("WVWZZZ1KZAW00001")[0] is False  # 16 characters
    assert vin_valid("0VWZZZ1KZAW000001")[0] is False  # no region 0
    assert vin_valid("WVWZZZ1KZAWS0001")[0] is False  # S in the serial's digits (and short)
    # North America: the check digit is mandatory
    good = "1M8GDM9AXKP042788"  # the standard worked example of 49 CFR 565
    assert vin_check_digit(good) == "X"
    assert vin_valid(good) == (True, True)
    assert vin_valid("1M8GDM9A1KP042788")[0] is False


def test_a_value_failing_validation_is_stored_unread_not_mended() -> None:
    lines = {
        "E": ("1M8GDM9A1KP042788", 0.9),  # check digit wrong
        "B": ("31.02.2020", 0.9),  # no such day
        "I": ("01.01.2021", 0.9),
        "J": ("X9", 0.9),
        "10": ("0004", 0.9),
        "P.3": ("DIESEL", 0.9),  # contradicts 0004
        "D.1": ("TESLA", 0.9),
        "D.3": ("MODEL 3", 0.9),
        "A": ("B-AB 123E", 0.9),
        "2.1": ("0025", 0.9),
    }
    fields = _read_fields(lines)

    assert "vin" not in fields.values and "E" in fields.unread
    assert "first_registration" not in fields.values and "B" in fields.unread
    assert "vehicle_class" not in fields.values and "J" in fields.unread
    assert "energy_code" not in fields.values and "10" in fields.unread


def test_b_after_i_is_unread() -> None:
    lines = {key: ("", 0.0) for key in ("E", "J", "10", "P.3", "D.1", "D.3", "A", "2.1")}
    lines["B"] = ("05.06.2022", 0.9)
    lines["I"] = ("01.01.2021", 0.9)
    fields = _read_fields(lines)

    assert "first_registration" not in fields.values
    assert "B" in fields.unread


@pytest.mark.parametrize(
    ("reading", "code"),
    [
        (Reading(is_zlb=False, readable=True, score=0), "IMGC002"),
        (Reading(is_zlb=False, readable=False, score=0), "IMGC003"),
    ],
)
def test_the_check_refuses_with_the_spec_codes(reading: Reading, code: str) -> None:
    with pytest.raises(ScanRejected) as refused:
        document_check(reading)

    assert refused.value.code == code


def test_the_older_generated_set_still_classifies() -> None:
    """generate.py's documents (used by the deploy and intake tests) are realistic ZB I now:
    EXIF turns, skew, blur, PDF; its letters and receipts are refused."""
    items = document_set(6)
    for name, data, expected in items:
        reading = read(data)
        assert reading.is_zlb == (expected is not None), name
    image = Image.open(io.BytesIO(items[0][1]))
    assert image.size[0] > 0
