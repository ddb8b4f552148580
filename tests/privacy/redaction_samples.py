"""ZB I samples of the real layout (tests/fixtures/zlb/real) with the truth of where the holder's
name and address and the VIN ended up in the picture.

Each sample is drawn four times from the same random state: as it is, with the holder's
fields (C1.1-C1.3) printed as spaces, with the VIN (E) printed as spaces, and with every value of
the two vehicle panels printed as spaces; every random draw happens in the same order, so the
pictures differ only where those values were printed."""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
from PIL import Image

from tests.fixtures.zlb import generate
from tests.fixtures.zlb.real import conditions, documents, render, values

HOLDER = ("C1.1", "C1.2", "C1.3")
LEFT_PANEL = (*HOLDER, "A", "I")  # the holder panel's values: everything else is vehicle data


@dataclass(frozen=True)
class Truth:
    data: bytes  # the upload
    holder: np.ndarray  # bool mask (picture size before intake) of the holder's ink
    vin: np.ndarray  # bool mask of the VIN's ink
    vehicle: np.ndarray  # bool mask of the ink of every value of the middle and right panels
    name: str


def _blank(text: str) -> str:
    return "".join(" " if c != "\n" else c for c in text)


def _picture(seed: int, kind: str, blank: tuple[str, ...]) -> Image.Image:
    rng = random.Random(f"zb1-real-{seed}")
    document = values.document_values(rng, energy="0004")
    printed = {k: (_blank(v) if k in blank else v) for k, v in document.values.items()}
    variant = documents.variant_for(seed, None, rng)
    variant = render.Variant(variant.family, variant.generation, variant.subtitle, False)
    page = render.face(rng, values.Document(printed, document.expected), variant)
    return conditions.photograph(random.Random(f"zb1-real-{kind}-{seed}"), page, quality=kind)


def _ink(a: Image.Image, b: Image.Image) -> np.ndarray:
    diff = np.abs(np.asarray(a.convert("L"), np.int16) - np.asarray(b.convert("L"), np.int16))
    return diff > 45


def sample(seed: int, kind: str) -> Truth:
    full = _picture(seed, kind, ())
    without_holder = _picture(seed, kind, HOLDER)
    without_vin = _picture(seed, kind, ("E",))
    codes = values.document_values(random.Random(f"zb1-real-{seed}"), energy="0004").values
    without_vehicle = _picture(seed, kind, tuple(code for code in codes if code not in LEFT_PANEL))
    data = generate.encode(full, "jpeg", quality=90)
    return Truth(
        data,
        _ink(full, without_holder),
        _ink(full, without_vin),
        _ink(full, without_vehicle),
        f"{kind}-{seed}",
    )


def at_size(mask: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The mask at the stored picture's size (intake scales the picture down)."""
    image = Image.fromarray(mask.astype(np.uint8) * 255).resize(size, Image.Resampling.BOX)
    return np.asarray(image) > 127
