"""Brand assets uploaded in the console: logo, favicon, header image.

Raster files (PNG, JPEG, WebP) are decoded with Pillow (size checked from the header first),
turned upright, re-encoded without metadata and resized: the logo as PNG (also what mails
link to: mail clients do not show `data:` SVGs), the header image as WebP, the favicon as PNGs
of 32, 180, 192 and 512 px plus a favicon.ico (16, 32, 48). SVG files are parsed with
defusedxml and rebuilt from an allow-list (no script, no event handlers, no external
references, no foreignObject or style). Everything is stored through the storage layer under
the partner's prefix (`{schema}/brand/`, content-hashed names) and served from the partner's
own host at `/brand/<name>` (tenants.brand_views; the web app's shell, tenants.web_views, is
untouched). An SVG logo also
gets a PNG copy of the same name (tenants.svg_raster): the one mails show.
"""

from __future__ import annotations

import hashlib
import io
import re
from dataclasses import dataclass
from typing import Any
from xml.etree import ElementTree as ET

from defusedxml import ElementTree as SafeET
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django_tenants.utils import schema_context
from PIL import Image, ImageOps

from tenants.models import Partner
from tenants.svg_raster import svg_png
from themes.logo import LogoMeasure, svg_measure

MAX_BYTES = 2 * 1024 * 1024
MAX_PIXELS = 25_000_000
KINDS = ("logo", "favicon", "header_image")
BOXES = {"logo": (600, 240), "header_image": (2400, 800)}
FAVICON_PNGS = (32, 180, 192, 512)
FAVICON_ICO = ((16, 16), (32, 32), (48, 48))
CONTENT_TYPES = {
    "png": "image/png",
    "webp": "image/webp",
    "svg": "image/svg+xml",
    "ico": "image/x-icon",
}

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
SVG_ELEMENTS = {
    "svg", "g", "path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "text", "tspan",
    "defs", "lineargradient", "radialgradient", "stop", "clippath", "mask", "title", "desc", "use", "symbol",
}  # fmt: skip
SVG_ATTRIBUTES = {
    "viewbox", "width", "height", "x", "y", "x1", "x2", "y1", "y2", "cx", "cy", "r", "rx", "ry", "d", "points",
    "fill", "fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-opacity", "stroke-linecap",
    "stroke-linejoin", "opacity", "transform", "offset", "stop-color", "stop-opacity", "font-family",
    "font-size", "font-weight", "text-anchor", "dominant-baseline", "letter-spacing", "gradientunits",
    "gradienttransform", "clip-path", "clip-rule", "mask", "id", "preserveaspectratio", "href", "version",
}  # fmt: skip
# `<use>` copies what it points at, and may point at copies: nested, a few bytes render as
# millions of shapes and hang a browser. Limits on the count of `<use>`, how deep copies of
# copies go, and how many elements the whole drawing expands to.
MAX_USES = 100
MAX_USE_DEPTH = 3
MAX_EXPANDED = 20_000
SVG_USE_REFUSED = "Die SVG-Datei verweist zu oft auf eigene Teile (<use>) und wird nicht angenommen."
# url(#id) only: no url(https://...), no javascript:, no expression().
LOCAL_REFERENCE = re.compile(r"^\s*(?:url\(\s*#[\w.-]+\s*\)|[^():;]*)\s*$")


class BrandAssetError(ValueError):
    """An upload that is refused, with a German message for the console."""


@dataclass(frozen=True)
class StoredAsset:
    kind: str
    url: str  # '/brand/logo-<hash>.png', what the configuration points at
    extra: dict[str, str]  # favicon sizes: '180' -> url
    # a logo's aspect and text share, for the configuration (themes.logo sizes it by them)
    measure: LogoMeasure = LogoMeasure(None, None)


