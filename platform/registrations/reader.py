"""The document check and reader for a Zulassungsbescheinigung Teil I (ZB I).

1. geometry.straighten finds the page (pale green security paper), corrects perspective and
   turn, and registers the form's grid of boxes against its template: the grid match is the
   structural evidence.
2. The printer's values are separated from the green pre-print by colour, and each field is
   read from its own box: one Tesseract run over a strip of the field crops (one process start
   instead of one per field), a second, whitelisted run only for a VIN that did not validate.
3. Each value is validated (VIN alphabet, WMI, ISO 3779 check digit where the maker uses it;
   dates B <= I <= today; J from the class list; code 10 from the KBA list and against P.3). A
   value that fails is not stored: it is listed in `unread` and the registration needs review.
4. The classifier accepts a ZB I only with grid evidence and header evidence, and vetoes what
   it knows the page is not: Teil II (exact "Teil I", never a substring of "Teil II"),
   the certificate of conformity, invoices, and web pages or screenshots showing the form.
"""

from __future__ import annotations

import datetime
import os
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
import pytesseract
from PIL import Image, ImageOps

from registrations import errors
from registrations.errors import ScanRejected
from registrations.geometry import BOXES, HEADER, PX_PER_MM, Straightened, flatten_light, straighten

# Tesseract's OpenMP threads fight over two cores: one thread reads a page 4x faster here
# (0.42 s against 1.73 s for a 12-megapixel scan, measured).
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

OCR_LONG_SIDE = 1700
OCR_TIMEOUT = 30
ELECTRIC = "0004"
GRID_SURE = 0.4  # the form's grid found: a ZB I unless a veto says otherwise
GRID_WEAK = 0.28  # with the header read as well
GRID_ALONE = 0.5  # enough without any text read
MIN_WORDS_READABLE = 12
VIN_MIN_CONFIDENCE = 0.3  # below: S/5, B/8 and 1/L mix-ups that pass every rule (measured)
TEXT_FIELDS = ("P.3", "D.1", "D.3", "A")
CODE_FIELDS = ("E", "B", "J", "10", "I", "2.1")
FIELDS = TEXT_FIELDS + CODE_FIELDS
RETRY = ("E", "B", "J", "10")  # read again when they fail
CODE_CONFIG = "--psm 6 -c tessedit_char_whitelist=ABCDEFGHJKLMNPRSTUVWXYZ0123456789.e"

# KBA fuel codes (field 10) and the words field P.3 prints for them.
ENERGY_WORDS: dict[str, tuple[str, ...]] = {
    "0001": ("BENZIN",),
    "0002": ("DIESEL",),
    "0003": ("VIELSTOFF",),
    "0004": ("ELEKTRO",),
    "0005": ("FLUESSIGGAS", "FLÜSSIGGAS", "LPG"),
    "0006": ("BENZIN", "GAS"),
    "0007": ("BENZIN", "ERDGAS"),
    "0008": ("HYBR", "BENZIN"),
    "0009": ("ERDGAS",),
    "0010": ("HYBR", "DIESEL"),
    "0011": ("WASSERSTOFF",),
    "0012": ("WASSERST", "ELEKTR"),
    "0015": ("BRENNST",),
}
KNOWN_CODES = {f"{n:04d}" for n in range(0, 41)}
VIN_ALPHABET = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"
VIN_WEIGHTS = (8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2)
VIN_VALUES = {
    **{str(d): d for d in range(10)},
    **dict(zip("ABCDEFGH", range(1, 9), strict=True)),
    **dict(zip("JKLMNPR", (1, 2, 3, 4, 5, 7, 9), strict=True)),
    **dict(zip("STUVWXYZ", range(2, 10), strict=True)),
}
# The check digit is mandatory for North America (1-5) and China (L); elsewhere optional.
CHECK_DIGIT_REGIONS = set("12345L")
VIN_RUN = re.compile(r"[A-Z0-9]{17}")
DATE = re.compile(r"(\d{2})\s?[.,]\s?(\d{2})\s?[.,]\s?(\d{4})")
VEHICLE_CLASS = re.compile(r"(M[123]G?|N[123]G?|O[1-4]|L[1-7]E)")
ENERGY_CODE = re.compile(r"(00\d\d)(?!\d)")
PLATE = re.compile(r"^[A-ZÄÖÜ]{1,3}-?\s?[A-Z]{1,2}\s?\d{1,4}[EH]?$")

