"""Locate each field's value on the straightened page: from its label's place in the ruling
(layout.py, the page registered to it by find.py) to the printer's own characters.

The printer's values are separated from the form's green pre-print by colour (ink layer), then
cut out as connected characters: in the field's row, widened by the printer's offset, the line
of character-sized marks nearest to where the printer put this document's values (measured
once per page on the fields every form has) is the value; the rest of the ruling, a
neighbour's value reaching in and specks are left out. A form printed a few millimetres off
the drawing, or a printer that put every value half a row low, is read all the same.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from . import layout
from .find import PX_PER_MM
from .thresholds import (
    CHAR_HEIGHT_MM,
    INK,
    LINE_DARKER,
    LINE_THICKER,
    PLAIN_MARGIN_MM,
    SEARCH_ABOVE_MM,
    SEARCH_BELOW_MM,
)

CHAR = CHAR_HEIGHT_MM * PX_PER_MM
# fields every form has a value in, at the left of their row: they tell the printer's offset
OFFSET_PROBES = ("E", "B", "D.1", "D.3", "P.3", "10", "J", "2", "V.9", "14")


def ink_layer(flat: np.ndarray) -> np.ndarray:
    """How much of each pixel is the printer's ink (0..1): dark, and not the form's green
    (where JPEG kept the colour; a thin green line that turned grey is left to locate's shapes)."""
    pixels = np.asarray(flat, np.float32)
    darkness = 1.0 - cv2.transform(pixels, np.array([[1 / 3, 1 / 3, 1 / 3]], np.float32))
    greenness = cv2.transform(pixels, np.array([[-0.5, 1.0, -0.5]], np.float32))
    green = np.clip((greenness - 0.03) / 0.06, 0, 1)
    return np.clip(darkness * (1 - green) * 2.6 - 0.35, 0, 1)


def print_layer(flat: np.ndarray) -> np.ndarray:
    """All ink on white, green included (the header and the label codes are printed green)."""
    darkness = 1.0 - flat.mean(axis=2)
    return (255 * (1 - np.clip(darkness * 2.2 - 0.12, 0, 1))).astype(np.uint8)


@dataclass(frozen=True)
class Located:
    code: str
    image: np.ndarray  # the value's characters, dark on white, with a white margin
    box: tuple[int, int, int, int]  # page pixels (x0, y0, x1, y1) of the characters
    centre_offset: float  # mm: the value's centre below the row's centre
    strength: float  # the characters' mean ink (0..1): how legible they are
    # the value's box in the ink layer as it is, dark on white, PLAIN_MARGIN_MM around: for the
    # second engine, which reads whole blurred strokes better than their cut-out marks
    plain: np.ndarray


def _search_box(code: str, dy: float) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = layout.value_box(code)
    return (
        max(0, round((x0 - SEARCH_LEFT_MM) * PX_PER_MM)),
        max(0, round((y0 + dy - SEARCH_ABOVE_MM) * PX_PER_MM)),
        round((x1 + 0.2) * PX_PER_MM),
        round((y1 + dy + SEARCH_BELOW_MM) * PX_PER_MM),
    )


def _rules_near(code: str, box: tuple[int, int, int, int]) -> list[float]:
    """x (in the search box's pixels) of the ruling's vertical lines inside the box: a mark on
    one of them is the ruling, not a character."""
    _, vertical = layout.ruled_lines()
    x0, y0, x1, y1 = box
    found = []
    for x, top, bottom in vertical:
        px = x * PX_PER_MM - x0
        if -3 <= px <= x1 - x0 + 3 and top * PX_PER_MM < y1 and bottom * PX_PER_MM > y0:
            found.append(px)
    return found


# a value is looked for from this far left of its label cell's edge: a printer shifted left puts
# the first character on the border (the label's small code and the border itself stay out)
SEARCH_LEFT_MM = 1.0
RULE_LENGTH = round(4.0 * PX_PER_MM)  # a stroke this long is ruling: no character is as wide
# a value's character is at least this share of the printer's capital height: the label codes
# (1.2 mm, printed in green that a photo may turn grey) stay out
MIN_CHAR = 0.6
# a mark taller than this share of the capital height is no character (marks() keeps up to 1.6):
# where it is two lines touching, it is cut at its thinnest row if that row holds at most
# TOUCH_WIDTH pixels of it (a descender's tip on a digit's top: a few pixels on a scan, 7-9 on a
# phone photo's blurred strokes, where 6 px left the issuing town's "g" on the date's "2" or "0"
# and the date was read as "14.06" or "28.6.2 15": with 0.4 of the capital height and the date's
# wider search box (layout.HOLDER_FIELDS, without which one date cut at its box's edge was stored
# wrong), I on the whole bench set's phone photos 81.8 -> 94.5 %, none wrong; a character's own
# stroke across is wider)
TALL_MARK = 1.6
TOUCH_WIDTH = round(0.4 * CHAR)
RULE_NEAR = 12  # px: a thin upright mark this near a label cell's border (a form drawn 1 mm off) is it
STROKE_RUN = 6  # px: a run across a line this long is a character's stroke however thick the line
BAND_SIGMA = 0.9 * PX_PER_MM  # how far a line of characters may sit from where it is expected
# fields whose value is one token (no space, no umlaut): cut to their widest run of characters
ONE_TOKEN = frozenset({"E", "3", "B", "I", "J", "10", "2.1"})
RUN_GAP = 1.2  # a gap wider than this share of the capital height ends a run (a space is about 0.9)


def _runs(mask: np.ndarray) -> np.ndarray:
    """Per pixel of the mask, the length of the vertical run of ink it lies in (0 off ink)."""
    down = np.zeros(mask.shape, np.int32)
    up = np.zeros(mask.shape, np.int32)
    on = mask > 0
    for y in range(mask.shape[0]):
        down[y] = (down[y - 1] + 1) * on[y] if y else on[y]
    for y in range(mask.shape[0] - 1, -1, -1):
        up[y] = (up[y + 1] + 1) * on[y] if y < mask.shape[0] - 1 else on[y]
    return np.where(on, down + up - 1, 0)


def _line_pixels(line: np.ndarray, runs: np.ndarray, region: np.ndarray | None) -> np.ndarray:
    """Of a ruled line's pixels (`line`, its runs across the line in `runs`), those that are
    the line alone: a character printed on the line (its base on the lower ruling, a stroke
    through it) makes the ink there thicker than the line (a run longer than the line's own
    thickness, measured on its bare length, or STROKE_RUN at least) or darker than the line's
    ink (the printer's ink over the form's print): those pixels are the character's and stay."""
    on = line > 0
    if not on.any():
        return on
    thickness = float(np.median(runs[on]))
    alone = on & (runs <= thickness + LINE_THICKER) & (runs < STROKE_RUN)
    if region is not None:
        level = float(np.median(region[on]))
        if level < 1.0 - LINE_DARKER:
            alone &= region <= level + LINE_DARKER
    return alone


def _without_rules(mask: np.ndarray, region: np.ndarray | None = None) -> np.ndarray:
    """The mask without the ruling's long thin strokes (a value printed on a line would
    otherwise be one shape with it), keeping the characters' own ink on them (`_line_pixels`;
    `region`: the mask's ink, 0..1, for the darker-than-the-line test)."""
    horizontal = cv2.morphologyEx(
        mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (RULE_LENGTH, 1))
    )
    vertical = cv2.morphologyEx(
        mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (1, RULE_LENGTH))
    )
    # runs measured without the other direction's lines: where two lines cross, neither
    # counts as a stroke running on across the other (the crossing would stay, and join a
    # character printed over it to the ruling)
    ruling = _line_pixels(horizontal, _runs(mask & (vertical == 0)), region)
    ruling |= _line_pixels(
        vertical.T, _runs((mask & (horizontal == 0)).T), None if region is None else region.T
    ).T
    return np.where(ruling, 0, mask).astype(np.uint8)


