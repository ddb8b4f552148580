"""WCAG 2.2 contrast of a partner's colours, checked where the configuration is saved.

The pairs are the ones the web app actually draws (web/src/shared/ui, the MUI theme of
themes.compiler): button text on the button, body text on the page and on the desktop box,
links (their own colour, colors.link) on both, and the white step number in the circle. Each pair is charged to one configuration field, the one whose shade we suggest
changing: the partner's brand colour rather than the white of the text on it.

Pure functions, no Django: the admin form, `config_clean` and the tests use the same code.
"""

from __future__ import annotations

import colorsys
import math
from dataclasses import dataclass
from typing import Any

PAGE_BACKGROUND = "#ffffff"  # MUI palette background.default (themes.compiler._palette)
CIRCLE_DIGIT = "#ffffff"  # web/src/shared/ui/steps.tsx draws the step numbers in white
NORMAL_TEXT_RATIO = 4.5  # WCAG 2.2 SC 1.4.3 (AA)
LARGE_TEXT_RATIO = 3.0
BUTTON_TEXT_PX = 16.0  # typography.button: 1rem, bold
CIRCLE_DIGIT_PX = 16.0  # steps.tsx: body size, weight 700
BODY_TEXT_PX = 16.0


def is_large_text(size_px: float, bold: bool) -> bool:
    """WCAG's large text: at least 18 pt (24 px), or 14 pt (18.66 px) bold."""
    return size_px >= 24 or (bold and size_px >= 18.66)


def required_ratio(size_px: float, bold: bool) -> float:
    return LARGE_TEXT_RATIO if is_large_text(size_px, bold) else NORMAL_TEXT_RATIO


def _rgba(value: str) -> tuple[float, float, float, float]:
    digits = value.lstrip("#")
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    channels = [int(digits[i : i + 2], 16) / 255 for i in range(0, len(digits), 2)]
    alpha = channels[3] if len(channels) == 4 else 1.0
    return channels[0], channels[1], channels[2], alpha


def _over(
    colour: tuple[float, float, float, float], backdrop: tuple[float, float, float]
) -> tuple[float, float, float]:
    r, g, b, a = colour
    return (r * a + backdrop[0] * (1 - a), g * a + backdrop[1] * (1 - a), b * a + backdrop[2] * (1 - a))


def _luminance(rgb: tuple[float, float, float]) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _opaque(value: str, backdrop: str = PAGE_BACKGROUND) -> tuple[float, float, float]:
    """A colour as it ends on screen: a translucent one is blended over its backdrop."""
    base = _rgba(backdrop)
    return _over(_rgba(value), (base[0], base[1], base[2]))


