"""The document reader for the Zulassungsbescheinigung Teil I (ZB I), one module per stage:

1. find.py       find the paper, straighten it, register the form's ruling (the real layout)
2. recognise.py  is it a ZB I: ruling, header words, label codes; vetoes for what it is not
3. locate.py     each field's value cut out by its label's place and the printer's own ink
4. read.py       Tesseract (and RapidOCR where installed) with the field's alphabet;
   glyphs.py     the VIN and field 3 cut into character cells, each classified by a small
                 network trained on the tuned printer fonts (tools/glyphs_train.py);
   lines.py      the values of a fixed alphabet read whole by a small line network (CTC)
                 trained the same way (tools/lines_train.py), a third engine
5. validate.py   each field's form; the VIN against field 3 (registrations.vin)
6. decide.py     the value and the rule that decided it (decided_by), or unread for review

layout.py is the form's drawing, thresholds.py every number with its reason, reading.py the
result. `document_read` runs the stages, cheapest first: a page without writing, without the
ruled panels or with a veto is refused before any field is read.
"""

from __future__ import annotations

import datetime
from dataclasses import replace
from typing import Any

import cv2
import numpy as np
from django.utils import timezone
from PIL import Image

from registrations import errors
from registrations import vin as vins
from registrations.errors import ScanRejected

from . import decide, find, glyphs, layout, locate, read, recognise, validate
from .find import Straightened, flatten_light, straighten
from .reading import Reading
from .thresholds import (
    ANCHORS,
    BLURRED,
    EDGE_MM,
    EDGE_REACH_MM,
    GRID_NONE,
    LEGIBLE,
    MIN_MARKS,
    MIN_WORDS_READABLE,
    ROW_SHIFT_FITS,
    ROW_SHIFTS,
    SIDEWAYS_CLEARER,
    SIDEWAYS_MIN_MM,
    SIDEWAYS_REACH_MM,
    SIDEWAYS_ROWS,
)
from .validate import DATE, ELECTRIC, KNOWN_CODES, PLATE, VEHICLE_CLASS, vin_valid

__all__ = [
    "DATE",
    "ELECTRIC",
    "KNOWN_CODES",
    "PLATE",
    "VEHICLE_CLASS",
    "Reading",
    "Straightened",
    "document_check",
    "document_read",
    "vin_valid",
]

# the fields every ZB I has a value in: one that is not read at all is flagged, not passed over
PRINTED = ("E", "B", "J", "10")
# the fields the quota and the authority's package need: one left unread sends the registration
# to review; the others (make, model, plate, names) simply stay empty where a read was unsure
REVIEWED = ("E", "3", "B", "I", "J", "10")
MODEL_FIELDS = {
    "E": "vin",
    "B": "first_registration",
    "I": "registration_date",
    "J": "vehicle_class",
    "10": "energy_code",
    "P.3": "fuel",
    "D.1": "make",
    "D.3": "model",
    "A": "plate",
    "2.1": "maker_key",
    "3": "check_digit",
    "C1.1": "holder_name",
    "C1.2": "holder_first_names",
}


def _refused(
    image: Image.Image, grid: float, score: int, kind: str | None, page: Straightened | None
) -> Reading:
    """Not a ZB I: what it is (a veto said so, or the page's own text says it), and whether it
    was readable at all (IMGC002) or too little to tell (IMGC003)."""
    if kind is None:
        text = recognise.page_text(image)
        kind = recognise.veto(text) or ("other" if recognise.words(text) >= MIN_WORDS_READABLE else "empty")
    return Reading(
        is_zlb=False, readable=kind != "empty", score=score, kind=kind, grid=round(grid, 3), page=page
    )


def _boxes(
    page: Straightened, image: Image.Image, codes: Any
) -> dict[str, tuple[float, float, float, float]]:
    """Each field's value box (a little wider than the drawing's, for the printer's offset) in
    shares of the picture: the review shows that crop beside the value."""
    boxes = {}
    for code in codes:
        x0, y0, x1, y1 = layout.value_box(code)
        corners = np.array(
            [[x0 - 0.5, y0 - 1.0], [x1 + 0.5, y0 - 1.0], [x1 + 0.5, y1 + 1.5], [x0 - 0.5, y1 + 1.5]]
        )
        points = page.template_to_picture(corners)
        xs, ys = points[:, 0] / image.width, points[:, 1] / image.height
        boxes[code] = tuple(round(float(v), 4) for v in (xs.min(), ys.min(), xs.max(), ys.max()))
    return boxes  # type: ignore[return-value]


