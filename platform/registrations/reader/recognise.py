"""Is this page a Zulassungsbescheinigung Teil I? Decided by what every real one shows, and
vetoed by what the page says it is when it is something else.

Evidence (each counted in `score`): the ruled data panels found where the form has them
(find.py's grid match), the header's words ("Zulassungsbescheinigung", "Teil I",
"Fahrzeugschein", "Europäische Gemeinschaft/Union", "Bundesrepublik Deutschland"), the field
codes in the middle panel's label column in their order (B, J, E, D.1, D.2, D.3, 2, 5, V.9,
14, P.3, 10), and value patterns (a 17-character VIN beside E, a date beside B). Both form
generations (EG and EU header, with and without "(Fahrzeugschein)", with or without the
security sticker) show all of these. Vetoes: Teil II ("Teil II", "Fahrzeugbrief",
"Sicherheitscode"), the certificate of conformity, invoices, tax notices, identity cards, and
web pages or screenshots showing the form.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image, ImageOps

from registrations import ocr

from . import layout
from .find import PX_PER_MM, Straightened, proportions
from .locate import label_strip, print_layer
from .thresholds import BLURRED, GRID_SURE, GRID_WEAK, HEADER_HITS, LABEL_HITS, OCR_TIMEOUT
from .validate import normalise

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
HEADER_WORDS = (
    "zulassungsbescheinigung",
    "fahrzeugschein",
    "europaische",
    "gemeinschaft",
    "union",
    "bundesrepublik",
    "deutschland",
)
LABEL_ORDER = ("B", "J", "E", "D1", "D2", "D3", "2", "5", "V9", "14", "P3", "10")
MARKS_LONG_SIDE = 1000
PAPER_AREA = 0.1  # the paper covers at least this share of the picture
PAPER_ASPECT = (1.75, 2.5)  # long side over short side, perspective and a cut corner allowed
# text around a photographed document, at a contrast of 50: a web page or screenshot showing
# the form has hundreds of marks outside it, a table, cloth or a hand under the document few
OUTSIDE_MARKS = 100


@dataclass(frozen=True)
class Evidence:
    grid: float
    header_hits: int
    teil_i: bool
    labels: int
    veto: str | None

    @property
    def score(self) -> int:
        return (
            self.header_hits
            + int(self.teil_i)
            + (2 if self.grid >= GRID_SURE else int(self.grid >= GRID_WEAK))
            + (2 if self.labels >= LABEL_HITS else 0)
        )

    @property
    def possible(self) -> bool:
        """Ruling that may be the form's: its fields are worth reading (their values decide)."""
        return self.grid >= GRID_WEAK

    @property
    def structure(self) -> bool:
        """The ruled panels alone, or weaker ruling that the header or the codes confirm."""
        return self.grid >= GRID_SURE or (
            self.grid >= GRID_WEAK
            and (self.header_hits >= HEADER_HITS or self.teil_i or self.labels >= LABEL_HITS)
        )


