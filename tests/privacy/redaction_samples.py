"""Realistic ZB I samples (tests/fixtures/zlb/realistic.py) with the truth of where the holder's
name and address and the VIN ended up in the picture.

Each sample is drawn three times from the same random state: as it is, with the holder's
fields (C.1.1-C.1.3) left out, and with the VIN (E) left out; every random draw happens in the
same order, so the pictures differ only where those values were printed."""

from __future__ import annotations

import random
from collections.abc import ItemsView
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image

from tests.fixtures.zlb import realistic

HOLDER = ("C.1.1", "C.1.2", "C.1.3")


class _Blanked(dict[str, str]):
    """The values with some fields printed as spaces (same draws, no ink). render_form still
    reads the city from C.1.3 for the seal, so item access answers the real value."""

    def __init__(self, values: dict[str, str], blank: tuple[str, ...]):
        super().__init__(values)
        self.blank = blank

    def items(self) -> ItemsView[str, str]:  # type: ignore[override]
        return {
            k: ("".join(" " if c != "\n" else c for c in v) if k in self.blank else v)
            for k, v in super().items()
        }.items()


@dataclass(frozen=True)
class Truth:
    data: bytes  # the upload
    holder: np.ndarray  # bool mask (picture size before intake) of the holder's ink
    vin: np.ndarray  # bool mask of the VIN's ink
    name: str


def _picture(seed: int, kind: str, blank: tuple[str, ...]) -> Any:
    rng = random.Random(f"zb1-{kind}-{seed}")
    car = realistic.vehicle(rng)
    values: dict[str, str] = _Blanked(car.values, blank) if blank else car.values
    page = realistic.render_form(rng, values)
    if kind == "pdf":
        a4 = Image.new("RGB", (2480, 3508), (246, 246, 244))
        doc = page.resize(
            (2480 - 200, round((2480 - 200) * page.height / page.width)), Image.Resampling.LANCZOS
        )
        a4.paste(doc, (rng.randint(40, 140), rng.randint(40, 200)))
        return a4, car
    image = realistic.photograph(rng, page, quality="scan" if kind == "scan" else kind)
    image, _ = realistic.turned(rng, image, {"scan": 0.1, "phone": 0.35, "poor": 0.35}[kind])
    return image, car


def _ink(a: Image.Image, b: Image.Image) -> np.ndarray:
    diff = np.abs(np.asarray(a.convert("L"), np.int16) - np.asarray(b.convert("L"), np.int16))
    return diff > 45


def sample(seed: int, kind: str) -> Truth:
    full, car = _picture(seed, kind, ())
    without_holder, _ = _picture(seed, kind, HOLDER)
    without_vin, _ = _picture(seed, kind, ("E",))
    data = realistic.encode(full, "jpeg", quality=90)
    return Truth(data, _ink(full, without_holder), _ink(full, without_vin), f"{kind}-{seed}")


def at_size(mask: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The mask at the stored picture's size (intake scales the picture down)."""
    image = Image.fromarray(mask.astype(np.uint8) * 255).resize(size, Image.Resampling.BOX)
    return np.asarray(image) > 127
