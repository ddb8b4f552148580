"""Scan intake: check the bytes, decode safely, normalise, re-encode. Pure: no database.

Order matters for safety: byte size first, then the type from the content, then the pixel
dimensions from the header (a decompression bomb is refused before any decoding), and only
then the decode, at a reduced size where the format allows it.
"""

from __future__ import annotations

import io
import struct
import threading
import warnings
from dataclasses import dataclass

import pypdfium2 as pdfium
from django.conf import settings
from PIL import Image, ImageOps, UnidentifiedImageError

from registrations import errors
from registrations.errors import ScanRejected

try:  # HEIC/HEIF from iPhones, when the library is there
    from pillow_heif import register_heif_opener

    register_heif_opener()
    HEIF = True
except ImportError:  # pragma: no cover
    HEIF = False

MAX_BYTES = 10 * 1024 * 1024
STORED_LONG_SIDE = 2000  # ~240 dpi for a vehicle registration document: plenty to read
RESIZED_LONG_SIDE = 1024
PDF_RENDER_LONG_SIDE = 2000
HEIF_BRANDS = {b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1"}
ROTATING_ORIENTATIONS = {5, 6, 7, 8}
# PIL's own bomb guard (a warning above it, DecompressionBombError at twice it) follows the
# scan limit, so no other image opened in this process can decode more either. Intake checks
# the same header first and answers IMGC001 for both cases.
Image.MAX_IMAGE_PIXELS = settings.SCAN_MAX_PIXELS
# Decodes running at once in one process: a 25-megapixel PNG or WebP is decoded at full size
# (about 100 MB) before it is reduced, and a worker's threads must not multiply that.
DECODE_SLOTS = threading.BoundedSemaphore(2)


@dataclass(frozen=True)
class PreparedScan:
    image_bytes: bytes
    resized_bytes: bytes
    width: int
    height: int
    content_type: str
    image: Image.Image  # RGB, at most STORED_LONG_SIDE: what the reader looks at


def sniff(data: bytes) -> str | None:
    """The content type from the first bytes; the file name is never trusted."""
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data.startswith(b"%PDF-"):
        return "application/pdf"
    if HEIF and data[4:8] == b"ftyp" and data[8:12] in HEIF_BRANDS:
        return "image/heic"
    return None


def _size_check(width: int, height: int, *, min_size: int, max_pixels: int) -> None:
    if width < min_size or height < min_size or width * height > max_pixels:
        raise ScanRejected(
            errors.SIZE,
            {"given_width": width, "given_height": height, "min_size": min_size, "max_pixels": max_pixels},
        )


PIL_FORMATS = {"image/jpeg": "JPEG", "image/png": "PNG", "image/webp": "WEBP", "image/heic": "HEIF"}
DECODE_ERRORS = (UnidentifiedImageError, OSError, ValueError, SyntaxError, IndexError, struct.error, EOFError)


def _header_size(data: bytes, content_type: str) -> tuple[int, int]:
    """Width and height from the header alone, through the format's own reader: Image.open
    refuses a bomb before telling its size, and IMGC001 must name it."""
    Image.init()
    factory = Image.OPEN[PIL_FORMATS[content_type]][0]
    try:
        return factory(io.BytesIO(data), "").size  # type: ignore[call-arg,arg-type]
    except DECODE_ERRORS:
        raise ScanRejected(errors.DAMAGED) from None


def _open_image(
    data: bytes, content_type: str, *, min_size: int, max_pixels: int
) -> tuple[Image.Image, int, int]:
    """The decoded image (upright, reduced while or right after decoding) and its full upright
    size. Nothing is decoded before the header's size passed the pixel limit."""
    try:
        with warnings.catch_warnings():
            # Our own limit below decides, from the same header; PIL's warning adds nothing.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image: Image.Image = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError:
        width, height = _header_size(data, content_type)
        raise ScanRejected(
            errors.SIZE,
            {"given_width": width, "given_height": height, "min_size": min_size, "max_pixels": max_pixels},
        ) from None
    except DECODE_ERRORS:
        raise ScanRejected(errors.DAMAGED) from None
    raw_width, raw_height = image.size
    orientation = _orientation(image)
    turned = orientation in ROTATING_ORIENTATIONS
    width, height = (raw_height, raw_width) if turned else (raw_width, raw_height)
    _size_check(width, height, min_size=min_size, max_pixels=max_pixels)
    with DECODE_SLOTS:
        try:
            image = _decode_reduced(image)
            # A PNG's eXIf chunk may follow the pixels: known only now.
            if not turned and image.getexif().get(0x0112, 1) in ROTATING_ORIENTATIONS:
                width, height = height, width
        except (*DECODE_ERRORS, Image.DecompressionBombError):
            raise ScanRejected(errors.DAMAGED) from None
    return ImageOps.exif_transpose(image) or image, width, height


def _orientation(image: Image.Image) -> int:
    """The EXIF orientation as far as the header tells it. PIL's PNG getexif() decodes the
    whole image to look for an eXIf chunk behind the pixels: not before the size check."""
    if image.format == "PNG" and "exif" not in image.info:
        return 1
    try:
        return int(image.getexif().get(0x0112, 1))
    except DECODE_ERRORS:
        raise ScanRejected(errors.DAMAGED) from None


def _decode_reduced(image: Image.Image) -> Image.Image:
    """Decoded at no more than STORED_LONG_SIDE. thumbnail() with a reducing gap asks a JPEG's
    decoder for 1/2, 1/4 or 1/8 scale (draft) and shrinks any other format by a cheap integer
    box reduce() before the final LANCZOS, so only PNG/WebP/HEIC pass through full size once.
    A square box keeps this independent of the EXIF turn applied afterwards."""
    if image.mode in ("1", "P", "PA") or image.mode.startswith("I"):
        # Palette, bilevel and 16-bit images resize poorly (nearest neighbour) or not at all.
        image.load()
        image = image.convert("RGBA" if "transparency" in image.info or image.mode == "PA" else "RGB")
    if max(image.size) > STORED_LONG_SIDE:
        image.thumbnail((STORED_LONG_SIDE, STORED_LONG_SIDE), Image.Resampling.LANCZOS, reducing_gap=2.0)
    image.load()
    return image


def _render_pdf(data: bytes, *, min_size: int, max_pixels: int) -> tuple[Image.Image, int, int]:
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError:
        raise ScanRejected(errors.DAMAGED) from None
    try:
        if len(document) == 0:
            raise ScanRejected(errors.DAMAGED)
        page = document[0]
        width_pt, height_pt = page.get_size()
        if width_pt <= 0 or height_pt <= 0:
            raise ScanRejected(errors.DAMAGED)
        scale = PDF_RENDER_LONG_SIDE / max(width_pt, height_pt)
        width, height = round(width_pt * scale), round(height_pt * scale)
        _size_check(width, height, min_size=min_size, max_pixels=max_pixels)
        with DECODE_SLOTS:
            image = page.render(scale=scale).to_pil()
        return image, width, height
    finally:
        document.close()


def _pixels_only(image: Image.Image) -> Image.Image:
    """A new RGB image holding nothing but the pixels: no EXIF (location), XMP, ICC profile,
    JPEG comment or PNG text travels along (PIL copies `info` through convert() and writes a
    source's comment back on save)."""
    rgb = image.convert("RGB")
    return Image.frombytes("RGB", rgb.size, rgb.tobytes())


def _jpeg(image: Image.Image, quality: int) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=quality, optimize=True, exif=b"", comment=b"")
    return buffer.getvalue()


