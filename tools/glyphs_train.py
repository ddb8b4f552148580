"""Train the reader's character recogniser (platform/registrations/reader/glyphs.npz).

    .venv/bin/python tools/glyphs_train.py [--documents 560] [--processes 2]

1. Harvest: documents of the real layout (tests/fixtures/zlb/real) in every condition, drawn in
   the TUNED printer families and the training-only fonts (fonts.TRAINING_ONLY, drawn in no
   bench or test document; fonts.HELD_OUT is never rendered here, so the bench's held-out
   family stays a font the network has not seen), from seeds the bench does not use
   (HARVEST_SEED on). Each goes through the upload's intake and the reader's own stages (find,
   locate) to the located VIN and field 3, which glyphs.cells cuts into character cells; the
   cells are labelled with the document's expected values. A value that does not split into
   its number of cells is skipped. The located values are cached in var/glyphs/.
2. Train: one hidden layer (numpy, full batch Adam, a fixed seed), on the cells' features and on
   copies of them shifted by a pixel or with thinner or bolder strokes.

Deterministic: the same documents, the same seed, the same weights (on the same numpy and
OpenCV builds). The file is about 0.4 MB. The weights in the repository: --documents 560.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "platform"), str(ROOT)]

import django  # noqa: E402

HARVEST_SEED = 70_000  # the bench's documents use face seeds below 4,000
HIDDEN = 160
EPOCHS = 30
CACHE = ROOT / "var" / "glyphs"
VALIDATION = 0.15


def _setup() -> None:
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()


def located_values(data: bytes, codes: tuple[str, ...]) -> dict[str, Any]:
    """An upload through the intake and the reader's own stages (find, locate) to the located
    value (locate.Located) of each of `codes`; none where the intake refused it or a value was
    not located. tools/lines_train.py harvests with it too."""
    from registrations.intake import scan_prepare
    from registrations.reader import find, locate

    try:
        image = scan_prepare(data, min_size=500, max_pixels=40_000_000).image
    except Exception:  # noqa: BLE001 - a document the intake refuses gives no values
        return {}
    page = find.straighten(image)
    flat = page.flat if page.flat is not None else find.flatten_light(page.image)
    ink = locate.ink_layer(flat)
    cut = {code: locate.marks(ink, code) for code in {*locate.OFFSET_PROBES, *codes}}
    offset = locate.printer_offset(ink, cut)
    located = {}
    for code in codes:
        marks = cut.get(code)
        found = locate.line(marks, offset) if marks is not None else None
        if found is not None:
            located[code] = found
    return located


def harvest_one(job: tuple[int, str, str]) -> list[tuple[np.ndarray, str]]:
    """The located VIN and field 3 of one document with their printed values (none where the
    intake refused it or a value was not located)."""
    _setup()
    from tests.fixtures.zlb.real import documents

    seed, condition, family = job
    data, expected, _ = documents.real_document(seed, condition, family=family)
    located = located_values(data, ("E", "3"))
    return [(located[code].image, expected[code]) for code in ("E", "3") if code in located]


def labelled_cells(
    values: list[tuple[np.ndarray, str]], variants: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Each located value as cut, with thinner and bolder strokes and a little blurred, cut
    into its cells (glyphs.cells) and labelled; a value that does not split is skipped."""
    from registrations.reader import glyphs

    kernel = np.ones((2, 2), np.uint8)
    cells: list[np.ndarray] = []
    labels: list[str] = []
    for image, text in values:
        if len(text) > 1 and not _is_the_value(image, text):
            continue  # locate cut another row's value (a poor photo): its cells are not the VIN's
        for variant in (
            (
                image,
                cv2.dilate(image, kernel),  # white grows: thinner strokes
                cv2.erode(image, kernel),  # bolder
                cv2.GaussianBlur(image, (0, 0), 0.9),
            )
            if variants
            else (image,)
        ):
            found = glyphs.cells(variant, len(text))
            if found is not None:
                cells += found
                labels += list(text)
    return np.stack(cells).astype(np.float32), np.array(labels)


def _is_the_value(image: np.ndarray, text: str) -> bool:
    """Tesseract's read of the cut is at least half like the printed VIN (a cut of another
    row reads nothing like it; a VIN Tesseract misreads at a few places still counts)."""
    import difflib

    from registrations.reader import read, validate

    found = validate.vin_text(read.tesseract("E", image, 1.5).text)
    return difflib.SequenceMatcher(None, found, text, autojunk=False).ratio() >= 0.5