def _svg_clean(data: bytes) -> bytes:
    try:
        root = SafeET.fromstring(data)
    except Exception as exc:  # defusedxml raises several kinds for entities, DTDs, bad XML
        raise BrandAssetError("Die SVG-Datei ist kein gültiges SVG.") from exc
    if _local(root.tag) != "svg":
        raise BrandAssetError("Die SVG-Datei ist kein gültiges SVG.")
    ET.register_namespace("", SVG_NS)
    ET.register_namespace("xlink", XLINK_NS)
    clean = _svg_copy(root)
    if clean is None:
        raise BrandAssetError("Die SVG-Datei ist kein gültiges SVG.")
    _uses_check(clean)
    return ET.tostring(clean, encoding="utf-8", xml_declaration=False)


def _uses_check(root: Any) -> None:
    """Refuses a drawing whose `<use>` elements are too many, nest too deep, refer to
    themselves, or expand it beyond MAX_EXPANDED elements (BrandAssetError)."""
    elements = list(root.iter())
    uses = [element for element in elements if _local(element.tag) == "use"]
    if not uses:
        return
    if len(uses) > MAX_USES:
        raise BrandAssetError(SVG_USE_REFUSED)
    by_id = {element.get("id"): element for element in elements if element.get("id")}
    known: dict[int, tuple[int, int]] = {}

    def measure(element: Any, path: frozenset[int]) -> tuple[int, int]:
        """(elements it renders as with its copies expanded, how deep copies of copies go)."""
        if id(element) in path:
            raise BrandAssetError(SVG_USE_REFUSED)  # refers to itself
        if id(element) in known:
            return known[id(element)]
        path = path | {id(element)}
        total, depth = 1, 0
        if _local(element.tag) == "use":
            href = element.get("href") or element.get(f"{{{XLINK_NS}}}href") or ""
            target = by_id.get(href[1:]) if href.startswith("#") else None
            if target is not None:
                copied, nested = measure(target, path)
                total, depth = total + copied, nested + 1
        for child in element:
            copied, nested = measure(child, path)
            total, depth = total + copied, max(depth, nested)
        if total > MAX_EXPANDED or depth > MAX_USE_DEPTH:
            raise BrandAssetError(SVG_USE_REFUSED)
        known[id(element)] = (total, depth)
        return total, depth

    measure(root, frozenset())


def _local(tag: Any) -> str:
    return str(tag).rsplit("}", 1)[-1].lower() if isinstance(tag, str) else ""


def _svg_copy(node: Any) -> Any:
    name = _local(node.tag)
    if name not in SVG_ELEMENTS:
        return None
    copy = ET.Element(f"{{{SVG_NS}}}{name}" if name != "svg" else f"{{{SVG_NS}}}svg")
    for key, value in node.attrib.items():
        attribute = _local(key)
        if attribute not in SVG_ATTRIBUTES or attribute.startswith("on"):
            continue
        if attribute == "href" and not value.startswith("#"):
            continue  # only references inside the file
        if not LOCAL_REFERENCE.match(value) and attribute not in {"d", "points", "transform", "viewbox"}:
            continue
        copy.set(key if not key.startswith("{") or XLINK_NS in key else attribute, value)
    copy.text = node.text if name in {"text", "tspan", "title", "desc"} else None
    for child in node:
        cleaned = _svg_copy(child)
        if cleaned is not None:
            cleaned.tail = None
            copy.append(cleaned)
    return copy


def _raster(data: bytes) -> Image.Image:
    try:
        probe = Image.open(io.BytesIO(data))
    except Exception as exc:
        raise BrandAssetError("Erlaubt sind PNG, JPEG, WebP und SVG.") from exc
    if probe.format not in {"PNG", "JPEG", "WEBP"}:
        raise BrandAssetError("Erlaubt sind PNG, JPEG, WebP und SVG.")
    width, height = probe.size
    if width * height > MAX_PIXELS:  # from the header, before decoding
        raise BrandAssetError("Das Bild ist zu groß (höchstens 25 Megapixel).")
    try:
        image = ImageOps.exif_transpose(probe)
        image.load()
    except Exception as exc:
        raise BrandAssetError("Das Bild lässt sich nicht lesen.") from exc
    return image.convert("RGBA")


