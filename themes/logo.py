"""How large the partner's logo and advertisement image are drawn: the text in them legible,
never louder than the page title.

The compiler knows the logo's aspect ratio and the height of its smallest text as a share of
the logo's height: measured here from a data URL (an SVG's size and its <text> font sizes, a
raster image's size), or taken from the configuration (logo_aspect, logo_text_share: the
console measures an uploaded file, tenants.brand). From them it chooses the box per viewport:

- a logo with text is drawn so that its smallest text is at least MIN_TEXT_PX high (the font
  size, 12 px on a phone, 14 px on a desktop); a wide logo gets that as its width, a square
  one as its height;
- a logo without text (a square icon) gets ICON_PX and the partner's name as text beside it.

Pure: no storage, no Django; a URL the compiler cannot read (an uploaded /brand/ file) is
measured by the configuration's fields alone.
"""

from __future__ import annotations

import base64
import binascii
import io
import math
import re
from dataclasses import dataclass
from typing import Any

from defusedxml import ElementTree as SafeET

# The smallest text in the logo, as its font size in CSS pixels, per viewport.
MIN_TEXT_PX = {"phone": 12, "desktop": 14}
# A logo is never drawn lower than this (a text-free wide mark stays visible) ...
MIN_HEIGHT_PX = {"phone": 32, "desktop": 36}
# ... nor wider than the header leaves room for: the portal's phone header holds the menu and
# logout buttons beside it (390 px less 48 + 40 + paddings), the flow's a centred logo.
MAX_WIDTH_PX = {"phone": 240, "desktop": 360}
MAX_HEIGHT_PX = 96
# A text-free icon, with the partner's name beside it.
ICON_PX = {"phone": 36, "desktop": 40}
# Wider than this (width / height): a word mark that gets a width; up to it: a square mark.
WIDE_FROM = 1.5
# A raster logo's text cannot be measured: a wide one is taken to carry the name at this share
# of its height (the demo marks' 17 px text in 48 px is 0.35), a square one to carry none.
ASSUMED_TEXT_SHARE = 0.3

DATA_URL = re.compile(r"^data:image/([a-z+]+);base64,(.+)$", re.S)
NUMBER = re.compile(r"^\s*([0-9]*\.?[0-9]+)")


@dataclass(frozen=True)
class LogoMeasure:
    aspect: float | None  # width / height
    text_share: float | None  # smallest text's font size / logo height; 0: no text; None: unknown
    largest_share: float | None = None  # the largest text's, likewise


def _number(value: str | None) -> float | None:
    match = NUMBER.match(value or "")
    return float(match.group(1)) if match else None


def _local(tag: Any) -> str:
    return str(tag).rsplit("}", 1)[-1].lower() if isinstance(tag, str) else ""


def svg_measure(data: bytes) -> LogoMeasure:
    """Aspect from the viewBox (else width/height), text share from the smallest font-size of
    a <text> or <tspan> that holds text, in the viewBox's units."""
    try:
        root = SafeET.fromstring(data)
    except Exception:
        return LogoMeasure(None, None)
    box = (
        [float(v) for v in re.split(r"[\s,]+", (root.get("viewBox") or "").strip()) if v]
        if root.get("viewBox")
        else []
    )
    width, height = (
        (box[2], box[3]) if len(box) == 4 else (_number(root.get("width")), _number(root.get("height")))
    )
    if not width or not height:
        return LogoMeasure(None, None)
    sizes: list[float] = []
    for node in root.iter():
        if _local(node.tag) not in {"text", "tspan"} or not "".join(node.itertext()).strip():
            continue
        size = _number(node.get("font-size"))
        if size is None:
            style = re.search(r"font-size\s*:\s*([0-9.]+)", node.get("style") or "")
            size = float(style.group(1)) if style else None
        sizes.append(size if size else 16.0)  # SVG's initial font size
    if not sizes:
        return LogoMeasure(round(width / height, 3), 0.0, 0.0)
    return LogoMeasure(round(width / height, 3), round(min(sizes) / height, 4), round(max(sizes) / height, 4))


