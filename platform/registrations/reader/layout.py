"""The face of the real Zulassungsbescheinigung Teil I (FZV Anlage 6) in millimetres.

Measured on the public specimen (Meteord/fahrzeugschein-detector, images/zulassungsbescheinigung.png:
ruled lines found by OpenCV, the printed frame taken as 210 x 105 mm) and checked against the
published form: three panels side by side, separated by fold lines at about 63 and 135 mm.

- Left panel (holder): the header, "A Amtliches Kennzeichen" over a boxed plate, C1.1, C1.2,
  C1.3 with their names printed and the value below each, "Nächste HU", the issuing town over
  "I Datum:", the C4c sentence.
- Middle panel (x 63.5-134.6) and right panel (x 137.4-210): ruled rows of 4.09 mm from
  y 8.18 mm; each segment starts with a narrow label cell (2.5-2.8 mm) carrying its field code.

Positions here are where the form puts things; the reader never trusts them alone: rows are
found again on the page by their ruling (locate.py), and the printer's values are cut by their
own ink, so a form a few millimetres off this drawing is still read.
"""

from __future__ import annotations

from dataclasses import dataclass

WIDTH_MM, HEIGHT_MM = 210.0, 105.0
ROW_TOP = 8.18  # the first ruled line of the two data panels
ROW_PITCH = 4.09
ROWS = 23  # ruled rows down to 102.3 mm (the last line); the frame closes at 105
MIDDLE = (63.5, 134.6)  # x range of the middle panel
RIGHT = (137.4, 210.0)
MIDDLE_LABEL = 2.8  # width of a row's first label cell
RIGHT_LABEL = 2.5
INNER_LABEL = 2.7  # a label cell inside a row (2.1, 4, 3, 14.1, ...)
FOLDS = (63.5, 136.0)


@dataclass(frozen=True)
class Segment:
    code: str
    row: int  # first row (0 = the row below y ROW_TOP)
    x0: float  # the label cell's left edge
    x1: float  # the segment's right edge (the next label cell's left edge)
    rows: int = 1  # rows the value spans (D.2: 4, 5: 2)
    label: float = INNER_LABEL

    @property
    def value_x0(self) -> float:
        return self.x0 + self.label

    @property
    def y0(self) -> float:
        return ROW_TOP + self.row * ROW_PITCH

    @property
    def y1(self) -> float:
        return ROW_TOP + (self.row + self.rows) * ROW_PITCH


def _row(
    row: int, panel: tuple[float, float], first_label: float, cells: list[tuple[str, float]], rows: int = 1
):
    """Segments of one ruled row: (code, x of its label cell); the first at the panel's edge."""
    found = []
    edges = [x for _, x in cells[1:]] + [panel[1]]
    for index, ((code, x0), x1) in enumerate(zip(cells, edges, strict=True)):
        label = first_label if index == 0 else INNER_LABEL
        found.append(Segment(code, row, x0, x1, rows, label))
    return found


_M, _R = MIDDLE[0], RIGHT[0]
SEGMENTS: list[Segment] = [
    *_row(0, MIDDLE, MIDDLE_LABEL, [("B", _M), ("2.1", 94.0), ("2.2", 109.2)]),
    *_row(1, MIDDLE, MIDDLE_LABEL, [("J", _M), ("4", 98.9)]),
    *_row(2, MIDDLE, MIDDLE_LABEL, [("E", _M), ("3", 119.3)]),
    *_row(3, MIDDLE, MIDDLE_LABEL, [("D.1", _M)]),
    *_row(4, MIDDLE, MIDDLE_LABEL, [("D.2", _M)], rows=4),
    *_row(8, MIDDLE, MIDDLE_LABEL, [("D.3", _M)]),
    *_row(9, MIDDLE, MIDDLE_LABEL, [("2", _M)]),
    *_row(10, MIDDLE, MIDDLE_LABEL, [("5", _M)], rows=2),
    *_row(12, MIDDLE, MIDDLE_LABEL, [("V.9", _M)]),
    *_row(13, MIDDLE, MIDDLE_LABEL, [("14", _M)]),
    *_row(14, MIDDLE, MIDDLE_LABEL, [("P.3", _M)]),
    *_row(15, MIDDLE, MIDDLE_LABEL, [("10", _M), ("14.1", 86.5), ("P.1", 109.3)]),
    *_row(16, (MIDDLE[0], RIGHT[1]), MIDDLE_LABEL, [("22", _M)], rows=7),
    *_row(0, RIGHT, RIGHT_LABEL, [("L", _R), ("9", 149.9), ("P.2/P.4", 162.5), ("T", 193.1)]),
    *_row(1, RIGHT, RIGHT_LABEL, [("18", _R), ("19", 172.7)]),
    *_row(2, RIGHT, RIGHT_LABEL, [("20", _R), ("G", 172.7)]),
    *_row(3, RIGHT, RIGHT_LABEL, [("12", _R), ("13", 157.5), ("Q", 183.0)]),
    *_row(4, RIGHT, RIGHT_LABEL, [("V.7", _R), ("F.1", 157.5), ("F.2", 183.0)]),
    *_row(5, RIGHT, RIGHT_LABEL, [("7.1", _R), ("7.2", 157.6), ("7.3", 183.0)]),
    *_row(6, RIGHT, RIGHT_LABEL, [("8.1", _R), ("8.2", 157.6), ("8.3", 183.0)]),
    *_row(7, RIGHT, RIGHT_LABEL, [("U.1", _R), ("U.2", 157.6), ("U.3", 183.0)]),
    *_row(8, RIGHT, RIGHT_LABEL, [("O.1", _R), ("O.2", 157.6), ("S.1", 180.4), ("S.2", 193.1)]),
    *_row(9, RIGHT, RIGHT_LABEL, [("15.1", _R)]),
    *_row(10, RIGHT, RIGHT_LABEL, [("15.2", _R)]),
    *_row(11, RIGHT, RIGHT_LABEL, [("15.3", _R)]),
    *_row(12, RIGHT, RIGHT_LABEL, [("R", _R), ("11", 180.5)]),
    *_row(13, RIGHT, RIGHT_LABEL, [("K", _R)]),
    *_row(14, RIGHT, RIGHT_LABEL, [("6", _R), ("17", 173.0), ("16", 180.6)]),
    *_row(15, RIGHT, RIGHT_LABEL, [("21", _R)]),
]  # fmt: skip
SEGMENT = {s.code: s for s in SEGMENTS}

