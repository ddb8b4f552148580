"""Read a located value: Tesseract in process (registrations.ocr) with the field's own
alphabet, at more than one scale and language model when the first read is not enough, and
RapidOCR (the optional second engine) as an independent opinion on the VIN and the codes.

Each read keeps the engine's per-character alternatives: decide.py may choose among them,
never a character no engine saw.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import cv2
import numpy as np

from registrations import ocr

from . import lines
from .thresholds import SCALES, SINGLE_REPEAT, SINGLE_SCALES
from .validate import VIN_ALPHABET

DIGITS = "0123456789"
DATE_CHARS = DIGITS + "."
# field code -> (whitelist, language model); empty whitelist: the language's whole alphabet
FIELDS: dict[str, tuple[str, str]] = {
    "E": (VIN_ALPHABET, "eng"),
    "3": (DIGITS + "X", "eng"),
    "B": (DATE_CHARS, "eng"),
    "I": (DATE_CHARS, "eng"),
    "J": ("MNLOe" + DIGITS, "eng"),
    "10": (DIGITS, "eng"),
    "2.1": (DIGITS, "eng"),
    "P.3": ("", "deu"),
    "5": ("", "deu"),  # Klasse und Aufbau: its first line names the body (PKW, LKW, KRAFTRAD)
    "D.1": ("", "deu"),
    "D.3": ("", "deu"),
    "A": ("ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜ-0123456789 ", "deu"),
    "C1.1": ("", "deu"),
    "C1.2": ("", "deu"),
}
# fields of one character: read from their crop repeated (single)
SINGLE = frozenset({"3"})
# fields an independent second engine reads as well (where it is installed). I, the date the
# registration was issued, left unread sends the registration to review: on the whole bench set
# it was the only field unread on 17 of 165 accepted scans, PDFs and phone photos; with RapidOCR
# 6 more are read (dev set 3 more), none wrong
SECOND_ENGINE = frozenset({"E", "B", "I", "10", "3", "J", "D.3", "C1.1", "C1.2"})
# fields Tesseract reads once more on the plain box (locate.Located.plain) at the OTHER_SCALE
# stage, besides the cut-out: a date's cut-out from a blurred photo loses its dots and thin
# strokes with the ink threshold (dots that join a digit, a 1 that falls apart). On the whole
# bench set I +3 (one PDF, two poor photos, one of them in the held-out family), nothing stored
# wrong; for every field the plain read stored one wrong plate and lost a VIN its field 3 had
# confirmed, so it stays with the dates, where the date's own form (validate.DATE) checks it.
# The plain read is the same model, so the same opinion (decide._opinion): it settles a date only
# with another model or engine reading the same
PLAIN_READ = frozenset({"B", "I"})


@dataclass(frozen=True)
class Read:
    text: str
    choices: tuple[tuple[tuple[str, float], ...], ...]  # per character: (char, 0..1), best first
    engine: str  # "tesseract-eng@1.5", "rapidocr", ...

    @property
    def sureness(self) -> float:
        """The least sure character's confidence (0 for an empty read)."""
        if not self.choices:
            return 0.0
        return float(min(alternatives[0][1] for alternatives in self.choices))


def _scaled(image: np.ndarray, factor: float) -> np.ndarray:
    if factor == 1.0:
        return image
    return cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_CUBIC)


def tesseract(code: str, image: np.ndarray, scale: float, lang: str | None = None) -> Read:
    whitelist, default_lang = FIELDS[code]
    lang = lang or default_lang
    line = ocr.read_line(_scaled(image, scale), whitelist=whitelist, lang=lang)
    return Read(line.text.strip(), line.choices, f"tesseract-{lang}@{scale}")


def second(image: np.ndarray, margin: int = ocr.SECOND_MARGIN) -> Read | None:
    line = ocr.read_line_second(image, margin)
    if line is None:
        return None
    return Read(line.text.strip(), line.choices, "rapidocr")


