"""A recogniser for the registration printers' fonts: the characters of a one-token value (the
VIN, field 3) classified one by one, as a read beside Tesseract's.

Tesseract's line model makes the same letter/digit confusions on the printers' condensed fonts
document after document (S/5, A/4, G/6, Z/2, V/Y) and reads a dot-matrix zero as an 8 or not at
all: a second Tesseract read repeats them, so agreement of its reads proves nothing there. This
stage reads the printed line as the printer made it: the value is cut into its character cells
by the printer's fixed pitch (the gaps between cells are where the ink is thinnest), and each
cell is classified by a small network (gradient histograms and a coarse picture of the cell,
one hidden layer) trained on cells cut the same way from rendered documents of the tuned
printer families only (`python tools/glyphs_train.py`, the held-out family never seen).

Its read counts as one more opinion with its alternatives (decide.py): it never decides a
field alone, and a VIN it reads is stored only when field 3 confirms it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from registrations import vin as vins

from . import validate
from .find import PX_PER_MM
from .read import Read
from .thresholds import GLYPH_ALTERNATIVE, GLYPH_PITCH_MM, GLYPH_PITCH_SPREAD

MODEL = Path(__file__).with_name("glyphs.npz")
CLASSES = vins.ALPHABET  # the VIN's 33 characters; field 3 takes the digits and X among them
CHECK_CLASSES = "0123456789X"
CELL_W, CELL_H = 16, 24  # a cell's picture (the capitals are about 24 px high at 10 px/mm)
INK = 0.35  # a located value's pixel is ink from this darkness
ENGINE = "glyphs"


def _ink(image: np.ndarray) -> np.ndarray:
    return 1.0 - image.astype(np.float32) / 255.0


def _bounds(mask: np.ndarray) -> tuple[int, int, int, int] | None:
    ys, xs = np.nonzero(mask)
    if xs.size == 0:
        return None
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1


def pitch_grid(ink: np.ndarray, count: int) -> tuple[float, float] | None:
    """The printer's cell grid over a line of `count` characters: (left edge of the first cell,
    pitch) in px. Monospaced: every cell is one pitch wide, so of the pitches near the printer's
    (GLYPH_PITCH_MM, within GLYPH_PITCH_SPREAD) and the grid's places along the line, the grid
    whose cell borders cross the least ink and leaves the least ink outside its cells (a speck
    or a label cell's border cut with the value stays outside). None where most of the ink
    lies outside every such grid (another count of characters, another row's value)."""
    box = _bounds(ink > INK)
    if box is None:
        return None
    x0, _, x1, _ = box
    nominal = GLYPH_PITCH_MM * PX_PER_MM
    profile = np.convolve(ink.sum(axis=0), np.ones(3) / 3, mode="same")
    columns = np.arange(profile.size, dtype=np.float32)
    cumulative = np.concatenate([[0.0], np.cumsum(profile)])
    total = float(cumulative[-1])
    best: tuple[float, float, float] | None = None
    # each character sits in the middle of its cell: the first cell starts at most half a pitch
    # before the ink and the last ends at most half a pitch after it, so the line's ink spans
    # at least count - 1 pitches (a wider pitch would leave a last cell with no character)
    widest = (x1 - x0) / (count - 1) if count > 1 else np.inf
    for pitch in np.arange(nominal * (1 - GLYPH_PITCH_SPREAD), nominal * (1 + GLYPH_PITCH_SPREAD), 0.1):
        if pitch > widest + 0.05:
            break
        span = count * pitch
        for left in np.arange(x0 - 0.5 * pitch, max(x0 - 0.5 * pitch, x1 - span + 0.5 * pitch) + 0.01, 0.5):
            borders = left + pitch * np.arange(1, count)
            # a border through a stroke counts twice: a grid off by half a cell crosses every one
            cost = 2 * float(np.interp(borders, columns, profile).sum()) if count > 1 else 0.0
            a = int(np.clip(round(left), 0, profile.size))
            b = int(np.clip(round(left + span), 0, profile.size))
            cost += total - float(cumulative[b] - cumulative[a])  # the ink outside the cells
            if best is None or cost < best[0]:
                best = (cost, float(left), float(pitch))
    if best is None:
        return None
    _, left, pitch = best
    a = int(np.clip(round(left), 0, profile.size))
    b = int(np.clip(round(left + count * pitch), 0, profile.size))
    if float(cumulative[b] - cumulative[a]) < 0.85 * total:
        return None
    return left, pitch


def cells(image: np.ndarray, count: int) -> list[np.ndarray] | None:
    """A located one-token value (dark on white) cut into `count` character cells, each a
    CELL_H x CELL_W picture of ink (0..1): one pitch wide, centred on its character's ink, as
    high as the line's characters; None where the value does not split into `count` cells of
    the printer's pitch."""
    ink = _ink(image)
    grid = pitch_grid(ink, count)
    if grid is None:
        return None
    left, pitch = grid
    inside = ink[:, max(0, int(left)) : int(np.ceil(left + count * pitch))]
    rows = np.nonzero((inside > INK).sum(axis=1) >= max(2, 0.02 * inside.shape[1]))[0]
    if rows.size == 0:
        return None
    top, bottom = int(rows.min()), int(rows.max()) + 1
    pad = max(1, round(0.08 * (bottom - top)))
    padded = cv2.copyMakeBorder(ink, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=0.0)
    out = []
    for k in range(count):
        a, b = left + k * pitch, left + (k + 1) * pitch
        window = ink[top:bottom, max(0, int(a)) : max(int(a) + 1, int(np.ceil(b)))]
        found = _bounds(window > INK)
        if found is None:
            return None
        # centred on its own ink (a pitch a little off shifts the later cells), never by more
        # than a quarter of the pitch
        centre = max(0, int(a)) + (found[0] + found[2]) / 2
        centre = float(np.clip(centre, (a + b) / 2 - pitch / 4, (a + b) / 2 + pitch / 4))
        x_a, x_b = round(centre - pitch / 2), round(centre + pitch / 2)
        cell = padded[top - pad + 40 : bottom + pad + 40, x_a + 40 : x_b + 40]
        out.append(cv2.resize(cell, (CELL_W, CELL_H), interpolation=cv2.INTER_AREA))
    return out


@cache
def _hog() -> cv2.HOGDescriptor:
    return cv2.HOGDescriptor((CELL_W, CELL_H), (8, 8), (4, 4), (4, 4), 9)


def features(cell: np.ndarray) -> np.ndarray:
    """A cell's gradient histograms and its coarse picture, its contrast stretched (a faint
    photo's ink counts as a dark scan's)."""
    top = float(np.percentile(cell, 98))
    norm = np.clip(cell / max(top, 0.2), 0.0, 1.0)
    hog = np.asarray(_hog().compute((norm * 255).astype(np.uint8))).ravel()
    coarse = cv2.resize(norm, (CELL_W // 2, CELL_H // 2), interpolation=cv2.INTER_AREA).ravel()
    return np.concatenate([hog, coarse]).astype(np.float32)


@dataclass(frozen=True)
class Network:
    mean: np.ndarray
    scale: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    classes: str

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        hidden = np.maximum(0.0, ((x - self.mean) / self.scale) @ self.w1 + self.b1)
        logits = hidden @ self.w2 + self.b2
        logits -= logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        return np.asarray(exp / exp.sum(axis=1, keepdims=True))


@cache
def network(path: Path = MODEL) -> Network | None:
    """The trained network (glyphs.npz), or None where it is not there."""
    if not path.exists():
        return None
    with np.load(path) as data:
        return Network(
            mean=data["mean"],
            scale=data["scale"],
            w1=data["w1"],
            b1=data["b1"],
            w2=data["w2"],
            b2=data["b2"],
            classes=str(data["classes"]),
        )


def classify(found: list[np.ndarray], allowed: str = CLASSES) -> list[list[tuple[str, float]]]:
    """Per cell the characters of `allowed` the network finds likely, best first, (char, 0..1)."""
    model = network()
    if model is None or not found:
        return []
    probabilities = model.probabilities(np.stack([features(c) for c in found]))
    keep = [i for i, c in enumerate(model.classes) if c in allowed]
    out = []
    for row in probabilities:
        part = row[keep]
        part = part / max(float(part.sum()), 1e-9)
        order = np.argsort(-part)
        out.append(
            [
                (model.classes[keep[i]], float(part[i]))
                for n, i in enumerate(order)
                if n == 0 or part[i] >= GLYPH_ALTERNATIVE
            ]
        )
    return out


@dataclass(frozen=True)
class Field:
    """A one-token field this stage reads: the counts of characters it is printed with, the
    characters they can be, and, for a field of several counts, the check that says which
    count's read is a value of the field."""

    counts: tuple[int, ...]
    classes: str
    is_value: Callable[[str], bool] | None = None


# J, the vehicle class, is two characters (M1, N1) or three (L3e: its small e is taken for the
# network's E): Tesseract's line model reads a value that short poorly, as it does field 3.
# Code 10, four digits: both Tesseract models read the printers' dotted or slashed zero as 6, 8
# or 9 ("0664", "0884"), and a poor photo's zeros as anything; the network learnt those zeros.
# Whole bench set: code 10 read 79.3 -> 85.3 % (PDFs 92.7 -> 96.4, poor photos 25.0 -> 44.2 %),
# no wrong one stored; held-out family 86.4 % before and after; dev set 69.9 -> 81.9 %
FIELDS = {
    "E": Field((vins.LENGTH,), CLASSES),
    "3": Field((1,), CHECK_CLASSES),
    "J": Field((2, 3), "MNL123456789E", lambda text: validate.vehicle_class(text) is not None),
    "10": Field((4,), "0123456789", lambda text: validate.energy_code(text) is not None),
}


def glyph_read(code: str, image: np.ndarray) -> Read | None:
    """The field's value read cell by cell, with each cell's alternatives; None where the
    value does not split into its characters or no network is there. Of a field printed with
    one of several counts of characters, the first count the value splits into whose read is a
    value of the field (Field.is_value)."""
    if code not in FIELDS or network() is None:
        return None
    field = FIELDS[code]
    for count in field.counts:
        found = cells(image, count)
        if found is None:
            continue
        choices = classify(found, field.classes)
        text = "".join(alternatives[0][0] for alternatives in choices)
        if field.is_value is None or field.is_value(text):
            return Read(text, tuple(tuple(a) for a in choices), ENGINE)
    return None
