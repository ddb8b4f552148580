"""A third reader for the printer's values: the line cut into its monospace cells, each cell
read by a small classifier of blurred glyphs.

The ZB I's values are printed in a monospace font: every character takes the same width, so a
value of known length (a VIN's 17 places, a date's 10, code 10's 4) is a row of equal cells.
Both OCR engines read a blurred photo's line as a whole and take a blurred 5 for an S, a 0 for
a G, often both alike; a classifier that saw such blur in training tells them apart much
better (bench poor photos: VINs read exactly 2 of 29 by Tesseract, 4 by RapidOCR, 13 by this
reader; measured before it took part).

Two classifiers read each cell and their probabilities are averaged (Ensemble): a two-layer
perceptron over the cell's 16 x 24 grey pixels and a small convolutional network, both numpy
only, trained by `manage.py train_glyph_model` on lines of 20 monospace fonts from Debian
packages, degraded as photos degrade them (blur, a small picture, JPEG, noise, faint ink,
border remnants and specks; the network's lines blurred further and tilted). Together they
read more VINs right than either (bench and held-out poor photos, seeds 0-139: 30 of 58
against 26 and 26) and, more to the point, are sure only where they are right (poor photos of
seeds 0-179: every valid VIN whose least sure cell they gave 0.75 or more, 31, was right, the
surest wrong one had 0.748; the perceptron alone gave 0.96 to a wrong one). The fonts the test
documents are printed in (Liberation Mono, DejaVu Sans Mono and the fonts drawn from them) were
left out of training: the bench measures how it reads a font it has never seen, as it will read
the authorities' printers.

Where the cells lie is decided by reading: the pitches and starts the ink's column profile
allows are tried, and the one whose cells the classifier reads most surely is kept (a box
border beside the value, a value run off its box, a horizontal border under it).
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import NamedTuple, Self

import cv2
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from registrations import ocr

GLYPHS = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789."
CELL_W, CELL_H = 16, 24
MODEL = Path(__file__).with_name("glyph_model.npz")
CONV_MODEL = Path(__file__).with_name("glyph_conv.npz")
DEEP_MODEL = Path(__file__).with_name("glyph_deep.npz")
TEXT_HEIGHT = 22  # page pixels (10 per mm): the values' line, for finding its rows
HYPOTHESES = 40  # cell rows read, the best by the ink profile
# cells read at once (every cell placement's cells in a few products per layer, not one call per
# placement); bounds the network's largest intermediate array to about 14 MB
BATCH = 256
BLANK_PENALTY = 5.0  # a cell with no ink is not a character of the value
# _settled: how far (pixels at the page's scale, about a fifth of a VIN's cell) a cell may move
# from the comb, and what a pixel's move away from its neighbour's costs (log likelihood)
SETTLE = 4
SETTLE_COST = 1.0
# each cell's likeliest characters kept as its alternatives: enough for the reader to weigh
# every VIN a rule allows (a digit the classifier ranked fifth behind letters)
ALTERNATIVES = 6


class Model:
    """The perceptron's layers (ReLU between them, softmax at the end)."""

    def __init__(self, weights: list[np.ndarray], biases: list[np.ndarray]) -> None:
        self.weights = [w.astype(np.float32) for w in weights]
        self.biases = [b.astype(np.float32) for b in biases]

    @classmethod
    def load(cls, path: Path) -> Model:
        with np.load(path) as data:
            count = len(data.files) // 2
            return cls([data[f"w{i}"] for i in range(count)], [data[f"b{i}"] for i in range(count)])

    def save(self, path: Path) -> None:
        arrays = {f"w{i}": w.astype(np.float16) for i, w in enumerate(self.weights)}
        arrays.update({f"b{i}": b.astype(np.float16) for i, b in enumerate(self.biases)})
        np.savez_compressed(path, **arrays)  # type: ignore[arg-type]

    def proba(self, features: np.ndarray) -> np.ndarray:
        out = features
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            out = out @ w + b
            if i < len(self.weights) - 1:
                out = np.maximum(out, 0)
        return softmax(out)