@dataclass(frozen=True)
class Marks:
    """A field's search box cut into its marks (connected shapes of ink, the ruling taken out):
    the characters and the small marks (dots, hyphens) among them. Cut once per field and page;
    which line of them is the value depends on the page's printer offset (`line`)."""

    code: str
    box: tuple[int, int, int, int]  # the search box in page pixels
    region: np.ndarray  # the box's ink (0..1)
    labels: np.ndarray
    stats: np.ndarray
    centres: np.ndarray
    chars: tuple[int, ...]
    small: tuple[int, ...]


def _lines_apart(mask: np.ndarray, labels: np.ndarray, stats: np.ndarray) -> bool:
    """Two lines of text that touch (the issuing town's "p" or "g" reaching down into the date
    under it) are one mark too tall for a character: it is cut where the other characters of
    one of the lines begin or end, at the thinnest row there (the mask changed in place). True
    where a mark was cut."""
    heights = stats[1:, 3]
    sized = np.nonzero((heights >= MIN_CHAR * CHAR) & (heights <= TALL_MARK * CHAR))[0] + 1
    edges = np.concatenate([stats[sized, 1], stats[sized, 1] + stats[sized, 3]])
    cut = False
    for i in range(1, stats.shape[0]):
        x, y, w, h, _ = stats[i]
        if not (TALL_MARK * CHAR < h <= 2.6 * CHAR):
            continue
        inside = [int(e) for e in edges if y + 0.2 * CHAR < e < y + h - 0.2 * CHAR]
        if not inside:
            continue
        # the line edge most characters share
        edge = max(inside, key=lambda e: int(np.sum(np.abs(edges - e) <= 2)))
        if int(np.sum(np.abs(edges - edge) <= 2)) < 2:
            continue
        own = labels[y : y + h, x : x + w] == i
        rows = own.sum(axis=1)
        reach = round(0.25 * CHAR)  # a character's top is a little above or below its line's
        near = range(max(1, edge - y - reach), min(h - 1, edge - y + reach + 1))
        row = min(near, key=lambda r: int(rows[r]))
        if rows[row] <= TOUCH_WIDTH:
            mask[y + row, x : x + w][own[row]] = 0
            cut = True
    return cut


