"""Upload hardening (issue 13, items 7-8): per-token and per-address budgets, the pixel limit
before decoding, no metadata in stored scans, skip_classifier only after a refusal."""

from __future__ import annotations

import io
import struct
import zlib
from typing import Any

import pytest
from django.core.files.storage import default_storage
from django.test import Client
from django.utils import timezone
from django_tenants.utils import schema_context
from PIL import Image, ImageCms

from accounts.models import User
from accounts.tokens import tokens_issue
from registrations.models import BevRegistration
from tenants.models import Partner
from tests.fixtures.zlb.generate import letter, zlb_document

pytestmark = pytest.mark.django_db
HOST = "autohaus.localhost"
YEAR = timezone.localdate().year


@pytest.fixture(autouse=True)
def _in_autohaus(tmp_path: Any, settings: Any) -> Any:
    settings.MEDIA_ROOT = tmp_path
    with schema_context("p_autohaus"):
        yield


def bearer(email: str, *, session_start: int | None = None) -> dict[str, str]:
    user, _ = User.objects.get_or_create(username=email, defaults={"email": email})
    partner = Partner.objects.get(subdomain="autohaus")
    access = tokens_issue(user=user, partner=partner, session_start=session_start)["access"]
    return {"Authorization": f"Bearer {access}"}


def upload(
    client: Client, auth: dict[str, str], data: bytes, *, address: str = "203.0.113.7", **fields: str
) -> Any:
    form: dict[str, Any] = {
        "partner": "autohaus",
        "source": "",
        "registration_years": str(YEAR),
        "skip_classifier": "False",
        **fields,
    }
    form["zlb_scan"] = io.BytesIO(data)
    form["zlb_scan"].name = "scan.jpg"
    return client.post("/api/bev_registrations/", form, HTTP_HOST=HOST, REMOTE_ADDR=address, headers=auth)


NOT_AN_IMAGE = b"just text, refused as IMGC004 without any decoding"


# --- budgets -------------------------------------------------------------------------------


def test_uploads_of_one_token_are_limited_with_retry_after(client: Client, settings: Any) -> None:
    settings.UPLOAD_LIMIT_PER_LOGIN = 3
    ina = bearer("ina@example.de")

    answers = [upload(client, ina, NOT_AN_IMAGE) for _ in range(4)]

    assert [answer.status_code for answer in answers] == [400, 400, 400, 429]
    refused = answers[-1]
    assert refused.json() == {
        "detail": "Zu viele Uploads. Bitte versuchen Sie es später erneut.",
        "error_code": "UPLOAD001",
    }
    assert 1 <= int(refused["Retry-After"]) <= 601
    # another owner at the same address has a budget of their own
    assert upload(client, bearer("ole@example.de"), NOT_AN_IMAGE).status_code == 400


def test_uploads_of_one_address_are_limited_across_tokens(client: Client, settings: Any) -> None:
    settings.UPLOAD_LIMIT_PER_LOGIN = 100
    settings.UPLOAD_LIMIT_PER_ADDRESS = 4
    owners = [bearer(f"owner{n}@example.de") for n in range(5)]

    answers = [upload(client, auth, NOT_AN_IMAGE, address="198.51.100.9") for auth in owners]

    assert [answer.status_code for answer in answers] == [400, 400, 400, 400, 429]
    assert answers[-1].json()["error_code"] == "UPLOAD001"
    assert int(answers[-1]["Retry-After"]) >= 1
    # the same owner from another address is served
    assert upload(client, owners[-1], NOT_AN_IMAGE, address="198.51.100.10").status_code == 400


def test_the_default_budgets_are_20_per_token_and_60_per_address(client: Client) -> None:
    ina = bearer("ina@example.de")

    answers = [upload(client, ina, NOT_AN_IMAGE).status_code for _ in range(21)]

    assert answers.count(400) == 20 and answers[-1] == 429


# --- pixels ----------------------------------------------------------------------------------


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png_header_only(width: int, height: int) -> bytes:
    """A PNG that declares its size and holds one row of its pixels: decoding it fails as
    truncated, reading its header not."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    packer = zlib.compressobj()
    row = packer.compress(b"\x00" * (1 + 3 * width)) + packer.flush(zlib.Z_SYNC_FLUSH)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", row)


def test_the_truncated_png_is_damaged_when_within_the_limit(client: Client) -> None:
    # The control: the same kind of file within 25 megapixels reaches the decoder and fails.
    response = upload(client, bearer("ina@example.de"), png_header_only(3000, 2000))

    assert response.json()["zlb_scan"]["error_code"] == "IMGC006"


@pytest.mark.parametrize("size", [(5001, 5000), (8000, 5000), (20_000, 20_000)])
def test_over_25_megapixels_is_imgc001_from_the_header_before_any_decoding(
    client: Client, size: tuple[int, int]
) -> None:
    # A truncated body would be IMGC006 had the decoder run: IMGC001 shows it never did.
    response = upload(client, bearer("ina@example.de"), png_header_only(*size))

    assert response.status_code == 400
    assert response.json() == {
        "zlb_scan": {
            "error_code": "IMGC001",
            "details": {
                "given_width": size[0],
                "given_height": size[1],
                "min_size": 500,
                "max_pixels": 25_000_000,
            },
        }
    }


def test_the_web_app_is_told_the_25_megapixel_limit(client: Client) -> None:
    constraints = client.get("/api/system_constraints/", HTTP_HOST=HOST).json()

    assert constraints["bev_registration"]["zlb_scan_constraints"]["max_pixels"] == 25_000_000


# --- metadata --------------------------------------------------------------------------------


def jpeg_markers(data: bytes) -> list[int]:
    """The marker bytes of a JPEG's segments up to the image data."""
    assert data[:2] == b"\xff\xd8"
    markers, position = [], 2
    while position < len(data):
        assert data[position] == 0xFF
        marker = data[position + 1]
        markers.append(marker)
        if marker == 0xDA:  # start of scan: entropy-coded data follows
            break
        (length,) = struct.unpack(">H", data[position + 2 : position + 4])
        position += 2 + length
    return markers


