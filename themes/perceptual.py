"""Perceptual colour difference (CIEDE2000 in CIELAB) and the status colours kept apart from a
partner's brand colour.

MUI draws a focused field's outline in the primary colour and a field in error in the error
colour: with a red brand (the utility demo partner's #c81e1e against MUI's error #d32f2f,
CIEDE2000 about 4) a focused, empty field looks like an error. The compiler therefore moves
each status colour (error, warning, success) that is too close to the primary to the nearest
shade of its own hue family that is at least STATUS_DISTANCE away and still reads on white.

Pure functions, no Django: the compiler, its golden tests and the Storybook checks use them.
"""

from __future__ import annotations

import math
from functools import lru_cache

from themes.contrast import NORMAL_TEXT_RATIO, contrast_ratio

# CIEDE2000 between a status colour and the primary. About 2.3 is a just-noticeable
# difference; two colours 10 apart are plainly different shades of one colour; from 20 on they
# are read as different colours side by side (red #d32f2f vs orange #ed6c02 is 23). 20 it is.
STATUS_DISTANCE = 20.0
# MUI's defaults (createPalette): what a partner whose brand is far from them keeps.
STATUS_DEFAULTS = {"error": "#d32f2f", "warning": "#ed6c02", "success": "#2e7d32"}
# How far (degrees of CIELAB hue) a status colour may turn to get away from the primary:
# an error stays a red (crimson to vermilion), a success a green, a warning an orange/amber.
HUE_BAND = 30
Lab = tuple[float, float, float]


def _linear(channel: float) -> float:
    return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4


def _gamma(channel: float) -> float:
    return 12.92 * channel if channel <= 0.0031308 else 1.055 * channel ** (1 / 2.4) - 0.055


# D65 white of sRGB
_WHITE = (0.95047, 1.0, 1.08883)


def _f(t: float) -> float:
    return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29


def _f_inverse(t: float) -> float:
    return t**3 if t > 6 / 29 else 3 * (6 / 29) ** 2 * (t - 4 / 29)


def hex_lab(value: str) -> Lab:
    digits = value.lstrip("#")
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    r, g, b = (_linear(int(digits[i : i + 2], 16) / 255) for i in (0, 2, 4))
    x = 0.4124564 * r + 0.3575761 * g + 0.1804375 * b
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = 0.0193339 * r + 0.1191920 * g + 0.9503041 * b
    fx, fy, fz = _f(x / _WHITE[0]), _f(y / _WHITE[1]), _f(z / _WHITE[2])
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def lab_hex(lab: Lab) -> str | None:
    """The sRGB hex of a Lab colour, or None outside the sRGB gamut."""
    lightness, a, b = lab
    fy = (lightness + 16) / 116
    x = _WHITE[0] * _f_inverse(fy + a / 500)
    y = _WHITE[1] * _f_inverse(fy)
    z = _WHITE[2] * _f_inverse(fy - b / 200)
    rgb = (
        3.2404542 * x - 1.5371385 * y - 0.4985314 * z,
        -0.9692660 * x + 1.8760108 * y + 0.0415560 * z,
        0.0556434 * x - 0.2040259 * y + 1.0572252 * z,
    )
    if any(c < -0.0005 or c > 1.0005 for c in rgb):
        return None
    return "#" + "".join(f"{round(min(max(_gamma(min(max(c, 0.0), 1.0)), 0.0), 1.0) * 255):02x}" for c in rgb)


def ciede2000(first: Lab, second: Lab) -> float:
    """CIEDE2000 colour difference (Sharma, Wu, Dalal 2005), k_L = k_C = k_H = 1."""
    l1, a1, b1 = first
    l2, a2, b2 = second
    c_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_mean**7 / (c_mean**7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dl = l2 - l1
    dc = c2p - c1p
    if c1p * c2p == 0:
        dh = 0.0
    elif abs(h2p - h1p) <= 180:
        dh = h2p - h1p
    elif h2p - h1p > 180:
        dh = h2p - h1p - 360
    else:
        dh = h2p - h1p + 360
    d_hue = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    l_mean = (l1 + l2) / 2
    cp_mean = (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_mean = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_mean = (h1p + h2p) / 2
    elif h1p + h2p < 360:
        h_mean = (h1p + h2p + 360) / 2
    else:
        h_mean = (h1p + h2p - 360) / 2
    t = (
        1
        - 0.17 * math.cos(math.radians(h_mean - 30))
        + 0.24 * math.cos(math.radians(2 * h_mean))
        + 0.32 * math.cos(math.radians(3 * h_mean + 6))
        - 0.20 * math.cos(math.radians(4 * h_mean - 63))
    )
    d_theta = 30 * math.exp(-(((h_mean - 275) / 25) ** 2))
    r_c = 2 * math.sqrt(cp_mean**7 / (cp_mean**7 + 25**7))
    s_l = 1 + 0.015 * (l_mean - 50) ** 2 / math.sqrt(20 + (l_mean - 50) ** 2)
    s_c = 1 + 0.045 * cp_mean
    s_h = 1 + 0.015 * cp_mean * t
    r_t = -math.sin(math.radians(2 * d_theta)) * r_c
    return math.sqrt(
        (dl / s_l) ** 2 + (dc / s_c) ** 2 + (d_hue / s_h) ** 2 + r_t * (dc / s_c) * (d_hue / s_h)
    )


def colour_distance(first: str, second: str) -> float:
    """CIEDE2000 between two '#rrggbb' colours."""
    return ciede2000(hex_lab(first[:7]), hex_lab(second[:7]))


@lru_cache(maxsize=256)
def distinct_shade(status: str, primary: str) -> str:
    """`status` itself when it is STATUS_DISTANCE or more from `primary`; otherwise the shade
    nearest to it (CIEDE2000) within its hue band (lightness and hue turned, chroma kept as
    far as the gamut allows) that is that far from the primary and keeps 4.5:1 on white (the
    error text under a field is body text). The search is a grid of 1-unit lightness and
    1-degree hue steps: about 5,000 candidates, once per configuration (cached)."""
    if colour_distance(status, primary) >= STATUS_DISTANCE:
        return status
    lightness, a, b = hex_lab(status)
    chroma = math.hypot(a, b)
    hue = math.degrees(math.atan2(b, a))
    target = hex_lab(primary[:7])
    original = (lightness, a, b)
    best: tuple[float, str] | None = None
    for hue_step in range(-HUE_BAND, HUE_BAND + 1):
        angle = math.radians(hue + hue_step)
        for value in range(10, 91):
            candidate: str | None = None
            scale = 1.0
            # the colour itself, or with less chroma where the gamut ends first
            while candidate is None and scale > 0.4:
                lab = (value, chroma * scale * math.cos(angle), chroma * scale * math.sin(angle))
                candidate = lab_hex(lab)
                scale -= 0.05
            if candidate is None:
                continue
            shade = hex_lab(candidate)
            if ciede2000(shade, target) < STATUS_DISTANCE:
                continue
            if contrast_ratio(candidate, "#ffffff") < NORMAL_TEXT_RATIO:
                continue
            distance = ciede2000(shade, original)
            if best is None or distance < best[0]:
                best = (distance, candidate)
    return best[1] if best else status


def status_palette(primary: str) -> dict[str, str]:
    """error, warning and success main colours kept apart from the partner's primary."""
    return {name: distinct_shade(colour, primary) for name, colour in STATUS_DEFAULTS.items()}