def line_network(code: str, plain: np.ndarray) -> Read | None:
    """The value's box read by the printers' own line network (lines.py), or None."""
    found = lines.line_read(code, plain)
    return Read(found[0], found[1], lines.ENGINE) if found is not None else None


def _repeated(image: np.ndarray, times: int = SINGLE_REPEAT) -> np.ndarray:
    """A single character's crop trimmed to its ink and set side by side `times` times: Tesseract's
    line model reads a lone character poorly (it often answers nothing, or a 1 for a 7) and a
    short line of them well."""
    ys, xs = np.nonzero(image < 160)
    if xs.size:
        image = image[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    image = cv2.copyMakeBorder(image, 12, 12, 12, 12, cv2.BORDER_CONSTANT, value=255)
    gap = np.full((image.shape[0], 8), 255, np.uint8)
    return np.hstack([part for _ in range(times) for part in (image, gap)][:-1])


def single(code: str, image: np.ndarray, scale: float) -> Read:
    """A one-character field (field 3) read from its crop repeated: the character most of the
    repeats show (none where they are split evenly)."""
    whitelist, lang = FIELDS[code]
    line = ocr.read_line(_scaled(_repeated(image), scale), whitelist=whitelist, lang=lang)
    shown = Counter(c for c in line.text.upper() if not c.isspace())
    ranked = shown.most_common(2)
    if not ranked or (len(ranked) > 1 and ranked[1][1] == ranked[0][1]):
        return Read("", (), f"tesseract-{lang}@{scale}x{SINGLE_REPEAT}")
    char = ranked[0][0]
    sure = max((alts[0][1] for alts in line.choices if alts and alts[0][0].upper() == char), default=0.0)
    return Read(char, (((char, sure),),), f"tesseract-{lang}@{scale}x{SINGLE_REPEAT}")


def first_read(code: str, image: np.ndarray) -> list[Read]:
    """The cheapest read: one Tesseract run at the scale it reads the printer's font best (a
    one-character field: its repeated crop at two scales)."""
    if code in SINGLE:
        return [single(code, image, scale) for scale in SINGLE_SCALES]
    return [tesseract(code, image, SCALES[0])]


OTHER_MODEL, OTHER_SCALE, SECOND = 1, 2, 3  # the stages of more_reads


def more_reads(code: str, image: np.ndarray, stage: int, plain: np.ndarray | None = None) -> list[Read]:
    """Further reads of a field the reads so far did not settle, by stage: OTHER_MODEL the other
    language model (its own training data: an independent opinion, decide._opinion),
    OTHER_SCALE the same model at the other scale (not independent: it repeats most of its
    misreads, but reads a crop its first scale missed; a date also on `plain`, PLAIN_READ),
    SECOND the second engine, on `plain` (the value's box as it is, locate.Located.plain) where
    given. A one-character field (field 3): its crop as cut (not repeated), then the other
    model, then the second engine. SECOND adds the line recogniser's read of `plain` (lines.py)
    for the fields it reads."""
    whitelist, lang = FIELDS[code]
    other = "deu" if lang == "eng" else "eng"
    if code in SINGLE:
        if stage == OTHER_MODEL:
            return [tesseract(code, image, SINGLE_SCALES[0])]
        if stage == OTHER_SCALE:
            return [tesseract(code, image, SCALES[0], other)]
    elif stage == OTHER_MODEL:
        return [tesseract(code, image, SCALES[0], other)]
    elif stage == OTHER_SCALE:
        scaled = [tesseract(code, image, scale) for scale in SCALES[1:]]
        if code in PLAIN_READ and plain is not None:
            scaled.append(tesseract(code, plain, SCALES[0]))
        return scaled
    if stage == SECOND:
        found = [second(image) if plain is None else second(plain, 0)] if code in SECOND_ENGINE else []
        # the printers' own line recogniser (lines.py) on the value's box as it is
        found.append(line_network(code, plain) if plain is not None else None)
        return [r for r in found if r is not None]
    return []