def scan_prepare(data: bytes, *, min_size: int, max_pixels: int, max_bytes: int = MAX_BYTES) -> PreparedScan:
    if len(data) > max_bytes:
        raise ScanRejected(errors.FILE_TOO_LARGE, {"max_bytes": max_bytes})
    content_type = sniff(data)
    if content_type is None:
        raise ScanRejected(errors.UNSUPPORTED_TYPE)
    if content_type == "application/pdf":
        image, width, height = _render_pdf(data, min_size=min_size, max_pixels=max_pixels)
    else:
        image, width, height = _open_image(data, content_type, min_size=min_size, max_pixels=max_pixels)
    # Metadata (EXIF with its location, XMP, ICC, comments) is dropped: re-encoded from pixels only.
    image = _pixels_only(image)
    if max(image.size) > STORED_LONG_SIDE:
        image.thumbnail((STORED_LONG_SIDE, STORED_LONG_SIDE), Image.Resampling.LANCZOS)
    resized = image.copy()
    resized.thumbnail((RESIZED_LONG_SIDE, RESIZED_LONG_SIDE), Image.Resampling.LANCZOS)
    return PreparedScan(
        image_bytes=_jpeg(image, 88),
        resized_bytes=_jpeg(resized, 82),
        width=width,
        height=height,
        content_type=content_type,
        image=image,
    )