def _fields(flat: Any, today: datetime.date, inside: Any = None) -> tuple[decide.Decided, float, int]:
    """Locate, read and decide every field; the values' legibility; value patterns seen.
    `inside`: the page's pixels that lay in the picture (_inside); a value that reaches the
    picture's edge is left for review (`cut_off`)."""
    ink = locate.ink_layer(flat)
    # each field's marks cut once: the printer's offset is measured on the probes' marks, then
    # every field's value is taken from its marks at that offset
    cut = {code: locate.marks(ink, code) for code in read.FIELDS}
    offset = locate.printer_offset(ink, cut)
    out = decide.Decided()
    located: dict[str, locate.Located] = {}
    for code in read.FIELDS:
        marks = cut[code]
        # the holder panel's values too: the printer prints the whole face in one pass (with 0 there,
        # the issuing town above the date was taken for I on 4 of 165 scans, PDFs and phone photos)
        found = locate.line(marks, offset) if marks is not None else None
        if found is not None:
            located[code] = found
    cut_off = [
        code for code, found in located.items() if inside is not None and _at_edge(found.box, inside, ink)
    ]
    for code in cut_off:
        del located[code]

    def first(code: str) -> list[read.Read]:
        if code not in located:
            return []
        reads = read.first_read(code, located[code].image)
        # the VIN and field 3 read cell by cell too: the printer fonts' own recogniser
        glyph = glyphs.glyph_read(code, located[code].image) if code in glyphs.FIELDS else None
        return reads + ([glyph] if glyph is not None else [])

    def more(code: str) -> decide.Reader:
        if code not in located:
            return lambda stage: []
        found = located[code]
        return lambda stage: read.more_reads(code, found.image, stage, found.plain)

    field3, seen3, only3 = None, frozenset[str](), dict[str, frozenset[str]]()
    if "3" in located:
        reads3 = first("3") + more("3")(1)
        field3 = decide.check_digit(reads3)
        if field3 is None:
            reads3 += more("3")(read.OTHER_SCALE) + more("3")(read.SECOND)
            field3 = decide.check_digit(reads3)
        seen3 = frozenset(d for r in reads3 for d in validate.check_digits_seen(r.text))
        # per own recogniser, the digits only its reads showed
        only3 = {
            engine: seen3
            - {d for r in reads3 if r.engine != engine for d in validate.check_digits_seen(r.text)}
            for engine in decide.OWN_RECOGNISERS.values()
        }
    decide.vin_decide(
        first("E"),
        more("E"),
        field3,
        out,
        unsure_field3="3" in located and field3 is None,
        field3_seen=seen3,
        field3_only=only3,
    )
    if "E" in out.values and "3" in located:
        # field 3 is stored as the VIN's own check digit: the VIN was read against it (or, where
        # its reads disagreed, it is the digit among them the VIN confirms)
        out.take("3", vins.kba_check_digit(out.values["E"]), "field3", out.confidence["E"])
    elif "3" in located:
        # a check digit no VIN confirms is left for review: a single character is the engines'
        # weakest read, and a wrong one would be sent to the authority
        out.leave("3", "unconfirmed" if field3 is not None else "unsure")
    fuel = decide.known_name("P.3", first("P.3"), more("P.3"), validate.fuel, out)
    fuel_code = validate.fuel_code(fuel) if fuel else None
    decide.agreed(
        "10", first("10"), more("10"), validate.energy_code, out,
        confirm=lambda code: fuel_code is not None and code == fuel_code,
    )  # fmt: skip
    for code in ("B", "I"):
        decide.agreed(
            code,
            first(code),
            more(code),
            lambda t: validate.date(t, today),
            out,
            as_printed=lambda t: validate.date(t, today, mend=False),
        )
    decide.dates_in_order(out, today)
    bodies: list[tuple[str, ...] | None] = []

    def body_allows(value: str) -> bool:
        # field 5 read once, and only for a J its own reads did not settle
        if not bodies:
            reads5 = first("5") + more("5")(read.OTHER_MODEL)
            bodies.append(validate.body_classes([r.text for r in reads5]))
        return bodies[0] is not None and value in bodies[0]

    decide.agreed("J", first("J"), more("J"), validate.vehicle_class, out, confirm_last=body_allows)
    decide.agreed("2.1", first("2.1"), more("2.1"), validate.maker_key, out)
    decide.agreed("A", first("A"), more("A"), validate.plate, out)
    decide.known_name("D.1", first("D.1"), more("D.1"), validate.make, out)
    anchored = bool(out.values.keys() & ANCHORS)
    for code, parse in (
        ("D.3", validate.model),
        ("C1.1", validate.name),
        ("C1.2", validate.name),
    ):
        if anchored:
            decide.text_field(code, first(code), more(code), parse, out)
        elif code in located:
            # no value of a fixed form (a VIN, a date, a code, a class) came out where the
            # drawing puts it: the registration is not known to be right, and a free text
            # checked by nothing but its reads is as likely another row's (thresholds.ANCHORS)
            out.leave(code, "unanchored")
    for code in cut_off:
        # the photo's frame cut the value: what is left of it is no reading of it
        out.leave(code, "cut_off")
    for code in PRINTED:
        if code not in out.values and code not in out.unread:
            out.leave(code, "not_found")
    # value patterns of the form: a VIN beside E, a date beside B, a known code beside 10
    patterns = sum(code in out.values for code in ("E", "B", "10"))
    return out, locate.legibility(list(located.values())), patterns