# Veto words, compared after normalise(): what the page says it is when it is not a ZB I.
VETOES = {
    "teil2": ("fahrzeugbrief", "sicherheitscode"),
    "coc": ("ubereinstimmungsbescheinigung", "bereinstimmungsbescheinigung", "conformity", "certificateof"),
    "invoice": ("rechnung", "mwst", "nettobetrag", "gesamtbetrag", "iban"),
    "webpage": ("http", "www", "impressum", "datenschutz", "weiterlesen", "muster", "wasstehtwo"),
    "tax": ("kraftfahrzeugsteuer", "hauptzollamt", "steuerbescheid"),
    "idcard": ("personalausweis", "identitycard"),
}
TEIL_II = re.compile(r"teil\s*(ii|il|li|ll|11|1l|l1|i1|1i|2)\b", re.IGNORECASE)
TEIL_I = re.compile(r"teil\s*[il1|]\b", re.IGNORECASE)
HEADER_WORDS = ("zulassungsbescheinigung", "bundesrepublik", "deutschland", "europaische", "fahrzeugschein")


@dataclass(frozen=True)
class Reading:
    is_zlb: bool
    readable: bool
    score: int  # evidence items for a ZB I (header words, grid, VIN)
    vin: str | None = None
    first_registration: datetime.date | None = None
    vehicle_class: str | None = None
    energy_code: str | None = None
    is_electric: bool | None = None
    kind: str = "unknown"  # zb1, or what it is not: teil2, coc, invoice, webpage, tax, idcard, other, empty
    grid: float = 0.0
    registration_date: datetime.date | None = None  # field I
    make: str | None = None  # D.1
    model: str | None = None  # D.3
    plate: str | None = None  # A
    fuel: str | None = None  # P.3
    maker_key: str | None = None  # 2.1
    confidence: Mapping[str, float] = field(default_factory=dict)  # per field, 0..1
    unread: tuple[str, ...] = ()  # fields seen but failing validation: stored empty, flagged
    # The located page (None when the form's grid was not found): the redacted display copy
    # is cut along its template boxes (registrations.redaction).
    page: Straightened | None = field(default=None, compare=False, repr=False)

    @property
    def needs_review(self) -> bool:
        """For the back office: a field failed, or it is not an electric vehicle."""
        return bool(self.unread) or self.is_electric is not True


def normalise(text: str) -> str:
    """Lower case, umlauts folded, only letters kept (no digit mending: 'Teil II' must stay)."""
    folded = unicodedata.normalize("NFKD", text.lower()).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z]", "", folded)


# ---------------------------------------------------------------- images for OCR


def value_layer(flat: np.ndarray) -> np.ndarray:
    """The printer's black values on white. The form's green print goes by colour where the
    colour survived (JPEG halves the colour resolution: thin green lines turn grey), and the
    box borders by shape: strokes longer than any character."""
    darkness = 1.0 - flat.mean(axis=2)
    greenness = flat[..., 1] - (flat[..., 0] + flat[..., 2]) / 2
    green = np.clip((greenness - 0.03) / 0.06, 0, 1)
    ink = np.clip(darkness * (1 - green) * 2.6 - 0.35, 0, 1)
    mask = (ink > 0.25).astype(np.uint8) * 255
    length = round(3.6 * PX_PER_MM)
    horizontal = cv2.morphologyEx(
        mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (length, 1))
    )
    vertical = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (1, length)))
    horizontal = cv2.dilate(horizontal, cv2.getStructuringElement(cv2.MORPH_RECT, (1, 3)))
    vertical = cv2.dilate(vertical, cv2.getStructuringElement(cv2.MORPH_RECT, (3, 1)))
    kept = mask.copy()
    kept[(horizontal > 0) | (vertical > 0)] = 0
    # where a border crossed a character, its strokes continue on both sides: close them again
    bridged = cv2.morphologyEx(kept, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (1, 7)))
    bridged = cv2.bitwise_or(
        bridged, cv2.morphologyEx(kept, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (7, 1)))
    )
    removed = ((horizontal > 0) | (vertical > 0)) & (bridged == 0)
    ink[removed] = 0
    return (255 * (1 - ink)).astype(np.uint8)