def marks(image: Image.Image, blank_quad: np.ndarray | None = None, contrast: int = 35) -> int:
    """Character-sized dark marks standing out from their surroundings, on a small copy: a
    blank or dark photo has none, a car photo a handful, a page of text a hundred and more.
    `blank_quad` (picture coordinates): marks inside it are not counted."""
    gray = np.asarray(ImageOps.grayscale(image))
    factor = min(1.0, MARKS_LONG_SIDE / max(gray.shape))
    small = cv2.resize(gray, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    paper = cv2.blur(cv2.dilate(small, cv2.getStructuringElement(cv2.MORPH_RECT, (15, 15))), (15, 15))
    mask = ((paper.astype(np.int16) - small) > contrast).astype(np.uint8)
    if blank_quad is not None:
        centre = blank_quad.mean(axis=0)
        grown = (centre + (blank_quad - centre) * 1.05) * factor
        cv2.fillPoly(mask, [np.round(grown).astype(np.int32)], 0)
    _, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    heights, widths = stats[1:, cv2.CC_STAT_HEIGHT], stats[1:, cv2.CC_STAT_WIDTH]
    return int(((heights >= 4) & (heights <= 60) & (widths <= 80)).sum())


def sharpness(page: Straightened) -> float:
    """The variance of the straightened page's Laplacian at 5 px/mm: a page a person can read
    measures 40 and more (poor photos 43-580), one blurred past reading under 15."""
    flat = page.flat if page.flat is not None else page.image.astype(np.float32) / 255
    gray = cv2.cvtColor((np.clip(flat, 0, 1) * 255).astype(np.uint8), cv2.COLOR_BGR2GRAY)
    gray = cv2.resize(gray, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    return float(cv2.Laplacian(gray, cv2.CV_32F).var())


def paper_like(page: Straightened) -> bool:
    """The document found on the picture is the form's security paper in the form's
    proportions (210 x 105 mm, 2:1): pale green to yellow, a clear share of the picture, and
    blurred past reading (a sharp page of that paper without the ruling is something else:
    the back of the form, a card)."""
    if not page.found or page.quad is None or page.area < PAPER_AREA:
        return False
    if sharpness(page) >= BLURRED:
        return False
    return PAPER_ASPECT[0] <= proportions(page.quad) <= PAPER_ASPECT[1]


def veto(text: str, ruled: bool = False) -> str | None:
    """What the page's text says it is instead of a ZB I (None: nothing). `ruled`: the page
    has the form's ruling (GRID_WEAK or better), and a header read "Teil li" is the blur of
    "Teil I" (a poor photo of a ZB I was refused as a Teil II); the Teil II's own words
    ("Fahrzeugbrief", "Sicherheitscode") still veto it."""
    if TEIL_II.search(text) and not ruled:
        return "teil2"
    flat = normalise(text)
    for kind, words in VETOES.items():
        hits = sum(word in flat for word in words)
        if hits >= (1 if kind in ("teil2", "coc", "idcard", "tax") else 2) or (
            kind == "webpage" and "muster" in flat
        ):
            return kind
    return None


def words(text: str) -> int:
    return len(re.findall(r"[A-Za-zÄÖÜäöüß]{3,}", text))


def page_text(image: Image.Image) -> str:
    """The whole picture's text (for a page that is not the form: what it is instead)."""
    gray = ImageOps.grayscale(image)
    gray.thumbnail((1700, 1700))
    return ocr.read_text(np.asarray(gray), psm=ocr.PSM_AUTO, lang="deu", timeout=OCR_TIMEOUT)


def outside_text(image: Image.Image, quad: np.ndarray | None) -> str:
    """Text around a photographed document: a web page or a screenshot showing a ZB I."""
    if quad is None or marks(image, quad, contrast=50) < OUTSIDE_MARKS:
        return ""
    return page_text(image)


def header(flat: np.ndarray) -> str:
    x0, y0, x1, y1 = layout.HEADER
    crop = flat[round(y0 * PX_PER_MM) : round(y1 * PX_PER_MM), round(x0 * PX_PER_MM) : round(x1 * PX_PER_MM)]
    return ocr.read_line(print_layer(crop), psm=ocr.PSM_SINGLE_BLOCK, lang="deu").text


def labels(flat: np.ndarray) -> int:
    """How many of the middle panel's field codes are read in their label column, in order."""
    text = ocr.read_line(
        label_strip(flat), psm=ocr.PSM_SINGLE_BLOCK, lang="eng", whitelist="BJEDPV0123456789."
    ).text
    tokens = [t.replace(".", "") for t in text.split()]
    hits, at = 0, 0
    for token in tokens:
        if token in LABEL_ORDER[at:]:
            at = LABEL_ORDER.index(token, at) + 1
            hits += 1
    return hits


def evidence(page: Straightened, flat: np.ndarray) -> Evidence:
    text = header(flat)
    flat_text = normalise(text)
    return Evidence(
        grid=page.grid,
        header_hits=sum(word in flat_text for word in HEADER_WORDS),
        teil_i=bool(TEIL_I.search(text)) and not TEIL_II.search(text),
        labels=labels(flat),
        veto=veto(text, ruled=page.grid >= GRID_WEAK),
    )