# The holder panel: printed label texts and where each value sits (x0, y0, x1, y1 in mm).
HEADER = (2.0, 5.0, 62.0, 27.0)  # "Zulassungsbescheinigung Teil I", "(Fahrzeugschein)", EU/EG, D
PLATE_BOX = (2.6, 48.2, 59.0, 53.8)  # A: the boxed plate
HOLDER_FIELDS = {
    "A": (3.0, 48.4, 58.5, 53.6),
    "C1.1": (2.0, 55.6, 62.0, 61.0),
    "C1.2": (2.0, 67.6, 62.0, 73.0),
    "C1.3": (2.0, 75.8, 62.0, 85.0),
    # the date is looked for from the end of its label ("I Datum:", about 34 mm): the left panel
    # lies beyond the ruled panels the page is registered on, and on a photo cut at its left edge
    # the date lay 5.7 mm left of the drawing (its "3" was outside a box from 33.5 mm and "0.6.2026"
    # was read). The label's own letters are smaller than a value's or a run apart from it
    # (locate.ONE_TOKEN).
    "I": (28.0, 93.6, 62.0, 98.4),
}
HOLDER_LABELS = {
    "A": ("A Amtliches Kennzeichen", 45.0),  # text, baseline y in mm (the label above the value)
    "C1.1": ("C1.1 Name oder Firmenname", 55.3),
    "C1.2": ("C1.2 Vorname(n)", 67.2),
    "C1.3": ("C1.3 Anschrift", 75.4),
    "I": ("I Datum:", 96.2),
}
# the holder's personal data on the display copy (name, first names, address; the plate too)
HOLDER_PANEL = (1.0, 54.2, 63.0, 88.0)
LEFT_PANEL = (0.0, 0.0, 63.5, 105.0)


def value_box(code: str) -> tuple[float, float, float, float]:
    """Where a field's value is printed on the drawing: (x0, y0, x1, y1) in mm."""
    if code in HOLDER_FIELDS:
        return HOLDER_FIELDS[code]
    segment = SEGMENT[code]
    return (segment.value_x0, segment.y0, segment.x1, segment.y1)


def ruled_lines() -> tuple[list[tuple[float, float, float]], list[tuple[float, float, float]]]:
    """The pre-print's straight lines: horizontal (y, x0, x1) and vertical (x, y0, y1), in mm."""
    horizontal: list[tuple[float, float, float]] = []
    for row in range(ROWS + 1):
        y = ROW_TOP + row * ROW_PITCH
        horizontal.append((y, MIDDLE[0], MIDDLE[1]) if row <= 16 else (y, MIDDLE[0], RIGHT[1]))
        if row <= 16:
            horizontal.append((y, RIGHT[0], RIGHT[1]))
    vertical: list[tuple[float, float, float]] = [
        (MIDDLE[0], 0.0, HEIGHT_MM),
        (MIDDLE[1], ROW_TOP, ROW_TOP + 16 * ROW_PITCH),
        (RIGHT[0], ROW_TOP, ROW_TOP + 16 * ROW_PITCH),
    ]
    for segment in SEGMENTS:
        if segment.code == "22":
            continue
        vertical.append((segment.value_x0, segment.y0, segment.y1))
        if segment.x0 not in (MIDDLE[0], RIGHT[0]):
            vertical.append((segment.x0, segment.y0, segment.y1))
    x0, y0, x1, y1 = PLATE_BOX
    horizontal += [(y0, x0, x1), (y1, x0, x1)]
    vertical += [(x0, y0, y1), (x1, y0, y1)]
    return horizontal, vertical