def print_layer(flat: np.ndarray) -> np.ndarray:
    """All ink on white (for the header, which is printed in green)."""
    darkness = 1.0 - flat.mean(axis=2)
    return (255 * (1 - np.clip(darkness * 2.2 - 0.12, 0, 1))).astype(np.uint8)


# Boxes whose value starts at the box's left: they tell where the printer put the values.
SHIFT_PROBES = ("B", "E", "D.1", "D.2", "D.3", "P.3", "10", "R", "K", "6", "A", "C.1.1", "C.1.2", "I", "2.1")
NEXT_BOX = {"B": "2.1", "2.1": "2.2", "J": "4", "E": "3", "D.1": "2", "P.3": "10", "10": "14.1", "D.3": "5"}


def printer_offset(values: np.ndarray) -> tuple[float, float]:
    """Where the printer's values start relative to their box (mm, median over boxes): the
    whole sheet is shifted the same way, so each field is cut out along with its value."""
    ink = values < 128
    lefts, tops = [], []
    for code in SHIFT_PROBES:
        x, y, w, h = BOXES[code]
        x0, x1 = round((x - 2.5) * PX_PER_MM), round((x + min(w, 14)) * PX_PER_MM)
        y0, y1 = round((y + 0.8) * PX_PER_MM), round((y + h + 2.0) * PX_PER_MM)
        region = ink[max(0, y0) : y1, max(0, x0) : x1]
        if region.size == 0 or region.sum() < 3 * PX_PER_MM:
            continue
        # the value's rows and columns carry most ink: stray code labels and specks do not
        column_ink, row_ink = region.sum(axis=0), region.sum(axis=1)
        columns = np.flatnonzero(column_ink >= max(2, 0.2 * column_ink.max()))
        rows = np.flatnonzero(row_ink >= max(2, 0.25 * row_ink.max()))
        if len(columns) and len(rows):
            lefts.append((max(0, x0) + columns[0]) / PX_PER_MM - x)
            tops.append((max(0, y0) + rows[0]) / PX_PER_MM - y)
    if len(lefts) < 3:
        return 1.8, 3.3
    return float(np.median(lefts)), float(np.median(tops))


def _field_crop(values: np.ndarray, code: str, offset: tuple[float, float]) -> np.ndarray:
    x, y, w, h = BOXES[code]
    dx, dy = offset
    following = NEXT_BOX.get(code)
    right = (BOXES[following][0] if following else x + w) + dx - 0.4
    box = (x + dx - 1.0, y + dy - 0.7, right - (x + dx - 1.0), 4.4)
    crop = _crop(values, box, (0, 0, 0, 0)).copy()
    # what is left of a box border where a value touches it: a column dark from top to bottom
    if crop.size:
        dark = (crop < 128).mean(axis=0)
        beside = np.maximum(np.roll(dark, 4), np.roll(dark, -4))
        crop[:, (dark > 0.7) & (beside < 0.15)] = 255
    return crop


