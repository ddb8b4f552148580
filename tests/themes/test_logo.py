"""The logo is drawn so that its text is at least 12 px high on a phone (themes.logo)."""

from __future__ import annotations

import base64

import pytest

from common.partner_config import config_normalise
from tenants.demo import DEMO_PARTNERS, logo, svg_data_url
from themes.compiler import theme_compile
from themes.logo import AD_TEXT_OVER_TITLE, MIN_TEXT_PX, TITLE_PX, ad_banner_box, logo_box, logo_measure


def png_data_url(width: int, height: int) -> str:
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (width, height), "#123456").save(out, format="PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


def test_an_svg_logo_is_measured_by_its_box_and_its_smallest_text() -> None:
    # given the demo's mark: 48 high, the name in 17 px
    measure = logo_measure(logo("Stadtwerke Musterstadt", "#c81e1e"))

    assert measure.aspect == pytest.approx(291 / 48, abs=0.001)
    assert measure.text_share == pytest.approx(17 / 48, abs=0.001)


@pytest.mark.parametrize(
    "demo", [d for d in DEMO_PARTNERS if d["config"].get("logo")], ids=lambda d: d["subdomain"]
)
def test_every_demo_logos_text_is_at_least_12_px_on_a_phone_and_14_on_a_desktop(demo: dict) -> None:  # type: ignore[type-arg]
    bundle = theme_compile(config_normalise(demo["config"]), demo["kind"])
    box = bundle["assets"]["logoBox"]
    share = logo_measure(demo["config"]["logo"]).text_share

    assert box["wide"] is True and box["showName"] is False
    for place in ("phone", "desktop"):
        # the drawn height times the text's share of it: the text's pixel size
        assert box[place]["height"] * share >= MIN_TEXT_PX[place] - 0.05
        assert box[place]["width"] == pytest.approx(box[place]["height"] * box["aspect"], abs=1)
    assert box["phone"]["width"] <= 240


def test_a_square_icon_without_text_gets_a_height_and_the_name_beside_it() -> None:
    icon = svg_data_url(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 48 48"><circle cx="24" cy="24" r="20"/></svg>'
    )

    box = logo_box(icon, None, None)

    assert box is not None
    assert box["showName"] is True and box["wide"] is False
    assert box["phone"]["height"] == 36 and box["phone"]["width"] == 36


def test_a_raster_logo_by_its_aspect_and_the_configurations_measure() -> None:
    # a wide PNG: its text cannot be measured, a share of 0.3 is assumed: 40 px high on a phone
    wide = logo_box(png_data_url(300, 60), None, None)
    assert wide is not None and wide["wide"] and wide["phone"]["height"] == 40
    # an uploaded file (/brand/...): the console's measure decides; a square PNG is an icon
    uploaded = logo_box("/brand/logo-0123456789ab.png", 1.0, None)
    assert uploaded is not None and uploaded["showName"] is True
    corrected = logo_box("/brand/logo-0123456789ab.png", 4.0, 0.5)
    assert corrected is not None and corrected["phone"] == {"width": 128, "height": 32, "textPx": 16.0}


def test_no_logo_no_box() -> None:
    assert theme_compile(config_normalise({}), "standard")["assets"]["logoBox"] is None


def test_the_advertisement_images_text_never_outgrows_the_page_title_by_much() -> None:
    # given the demo utility partner's banner: 960 x 160, a 34 px headline and a 24 px line
    demo = next(d for d in DEMO_PARTNERS if d["kind"] == "utility")
    bundle = theme_compile(config_normalise(demo["config"]), "utility")
    banner = bundle["assets"]["adBanner"]

    assert banner["aspect"] == 6.0
    for place in ("phone", "desktop"):
        # drawn at most maxHeight high: its headline at most 1.25 x the title's size
        assert banner[place]["maxHeight"] * 34 / 160 <= TITLE_PX[place] * AD_TEXT_OVER_TITLE
        assert banner[place]["largestTextPx"] <= TITLE_PX[place] * AD_TEXT_OVER_TITLE
    # the desktop draws it 164 px high (984 px wide) instead of the column's 1152 x 192 (41 px)
    assert banner["desktop"]["maxHeight"] == 164
    # on a phone the second line stays small (24 px of 160 at 358 px wide): the phone shows the
    # demo partner's headline, text and button instead (web: Advertisement, phoneShowsText)
    assert banner["phone"]["smallestTextPx"] < 12
    assert banner["phone"]["legible"] is False
    assert banner["desktop"]["legible"] is True
    assert banner["smallestShare"] == 0.15
    assert demo["config"]["partneradvertisement"]["headline"]


def test_a_raster_advertisement_is_not_judged_legible_or_not() -> None:
    banner = ad_banner_box(png_data_url(800, 200))

    assert banner is not None
    assert banner["aspect"] == 4.0
    assert banner["smallestShare"] is None
    assert banner["phone"]["legible"] is None and banner["phone"]["smallestTextPx"] is None


def test_a_text_advertisement_needs_no_banner_box() -> None:
    config = config_normalise(
        {
            "partneradvertisement": {
                "enabled": True,
                "type": "text",
                "headline": "Ökostrom",
                "url": "https://a.example",
            }
        }
    )

    bundle = theme_compile(config, "standard")

    assert bundle["assets"]["adBanner"] is None
    assert config["partneradvertisement"]["headline"] == "Ökostrom"