def softmax(logits: np.ndarray) -> np.ndarray:
    """Each row's probabilities (the largest logit taken off first: no overflow)."""
    out = np.exp(logits - logits.max(axis=1, keepdims=True))
    return out / out.sum(axis=1, keepdims=True)


def im2col(x: np.ndarray) -> np.ndarray:
    """The 3 x 3 neighbourhoods (zero beyond the edge) of every pixel of `x` (N, H, W, C) as
    rows (N * H * W, 9 * C), channels first: a convolution is then one matrix product."""
    n, h, w, c = x.shape
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    return sliding_window_view(padded, (3, 3), axis=(1, 2)).reshape(n * h * w, c * 9)


def pool(x: np.ndarray) -> np.ndarray:
    """2 x 2 max pooling of (N, H, W, C)."""
    n, h, w, c = x.shape
    return x.reshape(n, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))


class NamedParams:
    """A network's parameters by name, as its file stores them (float16 on disk, float32 in use)."""

    names: tuple[str, ...] = ()

    def __init__(self, params: list[np.ndarray]) -> None:
        self.params = [p.astype(np.float32) for p in params]

    @classmethod
    def load(cls, path: Path) -> Self:
        with np.load(path) as data:
            return cls([data[name] for name in cls.names])

    def save(self, path: Path) -> None:
        arrays = {name: p.astype(np.float16) for name, p in zip(self.names, self.params, strict=True)}
        np.savez_compressed(path, **arrays)  # type: ignore[arg-type]