# The GPS position lives in the EXIF block (APP1), whose absence the markers prove: three bytes
# "GPS" may occur by chance in any JPEG's compressed pixels, so they are no test of their own.
SECRETS = (b"Geheimer Kommentar", b"Musterstrasse 1", b"xmp-secret-creator")


def scan_with_every_metadata_block() -> bytes:
    page = Image.open(io.BytesIO(zlb_document(21)[0])).convert("RGB")
    exif = Image.Exif()
    exif[0x010E] = "Musterstrasse 1"  # ImageDescription
    gps = exif.get_ifd(0x8825)
    gps.update({1: "N", 2: (52.0, 31.0, 12.0), 3: "E", 4: (13.0, 24.0, 36.0)})
    xmp = (
        b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        b'<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" dc:creator="xmp-secret-creator"/>'
        b"</rdf:RDF></x:xmpmeta>"
    )
    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    buffer = io.BytesIO()
    page.save(
        buffer,
        "JPEG",
        quality=90,
        exif=exif.tobytes(),
        xmp=xmp,
        icc_profile=icc,
        comment=b"Geheimer Kommentar GPS",
    )
    data = buffer.getvalue()
    markers = jpeg_markers(data)
    assert {0xE1, 0xE2, 0xFE} <= set(markers)  # the upload really carries EXIF/XMP, ICC, COM
    return data


def test_stored_scans_carry_no_comment_exif_xmp_or_icc(client: Client) -> None:
    response = upload(client, bearer("ina@example.de"), scan_with_every_metadata_block())

    assert response.status_code == 201, response.json()
    registration = BevRegistration.objects.get()
    for name in (registration.zlb_scan, registration.display_scan, registration.resized_image):
        with default_storage.open(name, "rb") as handle:
            stored = handle.read()
        markers = jpeg_markers(stored)
        assert not {0xE1, 0xE2, 0xFE} & set(markers), (name, [hex(marker) for marker in markers])
        assert set(markers) <= {0xE0, 0xDB, 0xC0, 0xC1, 0xC2, 0xC4, 0xDD, 0xDA}
        assert not any(secret in stored for secret in SECRETS)


def test_png_text_chunks_do_not_reach_the_stored_scan(client: Client) -> None:
    from PIL import PngImagePlugin

    page = Image.open(io.BytesIO(zlb_document(22)[0])).convert("RGB")
    text = PngImagePlugin.PngInfo()
    text.add_text("Comment", "Geheimer Kommentar")
    text.add_itxt("Author", "Musterstrasse 1")
    buffer = io.BytesIO()
    page.save(buffer, "PNG", pnginfo=text)

    response = upload(client, bearer("ina@example.de"), buffer.getvalue())

    assert response.status_code == 201, response.json()
    registration = BevRegistration.objects.get()
    with default_storage.open(registration.zlb_scan, "rb") as handle:
        stored = handle.read()
    assert not {0xE1, 0xE2, 0xFE} & set(jpeg_markers(stored))
    assert not any(secret in stored for secret in SECRETS)


# --- skip_classifier ---------------------------------------------------------------------------


def test_skip_classifier_is_not_believed_without_a_refusal_first(client: Client) -> None:
    response = upload(client, bearer("ina@example.de"), letter(3), skip_classifier="True")

    assert response.status_code == 400
    assert response.json()["zlb_scan"]["error_code"] == "IMGC002"
    assert not BevRegistration.objects.exists()


def test_skip_classifier_is_honoured_after_a_refusal_in_the_same_login_only(client: Client) -> None:
    login = bearer("ina@example.de", session_start=int(timezone.now().timestamp()) - 60)
    other_login = bearer("ina@example.de", session_start=int(timezone.now().timestamp()) - 30)
    other_owner = bearer("ole@example.de", session_start=int(timezone.now().timestamp()) - 60)

    # given: the classifier refused a page in this login
    assert upload(client, login, letter(4)).json()["zlb_scan"]["error_code"] == "IMGC002"

    # then: another login of the same owner and another owner are still refused ...
    for auth in (other_login, other_owner):
        answer = upload(client, auth, letter(4), skip_classifier="True")
        assert answer.status_code == 400 and answer.json()["zlb_scan"]["error_code"] == "IMGC002"
    assert not BevRegistration.objects.exists()
    # ... and this login may upload it anyway, for the back office to review
    response = upload(client, login, letter(4), skip_classifier="True")
    assert response.status_code == 201, response.json()
    registration = BevRegistration.objects.get()
    assert registration.classifier_skipped and registration.needs_review