def marks(ink: np.ndarray, code: str) -> Marks | None:
    """The marks in `code`'s search box; None where it holds no character-sized mark."""
    x0, y0, x1, y1 = box = _search_box(code, 0.0)
    region = ink[y0:y1, x0:x1]
    if region.size == 0:
        return None
    mask = _without_rules((region > INK).astype(np.uint8), region)
    count, labels, stats, centres = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if _lines_apart(mask, labels, stats):
        count, labels, stats, centres = cv2.connectedComponentsWithStats(mask, connectivity=8)
    rules = _rules_near(code, box)
    chars, small = [], []
    for i in range(1, count):
        x, y, w, h, area = stats[i]
        thin = w <= 0.16 * CHAR
        on_rule = any(abs(x + w / 2 - r) <= RULE_NEAR for r in rules)
        if thin and on_rule:
            continue  # a label cell's border
        if MIN_CHAR * CHAR <= h <= 1.6 * CHAR and area >= 0.15 * h * max(2, min(w, 6)):
            chars.append(i)
        elif h < MIN_CHAR * CHAR and w < 0.7 * CHAR and area >= 4 and w <= 2.5 * h + 2:
            small.append(i)  # a dot, a hyphen, a slash's piece
    if not chars:
        return None
    return Marks(code, box, region, labels, stats, centres, tuple(chars), tuple(small))


def value(ink: np.ndarray, code: str, offset: float = 0.0) -> Located | None:
    """The value of `code`: the line of characters in its search box nearest to its row's
    centre moved by `offset` mm (the page's printer offset). None where there is none."""
    found = marks(ink, code)
    return line(found, offset) if found is not None else None