def contrast_ratio(foreground: str, background: str) -> float:
    """(L1 + 0.05) / (L2 + 0.05); the background is blended over the white page first."""
    back = _opaque(background)
    front = _over(_rgba(foreground), back)
    lighter, darker = sorted((_luminance(front), _luminance(back)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def ratio_text(ratio: float) -> str:
    """Rounded down, so 4.496 is never shown as a passing '4.50'."""
    return f"{math.floor(ratio * 100) / 100:.2f}".replace(".", ",")


@dataclass(frozen=True)
class Pair:
    field: str  # the colour field charged with the pair (config path under colors)
    label: str  # German, for the message
    foreground: str  # a colour field name, or a literal '#rrggbb'
    background: str
    size_px: float
    bold: bool

    @property
    def required(self) -> float:
        return required_ratio(self.size_px, self.bold)


PAIRS: tuple[Pair, ...] = (
    Pair(
        "button",
        "Schrift der Schaltfläche auf der Schaltfläche",
        "button_text",
        "button",
        BUTTON_TEXT_PX,
        True,
    ),
    Pair(
        "desktop_button",
        "Schrift der Schaltfläche auf der Desktop-Schaltfläche",
        "button_text",
        "desktop_button",
        BUTTON_TEXT_PX,
        True,
    ),
    Pair("text", "Text auf dem Seitenhintergrund", "text", PAGE_BACKGROUND, BODY_TEXT_PX, False),
    Pair("text", "Text auf der Desktop-Box", "text", "desktop_box", BODY_TEXT_PX, False),
    # Links have their own colour (colors.link): a light button with dark text on it passes
    # its pair, and only the link is darkened when it is too pale on the page.
    Pair("link", "Linkfarbe auf dem Seitenhintergrund", "link", PAGE_BACKGROUND, BODY_TEXT_PX, False),
    Pair("link", "Linkfarbe auf der Desktop-Box", "link", "desktop_box", BODY_TEXT_PX, False),
    Pair("circle", "Ziffer (weiß) im Kreis", CIRCLE_DIGIT, "circle", CIRCLE_DIGIT_PX, True),
)


@dataclass(frozen=True)
class ContrastProblem:
    field: str  # 'colors.button'
    label: str
    foreground: str
    background: str
    ratio: float
    required: float
    suggestion: str | None  # the nearest shade of the field's colour that passes every pair

    @property
    def message(self) -> str:
        text = (
            f"Zu wenig Kontrast: {self.label} ({self.foreground} auf {self.background}) hat "
            f"{ratio_text(self.ratio)}:1, nötig sind mindestens {ratio_text(self.required)}:1 (WCAG 2.2 AA)."
        )
        if self.suggestion:
            text += f" Nächster passender Farbton: {self.suggestion}."
        else:
            text += " Kein Farbton dieser Farbe erfüllt alle ihre Paare: bitte die Gegenfarbe ändern."
        return text


def _resolve(colors: dict[str, str], name: str) -> str:
    return name if name.startswith("#") else colors[name]


def _pair_ratio(colors: dict[str, str], pair: Pair) -> float:
    return contrast_ratio(_resolve(colors, pair.foreground), _resolve(colors, pair.background))


def _hex(rgb: tuple[float, float, float]) -> str:
    return "#" + "".join(f"{round(min(max(c, 0.0), 1.0) * 255):02x}" for c in rgb)


def nearest_passing_shade(colors: dict[str, str], field: str) -> str | None:
    """Same hue and saturation, the smallest change of lightness with which every pair
    charged to `field` passes (the other colours as they are). None if no lightness does."""
    pairs = [pair for pair in PAIRS if pair.field == field]
    h, lightness, s = colorsys.rgb_to_hls(*_opaque(colors[field]))

    def passes(candidate: str) -> bool:
        trial = {**colors, field: candidate}
        return all(_pair_ratio(trial, pair) >= pair.required for pair in pairs)

    best: tuple[float, str] | None = None
    for direction in (-1, 1):
        step = 0
        while True:
            step += 1
            value = lightness + direction * step / 1000
            if not 0 <= value <= 1:
                break
            candidate = _hex(colorsys.hls_to_rgb(h, value, s))
            if passes(candidate):
                distance = abs(value - lightness)
                if best is None or distance < best[0]:
                    best = (distance, candidate)
                break
    return best[1] if best else None


def contrast_problems(config: dict[str, Any]) -> list[ContrastProblem]:
    """Every pair below its WCAG minimum, in PAIRS order. `config` is normalised (every
    colour present, lower-case hex)."""
    colors: dict[str, str] = dict(config.get("colors") or {})
    problems: list[ContrastProblem] = []
    suggestions: dict[str, str | None] = {}
    for pair in PAIRS:
        ratio = _pair_ratio(colors, pair)
        if ratio >= pair.required:
            continue
        if pair.field not in suggestions:
            suggestions[pair.field] = nearest_passing_shade(colors, pair.field)
        problems.append(
            ContrastProblem(
                field=f"colors.{pair.field}",
                label=pair.label,
                foreground=_resolve(colors, pair.foreground),
                background=_resolve(colors, pair.background),
                ratio=ratio,
                required=pair.required,
                suggestion=suggestions[pair.field],
            )
        )
    return problems


def contrast_errors(config: dict[str, Any]) -> dict[str, list[str]]:
    """The problems as field-level messages, in the shape of ConfigErrors.errors."""
    errors: dict[str, list[str]] = {}
    for problem in contrast_problems(config):
        errors.setdefault(problem.field, []).append(problem.message)
    return errors