class ConvModel(NamedParams):
    """A small convolutional network: two 3 x 3 convolutions (ReLU, 2 x 2 max pooling after
    each), a hidden layer, softmax. It looks at strokes where they are, not at the whole cell
    at once, and errs elsewhere than the perceptron (Ensemble)."""

    names = ("k1", "b1", "k2", "b2", "w3", "b3", "w4", "b4")

    def forward(self, features: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
        """The logits, and what the layers computed (for training)."""
        k1, b1, k2, b2, w3, b3, w4, b4 = self.params
        n = len(features)
        cols1 = im2col(features.reshape(n, CELL_H, CELL_W, 1))
        conv1 = np.maximum(cols1 @ k1 + b1, 0).reshape(n, CELL_H, CELL_W, -1)
        pooled1 = pool(conv1)
        cols2 = im2col(pooled1)
        conv2 = np.maximum(cols2 @ k2 + b2, 0).reshape(n, CELL_H // 2, CELL_W // 2, -1)
        flat = pool(conv2).reshape(n, -1)
        hidden = np.maximum(flat @ w3 + b3, 0)
        return hidden @ w4 + b4, [cols1, conv1, pooled1, cols2, conv2, flat, hidden]

    def proba(self, features: np.ndarray) -> np.ndarray:
        return softmax(self.forward(features)[0])


class DeepConvModel(NamedParams):
    """A deeper convolutional network: three 3 x 3 convolutions (ReLU, 2 x 2 max pooling after the
    first two; their widths are the file's), a hidden layer, softmax. Trained with PyTorch
    (`train_glyph_model --model deep`, at training time only) and run here in numpy; its last
    layer is divided by the temperature fitted on held-out cells, so that its probabilities
    mean what the reader's shares assume."""

    names = ("k1", "b1", "k2", "b2", "k3", "b3", "w4", "b4", "w5", "b5")

    def proba(self, features: np.ndarray) -> np.ndarray:
        k1, b1, k2, b2, k3, b3, w4, b4, w5, b5 = self.params
        n = len(features)
        x = features.reshape(n, CELL_H, CELL_W, 1)
        for kernel, bias, pooled in ((k1, b1, True), (k2, b2, True), (k3, b3, False)):
            height, width = x.shape[1:3]
            x = np.maximum(im2col(x) @ kernel + bias, 0).reshape(n, height, width, -1)
            if pooled:
                x = pool(x)
        hidden = np.maximum(x.reshape(n, -1) @ w4 + b4, 0)
        return softmax(hidden @ w5 + b5)


class Ensemble:
    """The two classifiers' probabilities, averaged: where one is sure and the other is not, the
    cell is not sure (measured: see the module's docstring)."""

    def __init__(self, members: list[Model | ConvModel | DeepConvModel]) -> None:
        self.members = members

    def proba(self, features: np.ndarray) -> np.ndarray:
        return np.mean([m.proba(features) for m in self.members], axis=0)


def model() -> Ensemble | None:
    """The classifiers, loaded once per process; None without their files or with
    READER_GLYPHS=0 (to measure the reader without them)."""
    if os.environ.get("READER_GLYPHS", "1") == "0":
        return None
    return _load(MODEL, CONV_MODEL)


@cache
def _load(path: Path, conv_path: Path) -> Ensemble | None:
    if not (path.exists() and conv_path.exists()):
        return None
    return Ensemble([Model.load(path), ConvModel.load(conv_path)])


def features(cell: np.ndarray) -> np.ndarray:
    """A cell's ink (0..1) as the classifier's input: resized, zero mean, unit spread."""
    small = cv2.resize(cell, (CELL_W, CELL_H), interpolation=cv2.INTER_AREA).ravel()
    small = small - small.mean()
    return small / (small.std() + 1e-3)


def cut(ink: np.ndarray, rows: tuple[int, int], left: int, right: int) -> np.ndarray:
    """One cell with 2 pixels around it (zero where the line ends)."""
    y0, y1 = rows
    cell = np.zeros((y1 - y0 + 4, max(1, right - left + 4)), np.float32)
    part = ink[max(0, y0 - 2) : y1 + 2, max(0, left - 2) : max(0, right + 2)]
    cell[: part.shape[0], : part.shape[1]] = part
    return cell


def text_rows(ink: np.ndarray) -> tuple[int, int] | None:
    """The rows of the value's line: the band of one line's height with the most ink, grown
    while rows carry a sixth of its darkest row (a thin border line has much ink per row but
    no line's height)."""
    per_row = ink.sum(axis=1)
    if per_row.max() <= 0:
        return None
    window = np.convolve(per_row, np.ones(TEXT_HEIGHT), mode="same")
    centre = int(np.argmax(window))
    low, high = max(0, centre - TEXT_HEIGHT // 2), min(len(per_row), centre + TEXT_HEIGHT // 2 + 1)
    least = 0.15 * per_row[low:high].max()
    first = last = low + int(np.argmax(per_row[low:high]))
    while first > 0 and per_row[first - 1] >= least:
        first -= 1
    while last < len(per_row) - 1 and per_row[last + 1] >= least:
        last += 1
    return first, last + 1


def comb_hypotheses(ink: np.ndarray, rows: tuple[int, int], length: int) -> list[tuple[float, float]]:
    """(start, pitch) of `length` equal cells along the line, best first by the ink profile:
    ink at the cells' middles, little at their edges."""
    y0, y1 = rows
    height = y1 - y0
    profile = np.convolve(ink[max(0, y0 - 2) : y1 + 2].sum(axis=0), np.ones(3) / 3, mode="same")
    on = np.flatnonzero(profile > 0.15 * profile.max())
    if len(on) < 2 or height < 4:
        return []
    # the value's run of ink: the longest between gaps wider than one and a half line heights
    # (a neighbouring box's value run into this box, a border beside it)
    gaps = np.flatnonzero(np.diff(on) > 1.5 * height)
    runs = np.split(on, gaps + 1)
    run = max(runs, key=lambda r: int(r[-1] - r[0]))
    first, last = int(run[0]), int(run[-1])
    found = []
    for pitch in np.linspace(0.5 * height, 1.05 * height, 23):
        if length * pitch > (last - first) * 1.35 + pitch:
            continue
        for start in np.arange(
            first - 0.5 * pitch, min(last - (length - 1) * pitch, first + 6 * pitch), max(1.0, pitch / 6)
        ):
            edges = start + np.arange(length + 1) * pitch
            middles = np.clip(np.round(edges[:-1] + pitch / 2).astype(int), 0, len(profile) - 1)
            borders = np.clip(np.round(edges).astype(int), 0, len(profile) - 1)
            found.append((float(profile[middles].sum() - profile[borders].sum()), float(start), float(pitch)))
    found.sort(reverse=True)
    return [(start, pitch) for _, start, pitch in found]


class _Cells(NamedTuple):
    score: float
    probabilities: np.ndarray  # (cells, GLYPHS)
    comb: tuple[float, float]  # start, pitch
    cleaned: bool  # read with the border across the line taken out (_without_borders)


def _best_cells(
    classifier: Ensemble,
    ink: np.ndarray,
    length: int,
    allowed: np.ndarray,
    hypotheses: list[tuple[float, float]] | None = None,
) -> tuple[float, np.ndarray, tuple[float, float]] | None:
    """The score, cell probabilities and comb (start, pitch) of the cell row read most surely,
    among `hypotheses` or the ink profile's best (comb_hypotheses)."""
    rows = text_rows(ink)
    if rows is None:
        return None
    if hypotheses is None:
        hypotheses = comb_hypotheses(ink, rows, length)[:HYPOTHESES]
    if not hypotheses:
        return None
    cells = [
        cut(ink, rows, round(start + k * pitch), round(start + (k + 1) * pitch))
        for start, pitch in hypotheses
        for k in range(length)
    ]
    probabilities = _proba(classifier, cells, allowed)
    masses = np.array([c.sum() for c in cells]).reshape(len(hypotheses), length)
    best: tuple[float, np.ndarray, tuple[float, float]] | None = None
    for comb, found, mass in zip(
        hypotheses, probabilities.reshape(len(hypotheses), length, -1), masses, strict=True
    ):
        blank = (mass < 0.08 * np.percentile(mass, 90)) & (found.argmax(axis=1) != GLYPHS.index("."))
        score = float(np.log(found.max(axis=1) + 1e-6).sum()) - BLANK_PENALTY * int(blank.sum())
        if best is None or score > best[0]:
            best = (score, found, comb)
    return best


def _proba(classifier: Ensemble, cells: list[np.ndarray], allowed: np.ndarray) -> np.ndarray:
    """Each cell's probabilities over the characters `allowed` (a 0/1 mask over GLYPHS)."""
    batch = np.array([features(c) for c in cells], np.float32)
    probabilities = (
        np.concatenate([classifier.proba(batch[k : k + BATCH]) for k in range(0, len(batch), BATCH)])
        * allowed
    )
    return probabilities / np.maximum(probabilities.sum(axis=1, keepdims=True), 1e-9)


def _settled(
    classifier: Ensemble, ink: np.ndarray, comb: tuple[float, float], length: int, allowed: np.ndarray
) -> np.ndarray | None:
    """The cells' probabilities with each cell moved along the line by up to SETTLE pixels from
    `comb`'s place, to where it is read most surely, a cell moving away from its neighbour's
    move at a cost (SETTLE_COST per pixel; the moves of the whole row chosen together, by
    Viterbi): a photo of a bent or creased page does not keep the printer's pitch along a line of
    17 cells, and a cell cut half across two characters is read as neither."""
    rows = text_rows(ink)
    if rows is None:
        return None
    start, pitch = comb
    moves = np.arange(-SETTLE, SETTLE + 1)
    cells = []
    for k in range(length):
        for move in moves:
            left = round(start + k * pitch + move)
            cells.append(cut(ink, rows, left, round(left + pitch)))
    probabilities = _proba(classifier, cells, allowed).reshape(length, len(moves), -1)
    sure = np.log(probabilities.max(axis=2) + 1e-6)
    apart = -SETTLE_COST * np.abs(moves[:, None] - moves[None, :])  # (previous cell's, this one's)
    score, back = sure[0], []
    for k in range(1, length):
        total = score[:, None] + apart
        back.append(total.argmax(axis=0))
        score = total.max(axis=0) + sure[k]
    path = [int(score.argmax())]
    for step in reversed(back):
        path.append(int(step[path[-1]]))
    return probabilities[np.arange(length), path[::-1]]


def _without_borders(ink: np.ndarray) -> np.ndarray | None:
    """`ink` with a box's border under or over the value taken out (rows dark across the crop,
    a few pixels high); None where there is none."""
    across = (ink > 0.3).mean(axis=1) > 0.75
    if not across.any():
        return None
    clean = ink.copy()
    k = 0
    while k < len(across):
        if across[k]:
            end = k
            while end < len(across) and across[end]:
                end += 1
            if end - k <= 6:
                clean[max(0, k - 1) : end + 1] = 0
            k = end
        k += 1
    return clean


def _line_cells(classifier: Ensemble, ink: np.ndarray, length: int, allowed: np.ndarray) -> _Cells | None:
    """The `length` cells on the line the classifier reads most surely, with and without a
    border across it."""
    tried = []
    if (found := _best_cells(classifier, ink, length, allowed)) is not None:
        tried.append(_Cells(*found, cleaned=False))
    clean = _without_borders(ink)
    if clean is not None and (found := _best_cells(classifier, clean, length, allowed)) is not None:
        tried.append(_Cells(*found, cleaned=True))
    return max(tried, key=lambda c: c.score) if tried else None


def _as_read(cells: _Cells, ink: np.ndarray) -> np.ndarray | None:
    """`ink` as `cells` were read from it: without the border across it where they were
    (_without_borders; None where `ink` has none)."""
    return _without_borders(ink) if cells.cleaned else ink


def _rescaled(
    classifier: Ensemble,
    line: np.ndarray,
    cells: _Cells,
    scale: float,
    allowed: np.ndarray,
    settle: bool = False,
) -> np.ndarray | None:
    """The cells' probabilities read again from the line resized by `scale`: the comb found at
    the page's scale, scaled, its start moved by up to a sixth of a cell and its pitch by 2 %
    (not the whole search again); with `settle`, each cell then moved (_settled)."""
    resized = cv2.resize(
        line, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
    )
    ink = _as_read(cells, (255 - resized.astype(np.float32)) / 255)
    if ink is None:
        return None
    start, pitch = cells.comb
    combs = [
        ((start + shift * pitch) * scale, pitch * scale * stretch)
        for shift in (-1 / 6, 0, 1 / 6)
        for stretch in (0.98, 1.0, 1.02)
    ]
    found = _best_cells(classifier, ink, len(cells.probabilities), allowed, combs)
    if found is None:
        return None
    return _settled(classifier, ink, found[2], len(cells.probabilities), allowed) if settle else found[1]


def read_line(
    line: np.ndarray, length: int, alphabet: str, scales: tuple[float, ...] = (), settle: bool = False
) -> ocr.Line | None:
    """The value on `line` (8-bit grey, dark on white, the page's scale) as `length` cells of
    `alphabet`: the text, its least sure cell's probability as the line's confidence, and each
    cell's likeliest characters (ALTERNATIVES) as its alternatives. With `scales`, each cell's
    probabilities are the mean of its reads at the page's scale and those (_rescaled). With
    `settle`, each read's cells are moved to where they read surest (_settled). None without a
    model or without ink."""
    classifier = model()
    if classifier is None or line.size == 0:
        return None
    allowed = np.array([c in alphabet for c in GLYPHS], np.float32)
    ink = (255 - line.astype(np.float32)) / 255
    cells = _line_cells(classifier, ink, length, allowed)
    if cells is None:
        return None
    reads = [cells.probabilities]
    where = _as_read(cells, ink) if settle else None
    if where is not None and (moved := _settled(classifier, where, cells.comb, length, allowed)) is not None:
        reads = [moved]
    for scale in scales:
        if (again := _rescaled(classifier, line, cells, scale, allowed, settle)) is not None:
            reads.append(again)
    probabilities = np.mean(reads, axis=0)
    order = np.argsort(-probabilities, axis=1)[:, :ALTERNATIVES]
    text = "".join(GLYPHS[i] for i in order[:, 0])
    choices = tuple(
        tuple((GLYPHS[i], round(float(p[i]), 3)) for i in row)
        for p, row in zip(probabilities, order, strict=True)
    )
    return ocr.Line(text, float(probabilities.max(axis=1).min()), choices, engine="glyphs")
