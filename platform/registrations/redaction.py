"""The display copy of a scan: the holder's name and address blacked out.

The portal, the partner area and e-mails show only this copy; the original is kept for the
authority submission alone (registrations.services.scan_original_release).

On the real ZB I the holder's personal data (C1.1 name, C1.2 first names, C1.3 address) lies in
the left panel, which ends at the fold (63.5 mm): that area of the reader's located page is
mapped back into the picture through the page's perspective and blacked out; the vehicle data
stays sharp. A picture whose form was not located (or whose registration no validated field
confirms) cannot be cut along the form: it is shown as a neutral card saying the document
arrived, never as a mosaic that still shows a name's shape.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from registrations.intake import RESIZED_LONG_SIDE
from registrations.reader import Reading, Straightened
from registrations.reader.layout import HOLDER_PANEL
from registrations.reader.thresholds import GRID_WEAK

PLACEHOLDER_TEXT = "Dokument eingegangen"
FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


@dataclass(frozen=True)
class Redacted:
    image_bytes: bytes
    resized_bytes: bytes
    method: str  # "boxes" (the holder panel blacked out) or "neutral" (form not located)


def _mm_rect(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)


def holder_polygons(page: Straightened) -> list[np.ndarray]:
    """The picture's polygons (pixels) that hold the holder's name and address."""
    return [page.template_to_picture(_mm_rect(*HOLDER_PANEL))]


def neutral(size: tuple[int, int]) -> Image.Image:
    """A quiet card of the picture's size that says the document arrived (nothing of it shown)."""
    image = Image.new("RGB", size, (236, 239, 241))
    draw = ImageDraw.Draw(image)
    font_size = max(12, round(min(size) / 14))
    try:
        font: ImageFont.FreeTypeFont | ImageFont.ImageFont = ImageFont.truetype(str(FONT), font_size)
    except OSError:
        font = ImageFont.load_default()
    box = draw.textbbox((0, 0), PLACEHOLDER_TEXT, font=font)
    x = (size[0] - (box[2] - box[0])) / 2
    y = (size[1] - (box[3] - box[1])) / 2
    draw.text((x, y), PLACEHOLDER_TEXT, fill=(84, 96, 104), font=font)
    return image


def _jpeg(image: Image.Image, quality: int) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=quality, optimize=True)
    return buffer.getvalue()


def located(reading: Reading) -> bool:
    """The page's registration is proven where it matters: the ruling was found, and a field
    was read and validated in its place (VIN, first registration or class): a photo whose
    ruling matched a row off reads none of them, and its holder panel would miss the name."""
    page = reading.page
    if page is None or page.to_page is None or page.grid < GRID_WEAK:
        return False
    return bool(reading.vin or reading.first_registration or reading.vehicle_class)


def redacted_image(image: Image.Image, reading: Reading) -> tuple[Image.Image, str]:
    page = reading.page
    if page is None or not located(reading):
        return neutral(image.size), "neutral"
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
