"""Scan intake: check the bytes, decode safely, normalise, re-encode. Pure: no database.

Order matters for safety: byte size first, then the type from the content, then the pixel
dimensions from the header (a decompression bomb is refused before any decoding), and only
then the decode, at a reduced size where the format allows it.
"""

from __future__ import annotations

import io
import math
import struct
import warnings
from dataclasses import dataclass

import pypdfium2 as pdfium
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
    """The decoded image (upright, possibly reduced while decoding) and its full upright size."""
    try:
        image = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError:
        width, height = _header_size(data, content_type)
        raise ScanRejected(
            errors.SIZE,
            {"given_width": width, "given_height": height, "min_size": min_size, "max_pixels": max_pixels},
        ) from None
    except DECODE_ERRORS:
        raise ScanRejected(errors.DAMAGED) from None
    width, height = image.size
    try:
        orientation = image.getexif().get(0x0112, 1)
    except DECODE_ERRORS:
        raise ScanRejected(errors.DAMAGED) from None
    if orientation in ROTATING_ORIENTATIONS:
        width, height = height, width
    _size_check(width, height, min_size=min_size, max_pixels=max_pixels)
    if image.format == "JPEG":
        # Decode at 1/2, 1/4 or 1/8 scale when that still covers what is stored.
        # draft() wants both sides covered: ask for the stored size of this aspect ratio.
        scale = STORED_LONG_SIDE / max(image.size)
        if scale < 1:
            image.draft("RGB", (math.ceil(image.width * scale), math.ceil(image.height * scale)))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image.load()
    except (*DECODE_ERRORS, Image.DecompressionBombWarning, Image.DecompressionBombError):
        raise ScanRejected(errors.DAMAGED) from None
    return ImageOps.exif_transpose(image) or image, width, height


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
        image = page.render(scale=scale).to_pil()
        return image, width, height
    finally:
        document.close()


def _jpeg(image: Image.Image, quality: int) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=quality, optimize=True)
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
    # Metadata (EXIF with its location) is dropped by re-encoding from pixels only.
    image = image.convert("RGB")
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