def _crop(layer: np.ndarray, box: tuple[float, float, float, float], margin: tuple[float, ...]) -> np.ndarray:
    x, y, w, h = box
    left, top, right, bottom = margin
    x0, y0 = max(0, round((x - left) * PX_PER_MM)), max(0, round((y + top) * PX_PER_MM))
    x1 = min(layer.shape[1], round((x + w + right) * PX_PER_MM))
    y1 = min(layer.shape[0], round((y + h + bottom) * PX_PER_MM))
    return layer[y0:y1, x0:x1]


GAP = 24


def _strip(crops: list[np.ndarray]) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """The crops stacked with white gaps: one Tesseract run reads them all."""
    width = max(c.shape[1] for c in crops) + 2 * GAP
    rows, spans, y = [np.full((GAP, width), 255, np.uint8)], [], GAP
    for crop in crops:
        row = np.full((crop.shape[0], width), 255, np.uint8)
        row[:, GAP : GAP + crop.shape[1]] = crop
        rows += [row, np.full((GAP, width), 255, np.uint8)]
        spans.append((y, y + crop.shape[0]))
        y += crop.shape[0] + GAP
    return np.vstack(rows), spans


def _ocr_lines(
    image: np.ndarray, spans: list[tuple[int, int]], config: str, lang: str
) -> list[tuple[str, float]]:
    """Text and mean word confidence (0..1) for each span of the strip."""
    try:
        data = pytesseract.image_to_data(
            Image.fromarray(image),
            lang=lang,
            config=config,
            timeout=OCR_TIMEOUT,
            output_type=pytesseract.Output.DICT,
        )
    except (RuntimeError, pytesseract.TesseractError):
        return [("", 0.0) for _ in spans]
    words: list[list[tuple[int, str, float]]] = [[] for _ in spans]
    for text, left, top, height, conf in zip(
        data["text"], data["left"], data["top"], data["height"], data["conf"], strict=True
    ):
        if not str(text).strip():
            continue
        centre = top + height / 2
        for i, (y0, y1) in enumerate(spans):
            if y0 - GAP / 2 <= centre < y1 + GAP / 2:
                words[i].append((left, str(text), max(0.0, float(conf)) / 100))
                break
    lines = []
    for found in words:
        found.sort()
        text = " ".join(w for _, w, _ in found)
        lines.append((text, float(np.mean([c for _, _, c in found])) if found else 0.0))
    return lines


def _ocr_text(image: Image.Image, config: str = "--psm 3") -> str:
    try:
        return str(pytesseract.image_to_string(image, lang="deu", config=config, timeout=OCR_TIMEOUT))
    except (RuntimeError, pytesseract.TesseractError):
        return ""


# ---------------------------------------------------------------- validation


def vin_check_digit(vin: str) -> str:
    total = sum(VIN_VALUES[c] * w for c, w in zip(vin, VIN_WEIGHTS, strict=True))
    return "X" if total % 11 == 10 else str(total % 11)


def vin_valid(vin: str) -> tuple[bool, bool]:
    """(plausible, check digit confirmed). 17 characters of the VIN alphabet (no I, O, Q), a
    WMI whose first character names a region, the check digit where it is mandatory."""
    if len(vin) != 17 or any(c not in VIN_ALPHABET for c in vin):
        return False, False
    # region 0 does not exist; the serial's last four are digits (ISO 3779, makers of 500+
    # vehicles a year: the case for every vehicle class this product registers)
    if vin[0] == "0" or not vin[-4:].isdigit():
        return False, False
    confirmed = vin_check_digit(vin) == vin[8]
    if vin[0] in CHECK_DIGIT_REGIONS and not confirmed:
        return False, False
    return True, confirmed


def _vin_candidates(text: str) -> list[str]:
    flat = re.sub(r"[^A-Z0-9]", "", text.upper())
    return [flat[i : i + 17] for i in range(max(0, len(flat) - 16))] if len(flat) >= 17 else []


def _date(text: str) -> datetime.date | None:
    for day, month, year in DATE.findall(text):
        try:
            return datetime.date(int(year), int(month), int(day))
        except ValueError:
            continue
    return None


