"""Scan intake: content sniffing, limits before decoding, EXIF, PDF, re-encoding."""

from __future__ import annotations

import io
import struct
import zlib

import pytest
from PIL import Image

from registrations.errors import ScanRejected
from registrations.intake import scan_prepare, sniff
from tests.fixtures.zlb.generate import encode, zlb_document

LIMITS = {"min_size": 500, "max_pixels": 25_000_000}


def image_bytes(size: tuple[int, int], fmt: str = "JPEG", **save: object) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, (200, 220, 200)).save(buffer, fmt, **save)
    return buffer.getvalue()


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png_bomb(side: int) -> bytes:
    """A valid 1-bit PNG of side x side black pixels: a few hundred kB that decode to GBs."""
    row = b"\x00" * (1 + side // 8)
    packer = zlib.compressobj(9)
    data = b"".join(packer.compress(row) for _ in range(side)) + packer.flush()
    header = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (image_bytes((600, 600), "JPEG"), "image/jpeg"),
        (image_bytes((600, 600), "PNG"), "image/png"),
        (image_bytes((600, 600), "WEBP"), "image/webp"),
        (zlb_document(1, fmt="pdf", size=(1200, 850))[0], "application/pdf"),
        (b"GIF89a" + b"\x00" * 100, None),
        (b"<svg xmlns='http://www.w3.org/2000/svg'></svg>", None),
        (b"Hallo, ich bin eine Textdatei.jpg", None),
    ],
)
def test_the_type_comes_from_the_content(data: bytes, expected: str | None) -> None:
    assert sniff(data) == expected


def test_heic_is_accepted_when_the_library_supports_it() -> None:
    pillow_heif = pytest.importorskip("pillow_heif")
    image = Image.new("RGB", (800, 600), (10, 120, 40))
    buffer = io.BytesIO()
    pillow_heif.from_pillow(image).save(buffer, quality=80)

    prepared = scan_prepare(buffer.getvalue(), **LIMITS)

    assert prepared.content_type == "image/heic"
    assert (prepared.width, prepared.height) == (800, 600)


@pytest.mark.parametrize("data", [b"not an image at all", b"\x00" * 5000, image_bytes((600, 600), "BMP")])
def test_anything_else_is_refused_as_unsupported(data: bytes) -> None:
    with pytest.raises(ScanRejected) as refused:
        scan_prepare(data, **LIMITS)

    assert refused.value.code == "IMGC004"


def test_more_than_10_mb_is_refused_before_anything_else() -> None:
    with pytest.raises(ScanRejected) as refused:
        scan_prepare(b"\xff\xd8\xff" + b"\x00" * (10 * 1024 * 1024), **LIMITS)

    assert refused.value.code == "IMGC005"


def test_a_decompression_bomb_is_refused_from_its_header() -> None:
    with pytest.raises(ScanRejected) as refused:
        scan_prepare(png_bomb(30_000), **LIMITS)

    assert refused.value.code == "IMGC001"
    assert refused.value.details["given_width"] == 30_000
    assert refused.value.details["given_height"] == 30_000


def test_too_small_gives_imgc001_with_the_given_size() -> None:
    with pytest.raises(ScanRejected) as refused:
        scan_prepare(image_bytes((400, 900)), **LIMITS)

    assert refused.value.code == "IMGC001"
    assert refused.value.details == {
        "given_width": 400,
        "given_height": 900,
        "min_size": 500,
        "max_pixels": 25_000_000,
    }


def test_too_many_pixels_gives_imgc001() -> None:
    with pytest.raises(ScanRejected) as refused:
        scan_prepare(image_bytes((3000, 2000)), min_size=500, max_pixels=5_000_000)

    assert refused.value.code == "IMGC001"
    assert (refused.value.details["given_width"], refused.value.details["given_height"]) == (3000, 2000)


def test_a_truncated_image_is_refused_as_damaged() -> None:
    data = image_bytes((1200, 900), "PNG")

    with pytest.raises(ScanRejected) as refused:
        scan_prepare(data[: len(data) // 2], **LIMITS)

    assert refused.value.code == "IMGC006"


def test_an_encrypted_or_empty_pdf_is_refused_as_damaged() -> None:
    with pytest.raises(ScanRejected) as refused:
        scan_prepare(b"%PDF-1.7\n%%EOF\n", **LIMITS)

    assert refused.value.code == "IMGC006"


def test_exif_orientation_is_applied_and_metadata_dropped() -> None:
    page = Image.new("RGB", (1600, 1000), "white")
    data = encode(page, "jpeg", orientation=6)  # stored landscape, to be shown turned

    prepared = scan_prepare(data, **LIMITS)

    assert (prepared.width, prepared.height) == (1000, 1600)
    stored = Image.open(io.BytesIO(prepared.image_bytes))
    assert stored.format == "JPEG"
    assert stored.size == (1000, 1600)
    assert not stored.getexif()


def test_a_pdf_is_rendered_from_its_first_page() -> None:
    data, _ = zlb_document(2, fmt="pdf", size=(2400, 1700))

    prepared = scan_prepare(data, **LIMITS)

    assert prepared.content_type == "application/pdf"
    assert max(prepared.width, prepared.height) == 2000
    assert Image.open(io.BytesIO(prepared.image_bytes)).format == "JPEG"


def test_the_stored_image_is_bounded_and_the_resized_copy_is_1024() -> None:
    prepared = scan_prepare(image_bytes((4000, 3000), quality=90), **LIMITS)

    assert (prepared.width, prepared.height) == (4000, 3000)
    assert max(Image.open(io.BytesIO(prepared.image_bytes)).size) == 2000
    assert max(Image.open(io.BytesIO(prepared.resized_bytes)).size) == 1024