def line(found: Marks, offset: float = 0.0) -> Located | None:
    """Of a field's marks, the line of characters nearest to its row's centre moved by
    `offset` mm, cut out with its small marks; None where only a neighbour's value reaches in."""
    code, region, labels, stats, centres = found.code, found.region, found.labels, found.stats, found.centres
    chars, small = found.chars, found.small
    x0, y0 = found.box[0], found.box[1]
    _, row_top, _, row_bottom = layout.value_box(code)
    if code in layout.SEGMENT and layout.SEGMENT[code].rows > 1:
        row_bottom = row_top + layout.ROW_PITCH  # the first line of a value of several
    expect = ((row_top + row_bottom) / 2 + offset) * PX_PER_MM - y0
    middle = {i: stats[i][1] + stats[i][3] / 2 for i in chars}
    best: tuple[float, list[int]] | None = None
    for i in chars:
        band = [j for j in chars if abs(middle[j] - middle[i]) < 0.45 * CHAR]
        width = float(sum(stats[j][2] for j in band))
        centre = float(np.median([middle[j] for j in band]))
        score = width * float(np.exp(-(((centre - expect) / BAND_SIGMA) ** 2)))
        if best is None or score > best[0]:
            best = (score, band)
    assert best is not None
    band = best[1]
    if abs(float(np.median([middle[j] for j in band])) - expect) > 0.5 * layout.ROW_PITCH * PX_PER_MM:
        return None  # only a neighbour's value reaches in: this field is empty
    one_token = code in ONE_TOKEN
    if one_token:
        band = _main_run(band, stats)
    top = min(stats[j][1] for j in band)
    bottom = max(stats[j][1] + stats[j][3] for j in band)
    left = min(stats[j][0] for j in band)
    right = max(stats[j][0] + stats[j][2] for j in band)
    # small marks that belong to the line: a dot or hyphen within it near its characters (not
    # in its upper third at its left, where a label cell's small code sits), an umlaut's or an
    # i's dots over its characters (not in a value of one token: no umlaut, nothing after it)
    height = bottom - top
    after = 0.3 * CHAR if one_token else CHAR
    kept = set(band) | {
        j
        for j in small
        if (
            top + 0.35 * height <= centres[j][1] <= bottom + 2
            and left - 0.3 * CHAR <= centres[j][0] <= right + after
        )
        or (
            not one_token
            and top - 0.7 * CHAR <= centres[j][1] <= top + 0.35 * height
            and left <= centres[j][0] <= right
        )
    }
    top = min(stats[j][1] for j in kept)
    left = min(stats[j][0] for j in kept)
    right = max(stats[j][0] + stats[j][2] for j in kept)
    keep = np.isin(labels, sorted(kept))
    cut = np.where(keep, region, 0.0)[max(0, top - 4) : bottom + 4, max(0, left - 4) : right + 4]
    image = cv2.copyMakeBorder(
        (255 * (1 - cut)).astype(np.uint8), 12, 12, 12, 12, cv2.BORDER_CONSTANT, value=255
    )
    strokes = region[keep]
    margin = round(PLAIN_MARGIN_MM * PX_PER_MM)
    plain = region[max(0, top - margin) : bottom + margin, max(0, left - margin) : right + margin]
    centre_mm = (y0 + (top + bottom) / 2) / PX_PER_MM - (row_top + row_bottom) / 2
    return Located(
        code,
        image,
        (x0 + left, y0 + top, x0 + right, y0 + bottom),
        centre_mm,
        float(strokes.mean()) if strokes.size else 0.0,
        (255 * (1 - plain)).astype(np.uint8),
    )


def _main_run(band: list[int], stats: np.ndarray) -> list[int]:
    """A value of one token (a VIN, a date, a code) is one run of characters: of the band's
    characters split where a gap is wider than RUN_GAP, the widest run. A label cell's border
    the registration put beside its known place, a speck or a rule's piece further along the
    row are not part of the value (Tesseract read them as characters)."""
    ordered = sorted(band, key=lambda j: stats[j][0])
    runs: list[list[int]] = [[ordered[0]]]
    reach = stats[ordered[0]][0] + stats[ordered[0]][2]
    for j in ordered[1:]:
        if stats[j][0] - reach > RUN_GAP * CHAR:
            runs.append([])
        runs[-1].append(j)
        reach = max(reach, stats[j][0] + stats[j][2])
    return max(runs, key=lambda run: sum(stats[j][2] for j in run))


def printer_offset(ink: np.ndarray, cut: dict[str, Marks | None] | None = None) -> float:
    """How far below its row's centre the printer put this document's values (mm, median over
    the fields every form fills): where a field's row holds two lines of marks (its value and a
    neighbour's reaching in), the one nearer this offset is the value. `cut`: the fields' marks
    already cut on this page (each probe is cut once, then read at this offset)."""
    cut = cut if cut is not None else {}
    offsets = []
    for code in OFFSET_PROBES:
        if code not in cut:
            cut[code] = marks(ink, code)
        probe = cut[code]
        found = line(probe) if probe is not None else None
        if found is not None:
            offsets.append(found.centre_offset)
    if len(offsets) < 3:
        return 0.0
    return float(np.clip(np.median(offsets), -SEARCH_ABOVE_MM, SEARCH_BELOW_MM))


def legibility(located: list[Located]) -> float:
    """The values' ink strength (0..1) over the located fields: a person cannot read a page
    whose strokes are all faint grey smears."""
    if not located:
        return 0.0
    return float(np.median([found.strength for found in located]))


def label_strip(flat: np.ndarray) -> np.ndarray:
    """The middle panel's label column (B, J, E, D.1, ..., 10), all ink, on white: read as one
    block, its codes in their order are evidence of the real form."""
    x0, x1 = layout.MIDDLE[0], layout.MIDDLE[0] + layout.MIDDLE_LABEL
    y0, y1 = layout.ROW_TOP, layout.ROW_TOP + 16 * layout.ROW_PITCH
    crop = flat[
        round(y0 * PX_PER_MM) : round(y1 * PX_PER_MM),
        round((x0 - 0.3) * PX_PER_MM) : round((x1 + 0.3) * PX_PER_MM),
    ]
    return print_layer(crop)