def _encode(image: Image.Image, fmt: str, **options: Any) -> bytes:
    out = io.BytesIO()
    image.save(out, format=fmt, **options)  # a fresh file: no EXIF, XMP, ICC or text chunks
    return out.getvalue()


def _store(partner: Partner, stem: str, ext: str, data: bytes, digest: str = "") -> str:
    digest = digest or hashlib.sha256(data).hexdigest()[:12]
    name = f"{stem}-{digest}.{ext}"
    with schema_context(partner.schema_name):
        path = f"{partner.schema_name}/brand/{name}"
        if not default_storage.exists(path):
            default_storage.save(path, ContentFile(data))
    return f"/brand/{name}"


def brand_asset_store(*, partner: Partner, kind: str, data: bytes, filename: str = "") -> StoredAsset:
    """Check, clean, resize and store one upload; the URLs to put into the configuration."""
    if kind not in KINDS:
        raise BrandAssetError(f"Unbekannte Art {kind!r}.")
    if len(data) > MAX_BYTES:
        raise BrandAssetError("Die Datei ist zu groß (höchstens 2 MB).")
    stem = kind.replace("_", "-")
    if data.lstrip()[:5].lower() in {b"<?xml", b"<svg ", b"<svg>", b"<!--"} or b"<svg" in data[:1024].lower():
        clean = _svg_clean(data)
        url = _store(partner, stem, "svg", clean)
        extra = {}
        if kind == "logo":
            # Mails link to a PNG: same name, .png (mail_logo_url finds it by that).
            png = svg_png(clean, box=BOXES["logo"])
            if png is not None:
                extra["png"] = _store(
                    partner, stem, "png", png, digest=hashlib.sha256(clean).hexdigest()[:12]
                )
            return StoredAsset(kind, url, extra, svg_measure(clean))
        return StoredAsset(kind, url, extra)
    image = _raster(data)
    if kind == "favicon":
        side = min(image.size)
        square = ImageOps.fit(image, (side, side))
        extra = {
            str(size): _store(
                partner,
                f"favicon-{size}",
                "png",
                _encode(square.resize((size, size), Image.Resampling.LANCZOS), "PNG", optimize=True),
            )
            for size in FAVICON_PNGS
        }
        extra["ico"] = _store(partner, "favicon", "ico", _encode(square, "ICO", sizes=list(FAVICON_ICO)))
        return StoredAsset(kind, extra["192"], extra)
    image.thumbnail(BOXES[kind], Image.Resampling.LANCZOS)
    if kind == "header_image":
        return StoredAsset(kind, _store(partner, stem, "webp", _encode(image, "WEBP", quality=85)), {})
    # A raster logo's text cannot be measured: its aspect only (themes.logo assumes the rest).
    measure = LogoMeasure(round(image.width / image.height, 3), None)
    return StoredAsset(kind, _store(partner, stem, "png", _encode(image, "PNG", optimize=True)), {}, measure)


def mail_logo_url(*, schema_name: str, logo: str) -> str:
    """The logo a mail shows: an uploaded SVG's PNG copy when there is one (mail clients do
    not show SVG), otherwise the logo as configured."""
    match = re.fullmatch(r"/brand/(logo-[0-9a-f]{12})\.svg", logo)
    if match is None:
        return logo
    if default_storage.exists(f"{schema_name}/brand/{match.group(1)}.png"):
        return f"/brand/{match.group(1)}.png"
    return logo


def brand_asset_read(*, schema_name: str, name: str) -> tuple[bytes, str] | None:
    """The stored bytes and content type of `/brand/<name>` for the partner of the request."""
    if not re.fullmatch(r"[a-z0-9-]+-[0-9a-f]{12}\.(png|webp|svg|ico)", name):
        return None
    path = f"{schema_name}/brand/{name}"
    if not default_storage.exists(path):
        return None
    with default_storage.open(path, "rb") as handle:
        return handle.read(), CONTENT_TYPES[name.rsplit(".", 1)[1]]
