"""The display copy of a scan: the holder's name and address blacked out.

The portal, the partner area and e-mails show only this copy; the original is kept for the
authority submission alone (registrations.services.scan_original_release).

Where the holder's fields are comes from the reader's located page: the template boxes of
C.1.1 (name), C.1.2 (given names), C.1.3 (address) and C.4c, mapped back into the picture
through the page's perspective, and Tesseract's word boxes of what the printer put there
(a long street name runs past its box). A picture on which the form's grid was not found
(or whose registration no validated field confirms) cannot be trusted to be cut along its
boxes: the whole copy is pixelated instead, so nothing is readable.
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass

import cv2
import numpy as np
import pytesseract
from PIL import Image

from registrations.geometry import PX_PER_MM, Straightened, flatten_light
from registrations.intake import RESIZED_LONG_SIDE
from registrations.reader import GRID_WEAK, OCR_TIMEOUT, Reading, value_layer

os.environ.setdefault("OMP_THREAD_LIMIT", "1")

# The holder panel's fields C.1.1-C.1.3 and C.4c in template mm (x0, y0, x1, y1), with a margin
# for the printer's shift and the registration's error; the grid of vehicle fields starts at 70.
HOLDER_AREA = (2.5, 32.0, 69.0, 69.0)
# Where the printer's words may lie that start in the holder panel: searched with Tesseract.
WORD_SEARCH = (1.0, 31.0, 150.0, 70.0)
WORD_PAD_MM = 0.8
PIXEL_BLOCKS = 40  # blocks across the long side of an unlocated picture


@dataclass(frozen=True)
class Redacted:
    image_bytes: bytes
    resized_bytes: bytes
    method: str  # "boxes" (holder areas blacked out) or "pixelated" (form not located)


def _mm_rect(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)


def _word_rects(page: Straightened) -> list[np.ndarray]:
    """Tesseract's word boxes (template mm) of values starting in the holder panel."""
    x0, y0, x1, y1 = WORD_SEARCH
    values = value_layer(page.flat if page.flat is not None else flatten_light(page.image))
    ox, oy = page.offset_mm
    sx, sy = page.scale
    # the search area on the page (the page is in template mm unless registration failed)
    px0, py0 = round((ox + x0 * sx) * PX_PER_MM), round((oy + y0 * sy) * PX_PER_MM)
    px1, py1 = round((ox + x1 * sx) * PX_PER_MM), round((oy + y1 * sy) * PX_PER_MM)
    px0, py0 = max(0, px0), max(0, py0)
    crop = values[py0:py1, px0:px1]
    if crop.size == 0:
        return []
    try:
        data = pytesseract.image_to_data(
            Image.fromarray(crop),
            lang="deu",
            config="--psm 11",
            timeout=OCR_TIMEOUT,
            output_type=pytesseract.Output.DICT,
        )
    except (RuntimeError, pytesseract.TesseractError):
        return []
    rects = []
    hx0, hy0, hx1, hy1 = HOLDER_AREA
    for text, left, top, width, height in zip(
        data["text"], data["left"], data["top"], data["width"], data["height"], strict=True
    ):
        if not str(text).strip():
            continue
        # page pixels -> template mm
        wx0 = ((px0 + left) / PX_PER_MM - ox) / sx
        wy0 = ((py0 + top) / PX_PER_MM - oy) / sy
        wx1 = ((px0 + left + width) / PX_PER_MM - ox) / sx
        wy1 = ((py0 + top + height) / PX_PER_MM - oy) / sy
        middle = (wy0 + wy1) / 2
        if hx0 <= wx0 < hx1 and hy0 <= middle <= hy1:
            pad = WORD_PAD_MM
            rects.append(_mm_rect(wx0 - pad, wy0 - pad, wx1 + pad, wy1 + pad))
    return rects


def holder_polygons(page: Straightened) -> list[np.ndarray]:
    """The picture's polygons (pixels) that hold the holder's name and address."""
    rects = [_mm_rect(*HOLDER_AREA), *_word_rects(page)]
    return [page.template_to_picture(rect) for rect in rects]


def _pixelated(image: Image.Image) -> Image.Image:
    factor = PIXEL_BLOCKS / max(image.size)
    small = image.resize(
        (max(1, round(image.width * factor)), max(1, round(image.height * factor))), Image.Resampling.BOX
    )
    return small.resize(image.size, Image.Resampling.NEAREST)


def _jpeg(image: Image.Image, quality: int) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=quality, optimize=True)
    return buffer.getvalue()


def located(reading: Reading) -> bool:
    """The page's registration is proven where it matters: the grid was found, and a field
    was read and validated in its template box (VIN, first registration or class). Measured on
    the realistic set: a poor photo whose grid matched a box off reads none of them, and its
    holder boxes would have missed the name."""
    page = reading.page
    if page is None or page.to_page is None or page.grid < GRID_WEAK:
        return False
    return bool(reading.vin or reading.first_registration or reading.vehicle_class)


def redacted_image(image: Image.Image, reading: Reading) -> tuple[Image.Image, str]:
    page = reading.page
    if page is None or not located(reading):
        return _pixelated(image.convert("RGB")), "pixelated"
    pixels = np.array(image.convert("RGB"))
    for polygon in holder_polygons(page):
        cv2.fillPoly(pixels, [np.round(polygon).astype(np.int32)], (0, 0, 0))
    return Image.fromarray(pixels), "boxes"


def scan_redact(image: Image.Image, reading: Reading) -> Redacted:
    """The display copy and its small version, as JPEG bytes (no metadata)."""
    redacted, method = redacted_image(image, reading)
    resized = redacted.copy()
    resized.thumbnail((RESIZED_LONG_SIDE, RESIZED_LONG_SIDE), Image.Resampling.LANCZOS)
    return Redacted(image_bytes=_jpeg(redacted, 88), resized_bytes=_jpeg(resized, 82), method=method)