def _inside(page: Straightened, picture: tuple[int, int]) -> Any:
    """The page's pixels that lay in the picture (1) or beyond its edge (0): where the photo's
    frame cut the form, straighten fills the page by repeating the picture's last pixels."""
    if page.to_page is None:
        return None
    width, height = picture
    return cv2.warpPerspective(
        np.ones((height, width), np.uint8),
        page.to_page,
        (find.WIDTH, find.HEIGHT),
        flags=cv2.INTER_NEAREST,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=0,
    )


def _at_edge(box: tuple[int, int, int, int], inside: Any, ink: Any) -> bool:
    """Whether the printer's ink on a value's line runs into the picture's edge (within
    EDGE_MM of it, up to EDGE_REACH_MM either side of the value's characters): a poor photo
    cut the form at its left edge, and the holder's names were stored as "artmann" and "ix"
    (Hartmann, Felix), what the picture still showed of them."""
    reach = round(EDGE_REACH_MM * find.PX_PER_MM)
    x0, y0, x1, y1 = box
    window = (slice(max(0, y0), y1), slice(max(0, x0 - reach), x1 + reach))
    beyond = inside[window] == 0
    if not beyond.any():
        return False
    strip = round(EDGE_MM * find.PX_PER_MM) * 2 + 1
    near = cv2.dilate(beyond.astype(np.uint8), np.ones((1, strip), np.uint8)).astype(bool)
    return bool((near & ~beyond & (ink[window] > 0.5)).any())


def _looks_right(flat: Any, today: datetime.date) -> int:
    """How many of E, B and 10 show their value's form on one cheap read each (a VIN's length,
    a date, an energy code): a page registered a row off shows another row's values there."""
    ink = locate.ink_layer(flat)
    forms = {
        "E": lambda text: abs(len(validate.vin_text(text)) - vins.LENGTH) <= 1,
        "B": lambda text: validate.date(text, today) is not None,
        "10": lambda text: validate.energy_code(text) is not None,
    }
    count = 0
    for code, form in forms.items():
        found = locate.value(ink, code)
        if found is not None and form(read.tesseract(code, found.image, read.SCALES[0]).text):
            count += 1
    return count


def _rows_moved(page: Straightened, flat: Any, rows: int, across_mm: float = 0.0) -> Straightened:
    """The page (and its flattened copy `flat`) moved down by `rows` of the data panels' pitch
    (up where negative) and right by `across_mm`: the form's rows repeat every 4.09 mm, and a
    registration one row off reads every value from its neighbour's row."""
    dy = rows * layout.ROW_PITCH * find.PX_PER_MM
    move = np.array([[1.0, 0, across_mm * find.PX_PER_MM], [0, 1.0, dy], [0, 0, 1.0]])
    size = (flat.shape[1], flat.shape[0])

    def moved(picture: Any) -> Any:
        return cv2.warpAffine(
            picture, move[:2], size, flags=cv2.INTER_NEAREST, borderMode=cv2.BORDER_REPLICATE
        )

    to_page = move @ page.to_page if page.to_page is not None else None
    return replace(page, image=moved(page.image), flat=moved(flat), to_page=to_page)


def _sideways(flat: Any) -> float:
    """How far (mm) the middle panel's two long upright lines (its left edge and its label
    column's border, 2.8 mm apart, down its first SIDEWAYS_ROWS rows) lie right of where the
    registration put them; 0 where they are there or nowhere clearly elsewhere. A phone photo
    that cut the form at the picture's edge was registered 4.7 mm off: every value lost its
    first character."""
    lines = find.print_lines(flat, find.PX_PER_MM).astype(np.float32) / 255
    top = round(layout.ROW_TOP * find.PX_PER_MM)
    bottom = round((layout.ROW_TOP + SIDEWAYS_ROWS * layout.ROW_PITCH) * find.PX_PER_MM)
    profile = lines[top:bottom].mean(axis=0)
    edges = (layout.MIDDLE[0], layout.MIDDLE[0] + layout.MIDDLE_LABEL)

    def score(dx: float) -> float:
        return float(sum(profile[round((x + dx) * find.PX_PER_MM)] for x in edges))

    steps = np.arange(-SIDEWAYS_REACH_MM, SIDEWAYS_REACH_MM + 0.05, 0.1)
    scores = [score(float(dx)) for dx in steps]
    best = int(np.argmax(scores))
    dx = float(steps[best])
    if abs(dx) < SIDEWAYS_MIN_MM or scores[best] < SIDEWAYS_CLEARER * score(0.0):
        return 0.0
    return dx


