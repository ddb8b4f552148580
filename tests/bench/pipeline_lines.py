"""VIN lines for the line network as the reader cuts them: a ZB I page drawn by the bench's
generator with its values in one of the training fonts (never the test documents' fonts),
photographed, found and straightened by the reader (geometry.straighten) and E cut out of the
value layer by the reader's own `_field_crop`, prepared as `line_model.read_line` prepares it.

train_line_model's own lines are a drawn line degraded; these carry what the pipeline does to
a line as well (a box border or a neighbour's value in the cut, the page straightened a little
off, the value layer's thresholds). The VIN on each page is 17 random characters of the VIN
alphabet (not the bench's makers' WMIs: the network is not to learn the test set's makers).

    python -m tests.bench.pipeline_lines 0 6000 var/pipeline-lines.npz --fonts var/glyph-fonts/usr/share/fonts
    manage.py train_line_model --crops var/pipeline-lines.npz ...

About 1 s per page on one core; every core is used. Not collected by pytest.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from multiprocessing import Pool
from pathlib import Path

import numpy as np

QUALITIES = (("poor", 0.7), ("phone", 0.3))
JPEG = {"phone": (70, 92), "poor": (35, 60)}


def _setup() -> None:
    """Django set up (in the command and in each worker process, however it was started), with
    registrations.ocr's thread limits."""
    root = Path(__file__).resolve().parents[2]
    sys.path[:0] = [p for p in (str(root), str(root / "platform")) if p not in sys.path]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django  # noqa: PLC0415

    django.setup()
    from registrations import ocr  # noqa: F401, PLC0415


def page_line(seed: int, fonts: list[Path]) -> tuple[np.ndarray, int, str] | None:
    """The prepared E line of page `seed` and its VIN, or None where the reader finds no grid
    or no ink in the box (as the reader would read nothing there)."""
    import io  # noqa: PLC0415

    from PIL import Image  # noqa: PLC0415

    from registrations import geometry, line_model, reader  # noqa: PLC0415
    from tests.fixtures.zlb import realistic  # noqa: PLC0415

    rng = random.Random(f"pipeline-line-{seed}")
    car = realistic.vehicle(rng)
    vin = "".join(rng.choice(line_model.ALPHABET) for _ in range(17))
    values = {**car.values, "E": vin}
    page = realistic.render_form(rng, values, typewriter=rng.choice(fonts))
    quality = rng.choices([q for q, _ in QUALITIES], [s for _, s in QUALITIES])[0]
    photo = realistic.photograph(rng, page, quality=quality)
    jpeg = Image.open(io.BytesIO(realistic.encode(photo, "jpeg", quality=rng.randint(*JPEG[quality]))))
    found = geometry.straighten(jpeg.convert("RGB"))
    if found.grid < reader.GRID_WEAK:
        return None
    flat = found.flat if found.flat is not None else geometry.flatten_light(found.image)
    layers = reader.page_layers(flat)
    crop = reader._field_crop(layers.values, "E", layers.offset)
    prepared = line_model.prepare(crop)
    if prepared is None:
        return None
    return (prepared[0] * 255).round().astype(np.uint8), prepared[1], vin


def _chunk(args: tuple[int, int, list[Path]]) -> list[tuple[np.ndarray, int, str]]:
    begin, end, fonts = args
    return [line for seed in range(begin, end) if (line := page_line(seed, fonts)) is not None]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("first", type=int)
    parser.add_argument("count", type=int)
    parser.add_argument("out", type=Path)
    parser.add_argument(
        "--fonts", type=Path, required=True, help="where the training fonts' share/fonts tree is"
    )
    options = parser.parse_args(argv)
    _setup()
    from django.core.management.base import CommandError  # noqa: PLC0415

    from registrations.management.commands.train_line_model import line_fonts  # noqa: PLC0415

    try:
        fonts = line_fonts(options.fonts)
    except CommandError as error:
        sys.exit(str(error))
    step = 50
    tasks = [
        (b, min(b + step, options.first + options.count), fonts)
        for b in range(options.first, options.first + options.count, step)
    ]
    lines: list[tuple[np.ndarray, int, str]] = []
    with Pool(os.cpu_count(), initializer=_setup) as workers:
        for done in workers.imap(_chunk, tasks):
            lines += done
            print(f"{len(lines)} lines", flush=True)
    options.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        options.out,
        inputs=np.array([line[0] for line in lines]),
        widths=np.array([line[1] for line in lines]),
        texts=np.array([line[2] for line in lines]),
    )
    print(f"{len(lines)} of {options.count} pages gave a line; wrote {options.out}")


if __name__ == "__main__":
    main()
