"""An SVG logo as PNG, for e-mails (mail clients do not show SVG).

Rendered by librsvg (GNOME's SVG renderer, the one most Linux desktops use) onto a cairo image
surface, through ctypes: both are C libraries of the base system (Debian: librsvg2-2, which
pulls in libcairo2); no Python binding of them is installed here. Only SVGs that passed
tenants.brand's allow-list are rendered, so there is nothing external to fetch. Without the
libraries `svg_png` returns None and mails keep the SVG's URL (a warning is logged).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import io
import logging
from typing import Any

from PIL import Image

logger = logging.getLogger(__name__)

CAIRO_FORMAT_ARGB32 = 0
MAX_SIDE = 4096


class _Dimensions(ctypes.Structure):
    _fields_ = [
        ("width", ctypes.c_int),
        ("height", ctypes.c_int),
        ("em", ctypes.c_double),
        ("ex", ctypes.c_double),
    ]


class _Rectangle(ctypes.Structure):
    _fields_ = [
        ("x", ctypes.c_double),
        ("y", ctypes.c_double),
        ("width", ctypes.c_double),
        ("height", ctypes.c_double),
    ]


def _library(name: str, soname: str) -> Any:
    path = ctypes.util.find_library(name) or soname
    return ctypes.CDLL(path)


@functools.cache
def _libraries() -> tuple[Any, Any, Any] | None:
    try:
        rsvg = _library("rsvg-2", "librsvg-2.so.2")
        cairo = _library("cairo", "libcairo.so.2")
        gobject = _library("gobject-2.0", "libgobject-2.0.so.0")
        rsvg.rsvg_handle_render_document  # noqa: B018 (librsvg 2.46 or newer)
    except (OSError, AttributeError) as exc:
        logger.warning("librsvg/cairo not available: SVG logos get no PNG copy for mails (%s)", exc)
        return None
    rsvg.rsvg_handle_new_from_data.restype = ctypes.c_void_p
    rsvg.rsvg_handle_new_from_data.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p]
    rsvg.rsvg_handle_get_dimensions.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Dimensions)]
    rsvg.rsvg_handle_render_document.restype = ctypes.c_int
    rsvg.rsvg_handle_render_document.argtypes = [
        ctypes.c_void_p,
        ctypes.c_void_p,
        ctypes.POINTER(_Rectangle),
        ctypes.c_void_p,
    ]
    cairo.cairo_image_surface_create.restype = ctypes.c_void_p
    cairo.cairo_image_surface_create.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
    cairo.cairo_create.restype = ctypes.c_void_p
    cairo.cairo_create.argtypes = [ctypes.c_void_p]
    cairo.cairo_surface_status.restype = ctypes.c_int
    cairo.cairo_surface_status.argtypes = [ctypes.c_void_p]
    cairo.cairo_surface_flush.argtypes = [ctypes.c_void_p]
    cairo.cairo_image_surface_get_data.restype = ctypes.POINTER(ctypes.c_ubyte)
    cairo.cairo_image_surface_get_data.argtypes = [ctypes.c_void_p]
    cairo.cairo_image_surface_get_stride.restype = ctypes.c_int
    cairo.cairo_image_surface_get_stride.argtypes = [ctypes.c_void_p]
    cairo.cairo_destroy.argtypes = [ctypes.c_void_p]
    cairo.cairo_surface_destroy.argtypes = [ctypes.c_void_p]
    gobject.g_object_unref.argtypes = [ctypes.c_void_p]
    return rsvg, cairo, gobject


def svg_png(svg: bytes, *, box: tuple[int, int]) -> bytes | None:
    """The SVG rendered to fit `box` (aspect kept, transparent background) as PNG bytes;
    None when librsvg is missing or cannot read the file."""
    libraries = _libraries()
    if libraries is None:
        return None
    rsvg, cairo, gobject = libraries
    handle = rsvg.rsvg_handle_new_from_data(svg, len(svg), None)
    if not handle:
        return None
    surface = context = None
    try:
        dimensions = _Dimensions()
        rsvg.rsvg_handle_get_dimensions(handle, ctypes.byref(dimensions))
        width, height = dimensions.width or box[0], dimensions.height or box[1]
        scale = min(box[0] / width, box[1] / height)
        out_w = max(1, min(MAX_SIDE, round(width * scale)))
        out_h = max(1, min(MAX_SIDE, round(height * scale)))
        surface = cairo.cairo_image_surface_create(CAIRO_FORMAT_ARGB32, out_w, out_h)
        if cairo.cairo_surface_status(surface) != 0:
            return None
        context = cairo.cairo_create(surface)
        viewport = _Rectangle(0.0, 0.0, float(out_w), float(out_h))
        if not rsvg.rsvg_handle_render_document(handle, context, ctypes.byref(viewport), None):
            return None
        cairo.cairo_surface_flush(surface)
        stride = cairo.cairo_image_surface_get_stride(surface)
        data = ctypes.string_at(cairo.cairo_image_surface_get_data(surface), stride * out_h)
        # cairo's ARGB32 is premultiplied, native-endian: B, G, R, A in memory on x86 and ARM.
        image = Image.frombuffer("RGBA", (out_w, out_h), data, "raw", "BGRa", stride, 1)
        out = io.BytesIO()
        image.save(out, format="PNG", optimize=True)
        return out.getvalue()
    finally:
        if context:
            cairo.cairo_destroy(context)
        if surface:
            cairo.cairo_surface_destroy(surface)
        gobject.g_object_unref(handle)