def harvest(count: int, processes: int) -> list[tuple[np.ndarray, str]]:
    import pickle

    from tests.fixtures.zlb.real import documents, fonts

    tuned = [f.name for f in fonts.available() if not f.held_out]
    if len(tuned) < 4:
        raise SystemExit(f"printer fonts missing: {fonts.missing_reason()}")
    tuned += [f.name for f in fonts.TRAINING_ONLY if fonts.font_path(f).exists()]
    jobs = [
        (HARVEST_SEED + i, documents.CONDITIONS[i % 4], tuned[(i // 4) % len(tuned)]) for i in range(count)
    ]
    key = hashlib.sha256(repr((jobs, _source_key())).encode()).hexdigest()[:12]
    cached = CACHE / f"values-{key}.pickle"
    if cached.exists():
        return pickle.loads(cached.read_bytes())  # noqa: S301 - our own cache under var/
    values: list[tuple[np.ndarray, str]] = []
    start = time.perf_counter()
    with Pool(processes) as pool:
        for n, found in enumerate(pool.imap(harvest_one, jobs), 1):
            values += found
            if n % 20 == 0:
                print(f"  {n}/{count} documents, {len(values)} values, {time.perf_counter() - start:.0f} s")
    CACHE.mkdir(parents=True, exist_ok=True)
    cached.write_bytes(pickle.dumps(values))
    return values


def _source_key() -> str:
    """The located values depend on the reader's stages up to locate and on the generator."""
    parts = [ROOT / "platform/registrations/reader" / name for name in ("find.py", "locate.py")]
    parts += sorted((ROOT / "tests/fixtures/zlb/real").glob("*.py"))
    return hashlib.sha256(b"".join(p.read_bytes() for p in parts)).hexdigest()


def shifted(cells: np.ndarray, dx: int, dy: int) -> np.ndarray:
    return np.roll(np.roll(cells, dx, axis=2), dy, axis=1)


def train(x: np.ndarray, y: np.ndarray, classes: str, seed: int = 45) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-3
    xs = (x - mean) / scale
    n, d = xs.shape
    k = len(classes)
    w1 = rng.normal(0, np.sqrt(2 / d), (d, HIDDEN)).astype(np.float32)
    b1 = np.zeros(HIDDEN, np.float32)
    w2 = rng.normal(0, np.sqrt(2 / HIDDEN), (HIDDEN, k)).astype(np.float32)
    b2 = np.zeros(k, np.float32)
    params = [w1, b1, w2, b2]
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    onehot = np.eye(k, dtype=np.float32)[y]
    # classes weighed by their rarity: a VIN's letters are rarer than its digits
    counts = np.bincount(y, minlength=k).astype(np.float32)
    weight = (n / (k * np.maximum(counts, 1)))[y][:, None] ** 0.5
    rate, decay, batch = 2e-3, 1e-4, 1024
    step = 0
    for epoch in range(EPOCHS):
        order = rng.permutation(n)
        for start in range(0, n, batch):
            idx = order[start : start + batch]
            hidden_in = xs[idx] @ w1 + b1
            hidden = np.maximum(0, hidden_in)
            logits = hidden @ w2 + b2
            logits -= logits.max(axis=1, keepdims=True)
            p = np.exp(logits)
            p /= p.sum(axis=1, keepdims=True)
            grad_logits = (p - onehot[idx]) * weight[idx] / len(idx)
            g_w2 = hidden.T @ grad_logits + decay * w2
            g_b2 = grad_logits.sum(axis=0)
            g_hidden = (grad_logits @ w2.T) * (hidden_in > 0)
            g_w1 = xs[idx].T @ g_hidden + decay * w1
            g_b1 = g_hidden.sum(axis=0)
            step += 1
            for i, g in enumerate((g_w1, g_b1, g_w2, g_b2)):
                moments[i] = 0.9 * moments[i] + 0.1 * g
                squares[i] = 0.999 * squares[i] + 0.001 * g * g
                m = moments[i] / (1 - 0.9**step)
                v = squares[i] / (1 - 0.999**step)
                params[i] -= (rate * m / (np.sqrt(v) + 1e-8)).astype(np.float32)
        if epoch % 5 == 0 or epoch == EPOCHS - 1:
            hidden = np.maximum(0, xs @ w1 + b1)
            accuracy = float(((hidden @ w2 + b2).argmax(axis=1) == y).mean())
            print(f"  epoch {epoch}: training accuracy {accuracy:.4f}")
    return {"mean": mean, "scale": scale, "w1": w1, "b1": b1, "w2": w2, "b2": b2}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--documents", type=int, default=560)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "platform/registrations/reader/glyphs.npz")
    args = parser.parse_args()
    _setup()
    from registrations.reader import glyphs

    values = harvest(args.documents, args.processes)
    # the last documents' values are kept apart: the network's accuracy on cells it was not
    # trained on (tuned families; the held-out family is measured by the bench only)
    split = round(len(values) * (1 - VALIDATION))
    cells, labels = labelled_cells(values[:split])
    print(f"{len(labels)} cells from {split} values of {args.documents} documents")
    classes = glyphs.CLASSES
    augmented = [cells] + [shifted(cells, dx, dy) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    x = np.stack([glyphs.features(c) for part in augmented for c in part])
    y = np.tile(np.array([classes.index(c) for c in labels]), len(augmented))
    weights = train(x, y, classes)
    if split < len(values):
        check_cells, check_labels = labelled_cells(values[split:], variants=False)
        model = glyphs.Network(**weights, classes=classes)
        guessed = model.probabilities(np.stack([glyphs.features(c) for c in check_cells])).argmax(axis=1)
        right = np.array([classes[g] for g in guessed]) == check_labels
        print(f"validation: {right.mean():.4f} of {len(check_labels)} cells right")
        confused: dict[tuple[str, str], int] = {}
        for g, want in zip(guessed, check_labels, strict=True):
            if classes[g] != want:
                confused[(want, classes[g])] = confused.get((want, classes[g]), 0) + 1
        print("  most confused (printed, read):", sorted(confused.items(), key=lambda kv: -kv[1])[:12])
    arrays: dict[str, Any] = {k: v.astype(np.float32) for k, v in weights.items()}
    np.savez_compressed(args.out, classes=np.array(classes), **arrays)
    print(f"written {args.out} ({args.out.stat().st_size / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