def _vehicle_class(text: str) -> str | None:
    upper = text.upper()
    for token in [re.sub(r"[^A-Z0-9]", "", upper), *re.findall(r"[A-Z0-9]+", upper)]:
        match = VEHICLE_CLASS.search(token)
        if match:
            break
    else:
        return None
    value = match.group(1)
    return value[:-1] + "e" if value.startswith("L") else value


def _words(text: str) -> int:
    return len(re.findall(r"[A-Za-zÄÖÜäöüß]{3,}", text))


def _veto(text: str) -> str | None:
    if TEIL_II.search(text):
        return "teil2"
    flat = normalise(text)
    for kind, words in VETOES.items():
        hits = sum(word in flat for word in words)
        if hits >= (1 if kind in ("teil2", "coc", "idcard", "tax") else 2) or (
            kind == "webpage" and "muster" in flat
        ):
            return kind
    return None


# ---------------------------------------------------------------- reading


@dataclass
class _Fields:
    values: dict[str, object] = field(default_factory=dict)
    confidence: dict[str, float] = field(default_factory=dict)
    unread: list[str] = field(default_factory=list)


def _read_fields(lines: dict[str, tuple[str, float]]) -> _Fields:
    out = _Fields()
    today = datetime.datetime.now(tz=datetime.UTC).date()

    # E: the VIN (17 characters of its alphabet, plausible, check digit where mandatory)
    text, conf = lines["E"]
    vin, confirmed = None, False
    for candidate in _vin_candidates(text):
        ok, confirmed = vin_valid(candidate)
        if ok:
            vin = candidate
            break
    if vin is not None and conf < VIN_MIN_CONFIDENCE:  # plausible, but the read was unsure
        vin = None
    if vin is None and text:
        out.unread.append("E")
    if vin:
        out.values["vin"] = vin
        out.confidence["E"] = round(min(1.0, conf + (0.1 if confirmed else 0.0)), 2)

    # B and I: B is the first registration, I this registration; B <= I <= today
    first, this = _date(lines["B"][0]), _date(lines["I"][0])
    if this is not None and not (datetime.date(1950, 1, 1) <= this <= today):
        this = None
        out.unread.append("I")
    if first is not None and (first < datetime.date(1950, 1, 1) or first > today or (this and first > this)):
        first = None
        out.unread.append("B")
    elif first is None and lines["B"][0]:
        out.unread.append("B")
    if first:
        out.values["first_registration"] = first
        out.confidence["B"] = round(lines["B"][1] * (1.0 if this else 0.85), 2)
    if this:
        out.values["registration_date"] = this
        out.confidence["I"] = round(lines["I"][1], 2)

    # J: the vehicle class from the EU list, L-classes included
    klass = _vehicle_class(lines["J"][0])
    if klass:
        out.values["vehicle_class"] = klass
        out.confidence["J"] = round(lines["J"][1], 2)
    elif lines["J"][0]:
        out.unread.append("J")

    # 10 and P.3: a known code, and P.3 must not contradict it
    fuel = re.sub(r"[^A-ZÄÖÜ./ ]", "", lines["P.3"][0].upper()).strip() or None
    match = ENERGY_CODE.search(lines["10"][0])
    code = match.group(1) if match else None
    if code and code in KNOWN_CODES:
        words = ENERGY_WORDS.get(code)
        flat_fuel = (fuel or "").replace(" ", "")
        if fuel and words and not all(w in flat_fuel for w in words):
            other = [c for c, ws in ENERGY_WORDS.items() if all(w in flat_fuel for w in ws)]
            if other:  # P.3 names another fuel: the code is not trusted
                code = None
                out.unread.append("10")
        if code:
            agree = bool(fuel and words and all(w in flat_fuel for w in words))
            out.values["energy_code"] = code
            out.confidence["10"] = round(lines["10"][1] * (1.0 if agree else 0.8), 2)
    elif lines["10"][0] or fuel:
        out.unread.append("10")
    if fuel:
        out.values["fuel"] = fuel
        out.confidence["P.3"] = round(lines["P.3"][1], 2)

    # D.1, D.3, A, 2.1: stored as read, with their confidence
    for key, name in (("D.1", "make"), ("D.3", "model")):
        value = re.sub(r"[^A-Z0-9ÄÖÜ .()/-]", "", lines[key][0].upper()).strip()
        if value:
            out.values[name] = value
            out.confidence[key] = round(lines[key][1], 2)
    plate = re.sub(r"[^A-ZÄÖÜ0-9 -]", "", lines["A"][0].upper()).strip()
    if plate and PLATE.match(plate):
        out.values["plate"] = plate
        out.confidence["A"] = round(lines["A"][1], 2)
    elif plate:
        out.unread.append("A")
    key = re.sub(r"\D", "", lines["2.1"][0])
    if len(key) == 4:
        out.values["maker_key"] = key
        out.confidence["2.1"] = round(lines["2.1"][1], 2)
    return out