def _fields_by_rows(
    page: Straightened, flat: Any, today: datetime.date, picture: tuple[int, int]
) -> tuple[Straightened, decide.Decided, float, int]:
    """The fields read where the registration put the form; where none of E, B and 10 came out,
    the page is tried a row up and down (ROW_SHIFTS) and read there when clearly more of them
    show their value's form."""
    out, legible, patterns = _fields(flat, today, _inside(page, picture))
    if patterns or page.to_page is None:
        return page, out, legible, patterns
    here = _looks_right(flat, today)
    best: tuple[int, Straightened] | None = None
    for rows in ROW_SHIFTS:
        shifted = _rows_moved(page, flat, rows)
        fits = _looks_right(shifted.flat, today)
        if fits >= ROW_SHIFT_FITS and fits > here and (best is None or fits > best[0]):
            best = (fits, shifted)
    if best is None:
        return page, out, legible, patterns
    shifted = best[1]
    moved_out, moved_legible, moved_patterns = _fields(shifted.flat, today, _inside(shifted, picture))
    if moved_patterns > patterns:
        return shifted, moved_out, moved_legible, moved_patterns
    return page, out, legible, patterns


def document_read(image: Image.Image) -> Reading:
    """The page found and straightened, then decided on what costs least first."""
    if recognise.marks(image) < MIN_MARKS:
        # blank, dark, or a photo without writing: IMGC003 before any page search or OCR
        return Reading(is_zlb=False, readable=False, score=0, kind="empty")
    page = straighten(image)
    if page.grid < GRID_NONE:  # no ruled panel: nothing of the form to read
        if recognise.paper_like(page):
            # the form's pale green paper in its proportions, its ruling past finding: a photo
            # too blurred for a person to read as well (IMGC007: take a sharper one)
            return Reading(is_zlb=False, readable=True, score=1, kind="blurred", grid=round(page.grid, 3))
        return _refused(image, page.grid, 0, None, None)
    flat = page.flat if page.flat is not None else flatten_light(page.image)
    seen = recognise.evidence(page, flat)
    kind = seen.veto
    if seen.possible and kind is None and page.found and page.area < 0.5:
        kind = recognise.veto(recognise.outside_text(image, page.quad))
    if not seen.possible or kind is not None:
        return _refused(image, page.grid, seen.score, kind, page)
    if page.to_page is not None:
        # a page registered sideways off is moved onto the middle panel's label borders first
        across = _sideways(flat)
        if across:
            page = _rows_moved(page, flat, 0, -across)
            flat = page.flat if page.flat is not None else flat
    page, out, legible, patterns = _fields_by_rows(page, flat, timezone.localdate(), image.size)
    score = seen.score + patterns
    if not out.values.keys() & {"E", "B", "10"} and (
        legible < LEGIBLE or recognise.sharpness(page) < BLURRED
    ):
        # the form's ruling, but its values are past reading: a sharper photo, not the back office
        return Reading(
            is_zlb=False, readable=True, score=score, kind="blurred", grid=round(page.grid, 3), page=page
        )
    # Otherwise a ZB I, however little was read: the ruling is the form's (no wrong document
    # of the bench reaches GRID_WEAK without a veto), so it goes to review, never IMGC002.
    v: dict[str, Any] = {MODEL_FIELDS[code]: value for code, value in out.values.items()}
    energy = v.get("energy_code")
    if energy is None and v.get("fuel") and validate.fuel_code(v["fuel"]) is not None:
        is_electric: bool | None = validate.fuel_code(v["fuel"]) == ELECTRIC
    else:
        is_electric = None if energy is None else energy == ELECTRIC
    return Reading(
        is_zlb=True,
        readable=True,
        score=score,
        kind="zb1",
        grid=round(page.grid, 3),
        is_electric=is_electric,
        confidence=out.confidence,
        decided_by=out.decided_by,
        boxes=_boxes(page, image, read.FIELDS) if page.to_page is not None else {},
        unread=tuple(code for code in out.unread if code in REVIEWED),
        page=page,
        **v,
    )


def document_check(reading: Reading) -> None:
    """IMGC002 for a readable page that is no ZB I, IMGC003 when there is too little to tell,
    IMGC007 for a ZB I whose values are too blurred or faint to read."""
    if reading.is_zlb:
        return
    if reading.kind == "blurred":
        raise ScanRejected(errors.ILLEGIBLE)
    raise ScanRejected(errors.NOT_A_ZLB if reading.readable else errors.NOT_CLASSIFIABLE)