def raster_measure(data: bytes) -> LogoMeasure:
    from PIL import Image

    try:
        width, height = Image.open(io.BytesIO(data)).size  # the header only, nothing decoded
    except Exception:
        return LogoMeasure(None, None)
    return LogoMeasure(round(width / height, 3) if height else None, None)


def logo_measure(url: str | None) -> LogoMeasure:
    """What a data URL tells about the logo; nothing for another URL."""
    match = DATA_URL.match(url or "")
    if match is None:
        return LogoMeasure(None, None)
    try:
        data = base64.b64decode(match.group(2), validate=False)
    except (binascii.Error, ValueError):
        return LogoMeasure(None, None)
    return svg_measure(data) if match.group(1) == "svg+xml" else raster_measure(data)


def logo_box(url: str | None, aspect: float | None, text_share: float | None) -> dict[str, Any] | None:
    """The logo's box per viewport; the configuration's aspect and text share win over what
    the data URL shows (the console measured the uploaded file, or a person corrected it)."""
    if not url:
        return None
    measured = logo_measure(url)
    aspect = aspect or measured.aspect or 1.0
    share = text_share if text_share is not None else measured.text_share
    wide = aspect > WIDE_FROM
    if share is None:
        share = ASSUMED_TEXT_SHARE if wide else 0.0
    box: dict[str, Any] = {
        "aspect": aspect,
        "textShare": share,
        "wide": wide,
        # a mark without text: the partner's name is written beside it
        "showName": share == 0,
    }
    for place in ("phone", "desktop"):
        if share > 0:
            height = max(MIN_HEIGHT_PX[place], math.ceil(MIN_TEXT_PX[place] / share))
        else:
            height = ICON_PX[place] if not wide else MIN_HEIGHT_PX[place]
        height = min(height, MAX_HEIGHT_PX)
        width = math.ceil(height * aspect)
        if width > MAX_WIDTH_PX[place]:
            width = MAX_WIDTH_PX[place]
            height = math.floor(width / aspect)
        box[place] = {"width": width, "height": height, "textPx": round(height * share, 1)}
    return box


# The page title (typography h1: 22 px on a phone, 28 px from `sm`) and how much larger than
# it the text in an advertisement image may be drawn: a little, never a shout.
TITLE_PX = {"phone": 22, "desktop": 28}
AD_TEXT_OVER_TITLE = 1.25
# A raster banner's text cannot be measured: its largest line is taken as a quarter of its
# height (the demo banner's headline, 34 px in 160, is 0.21).
ASSUMED_AD_TEXT_SHARE = 0.25


# Below this (CSS px) an image advertisement's smallest text is not read on a phone: where the
# partner also wrote a headline, the phone shows the text advertisement instead (the web app's
# Advertisement, `phoneText`). The body text is 16 px, captions 12 px: nothing on the page is
# set smaller, and a banner's line should not be either.
MIN_AD_TEXT_PX = 12


def ad_banner_box(url: str | None) -> dict[str, Any] | None:
    """The advertisement image's largest height per viewport: its largest text at most
    AD_TEXT_OVER_TITLE times the page title. `smallestTextPx` says how small its smallest
    text then is at the phone's full width (358 px); `legible` whether that is MIN_AD_TEXT_PX
    or more (None: a raster image, not measured)."""
    if not url:
        return None
    measured = logo_measure(url)
    aspect = measured.aspect or 4.0
    largest = measured.largest_share or ASSUMED_AD_TEXT_SHARE
    box: dict[str, Any] = {
        "aspect": aspect,
        "textShare": largest,
        # for the layout checks: the smallest text's share of the image's height
        "smallestShare": measured.text_share or None,
    }
    for place, column in (("phone", 358), ("desktop", 1152)):
        height = math.floor(TITLE_PX[place] * AD_TEXT_OVER_TITLE / largest)
        drawn = min(height, column / aspect)
        smallest = round(drawn * measured.text_share, 1) if measured.text_share else None
        box[place] = {
            "maxHeight": height,
            "largestTextPx": round(drawn * largest, 1),
            "smallestTextPx": smallest,
            "legible": None if smallest is None else smallest >= MIN_AD_TEXT_PX,
        }
    return box