def _clean_gray(image: Image.Image, long_side: int) -> Image.Image:
    """Grey, shadows and light gradients divided out, light security patterns (guilloche)
    dropped: Tesseract's own binarisation fails on both."""
    gray = ImageOps.grayscale(image)
    if max(gray.size) > long_side:
        gray.thumbnail((long_side, long_side), Image.Resampling.LANCZOS)
    pixels = np.asarray(gray, np.float32)
    small = cv2.resize(
        pixels, (max(1, pixels.shape[1] // 8), max(1, pixels.shape[0] // 8)), interpolation=cv2.INTER_AREA
    )
    paper = cv2.morphologyEx(small, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (7, 7)))
    paper = cv2.resize(cv2.GaussianBlur(paper, (0, 0), 3), (pixels.shape[1], pixels.shape[0]))
    darkness = 1.0 - np.clip(pixels / np.maximum(paper, 1.0), 0, 1)
    return Image.fromarray((255 * (1 - np.clip(darkness * 2.2 - 0.25, 0, 1))).astype(np.uint8))


def _outside_text(image: Image.Image, turn: int, quad: np.ndarray | None) -> str:
    """The text around the document, the document's way up: a screenshot or web page showing
    the form has words around it, a photo of the document on a table does not. The document
    itself is blanked out first, which leaves Tesseract little to do on an ordinary photo."""
    gray = _clean_gray(image, 1400)
    if quad is not None:
        factor = gray.width / image.width
        pixels = np.array(gray)
        centre = quad.mean(axis=0)
        grown = (centre + (quad - centre) * 1.03) * factor  # the paper's edge and shadow too
        cv2.fillPoly(pixels, [np.round(grown).astype(np.int32)], 255)
        gray = Image.fromarray(pixels)
    return _ocr_text(gray.rotate(turn, expand=True) if turn else gray, "--psm 11")


def _page_text(image: Image.Image) -> str:
    gray = _clean_gray(image, OCR_LONG_SIDE)
    text = _ocr_text(gray)
    if _words(text) < MIN_WORDS_READABLE:  # turned in the pixels: try the other turns
        for angle in (90, 270, 180):
            turned = _ocr_text(gray.rotate(angle, expand=True))
            if _words(turned) > _words(text):
                text = turned
            if _words(text) >= MIN_WORDS_READABLE:
                break
    return text


def _refused(
    image: Image.Image, grid: float, score: int, kind: str | None, page: Straightened | None = None
) -> Reading:
    """Not a ZB I: the page's own text says what it is, and whether it was readable at all
    (IMGC002) or too little to tell (IMGC003)."""
    text = _page_text(image)
    kind = kind or _veto(text) or ("other" if _words(text) >= MIN_WORDS_READABLE else "empty")
    return Reading(
        is_zlb=False, readable=kind != "empty", score=score, kind=kind, grid=round(grid, 3), page=page
    )


def document_read(image: Image.Image) -> Reading:
    page = straighten(image)
    if page.grid < GRID_WEAK:  # not the form's grid of boxes: no field to read
        return _refused(image, page.grid, 0, None)
    flat = flatten_light(page.image)
    values = value_layer(flat)
    offset = printer_offset(values)
    crops = {code: _field_crop(values, code, offset) for code in FIELDS}
    # words in German (the header, P.3, make, model, plate); codes with the English model and
    # the characters they can hold, which reads O/0, I/1, S/5 and M1 far better (measured)
    strip, spans = _strip([_crop(print_layer(flat), HEADER, (0, 0, 0, 0))] + [crops[c] for c in TEXT_FIELDS])
    read = _ocr_lines(strip, spans, "--psm 6", "deu")
    header = read[0][0]
    lines = dict(zip(TEXT_FIELDS, read[1:], strict=True))
    # the code crops twice the size: reads S/5 and 0/D better (measured: 6 VINs of 9 right
    # against 4 at the page's scale)
    large = {c: cv2.resize(crops[c], None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC) for c in CODE_FIELDS}
    strip, spans = _strip([large[c] for c in CODE_FIELDS])
    lines.update(zip(CODE_FIELDS, _ocr_lines(strip, spans, CODE_CONFIG, "eng"), strict=True))

    flat_header = normalise(header)
    header_hits = sum(word in flat_header for word in HEADER_WORDS)
    teil_i = bool(TEIL_I.search(header)) and not TEIL_II.search(header)
    fields = _read_fields(lines)
    retry = [code for code in RETRY if code in fields.unread or not lines[code][0]]
    if retry:
        # a second opinion for the fields that failed: the German model without a whitelist
        strip, spans = _strip([large[code] for code in retry])
        for code, (text, conf) in zip(retry, _ocr_lines(strip, spans, "--psm 6", "deu"), strict=True):
            lines[code] = (text, conf * 0.9)
        fields = _read_fields(lines)
    has_vin = "vin" in fields.values
    score = header_hits + int(teil_i) + int(has_vin) + (2 if page.grid >= GRID_SURE else 0)
    # The grid of boxes on pale green paper is the form's own signature; a weaker match needs
    # the header read as well, a strong one stands alone (a poor photo: accepted, fields flagged)
    structure = page.grid >= GRID_SURE or (page.grid >= GRID_WEAK and (header_hits >= 2 or teil_i))
    evidence = header_hits >= 1 or teil_i or has_vin or page.grid >= GRID_ALONE
    kind = _veto(header)
    if structure and evidence and kind is None and page.found and page.area < 0.5:
        kind = _veto(_outside_text(image, page.turn, page.quad))
    is_zlb = structure and evidence and kind is None
    if not is_zlb:
        return _refused(image, page.grid, score, kind, page)
    v: dict[str, Any] = fields.values
    energy = v.get("energy_code")
    return Reading(
        is_zlb=True,
        readable=True,
        score=score,
        kind="zb1",
        grid=round(page.grid, 3),
        vin=v.get("vin"),
        first_registration=v.get("first_registration"),
        registration_date=v.get("registration_date"),
        vehicle_class=v.get("vehicle_class"),
        energy_code=energy,
        is_electric=None if energy is None else energy == ELECTRIC,
        fuel=v.get("fuel"),
        make=v.get("make"),
        model=v.get("model"),
        plate=v.get("plate"),
        maker_key=v.get("maker_key"),
        confidence=fields.confidence,
        unread=tuple(fields.unread),
        page=page,
    )


def document_check(reading: Reading) -> None:
    """IMGC002 for a readable page that is no ZB I, IMGC003 when there is too little to tell."""
    if reading.is_zlb:
        return
    raise ScanRejected(errors.NOT_A_ZLB if reading.readable else errors.NOT_CLASSIFIABLE)
