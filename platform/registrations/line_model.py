"""A fourth reader for the VIN: the whole line read at once by a small convolutional network
with CTC (connectionist temporal classification), no cells to place.

The glyph reader (registrations.glyphs) cuts a line into equal cells and must first find where
they lie; a photo of a bent page does not keep one pitch, and a cell cut across two characters
is read as neither. This network reads the line's columns left to right and says, for each
column, which character (or none) it shows; the characters are where those runs of columns are
(best path). It errs elsewhere than the cells, which is what a further reader is for: the reader
stores a VIN on two readers' word (registrations.reader._decide_vin).

Trained by `manage.py train_line_model` (PyTorch at training time only) on lines degraded as
photos degrade them, drawn in the glyph reader's training fonts, never the test documents' fonts;
run here in numpy (glyphs.im2col): four 3 x 3 convolutions (2 x 2 max pooling after the first two,
2 x 1 after the fourth), the columns' features through two convolutions along the line, one
output per four page columns over the VIN's 33 characters and the blank.
"""

from __future__ import annotations

import os
from dataclasses import replace
from functools import cache
from pathlib import Path

import cv2
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from registrations import glyphs, ocr
from registrations.glyphs import NamedParams, im2col, pool, softmax

ALPHABET = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"  # the VIN's (reader.VIN_ALPHABET); class 0 is the blank
LINE_H, LINE_W = 24, 352  # the network's input: the line scaled to 24 rows, at most 352 columns
STRIDE = 4  # input columns per output
MODEL = Path(__file__).with_name("line_model.npz")
# the same network fine-tuned on lines cut from photographed pages by the reader's own steps
# (`make line-model-cut`): read beside it as a witness, not in its place (in its place it read
# more of the bench's poor photos and fewer held-out ones; tests/bench/README.md)
CUT_MODEL = Path(__file__).with_name("line_model_cut.npz")
ALTERNATIVES = 6


def prepare(line: np.ndarray) -> tuple[np.ndarray, int] | None:
    """The line's ink (0..1, the network's input: LINE_H x LINE_W, zero beyond the value) and
    the columns the value takes, from `line` (8-bit grey, dark on white, the page's scale): the
    band of the value's rows (glyphs.text_rows) with a margin, its longest run of ink (a
    neighbour's value or a border beside it left out, as the glyph reader's comb does), scaled to
    LINE_H rows, its darkest ink made 1. None without ink."""
    ink = (255 - line.astype(np.float32)) / 255
    rows = glyphs.text_rows(ink)
    if rows is None:
        return None
    y0, y1 = rows
    height = y1 - y0
    if height < 4:
        return None
    margin = max(2, round(0.2 * height))
    band = ink[max(0, y0 - margin) : y1 + margin]
    profile = np.convolve(band.sum(axis=0), np.ones(3) / 3, mode="same")
    on = np.flatnonzero(profile > 0.15 * profile.max())
    if len(on) < 2:
        return None
    runs = np.split(on, np.flatnonzero(np.diff(on) > 1.5 * height) + 1)
    run = max(runs, key=lambda r: int(r[-1] - r[0]))
    left, right = max(0, int(run[0]) - height // 2), min(band.shape[1], int(run[-1]) + height // 2 + 1)
    value = band[:, left:right]
    width = max(STRIDE, min(LINE_W, round(value.shape[1] * LINE_H / value.shape[0])))
    small = cv2.resize(value, (width, LINE_H), interpolation=cv2.INTER_AREA)
    small = np.clip(small / max(float(np.percentile(small, 99.5)), 0.05), 0, 1)
    out = np.zeros((LINE_H, LINE_W), np.float32)
    out[:, :width] = small
    return out, width


def _conv1d(x: np.ndarray, kernel: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """A convolution of width 3 along the line (zero beyond its ends) of `x` (N, T, F)."""
    n, t, f = x.shape
    cols = sliding_window_view(np.pad(x, ((0, 0), (1, 1), (0, 0))), 3, axis=1).reshape(n * t, f * 3)
    return (cols @ kernel + bias).reshape(n, t, -1)


class LineModel(NamedParams):
    """The network in numpy (its PyTorch layers' weights exported, batch norms folded into the
    convolutions; registrations.management.commands.train_line_model)."""

    names = ("k1", "b1", "k2", "b2", "k3", "b3", "k4", "b4", "l1", "c1", "l2", "c2", "w", "b")

    def logits(self, lines: np.ndarray) -> np.ndarray:
        """Each output column's logits (N, LINE_W / STRIDE, 1 + len(ALPHABET)) of `lines` (N, LINE_H, LINE_W)."""
        k1, b1, k2, b2, k3, b3, k4, b4, l1, c1, l2, c2, w, b = self.params
        n = len(lines)
        x = lines.reshape(n, LINE_H, LINE_W, 1)
        for kernel, bias, pooled in ((k1, b1, True), (k2, b2, True), (k3, b3, False), (k4, b4, False)):
            height, width = x.shape[1:3]
            x = np.maximum(im2col(x) @ kernel + bias, 0).reshape(n, height, width, -1)
            if pooled:
                x = pool(x)
        height, width, channels = x.shape[1:]
        x = x.reshape(n, height // 2, 2, width, channels).max(axis=2)  # 2 x 1 pooling
        x = x.transpose(0, 2, 3, 1).reshape(n, width, -1)  # each column: channel, row
        x = np.maximum(_conv1d(x, l1, c1), 0)
        x = np.maximum(_conv1d(x, l2, c2), 0)
        return x @ w + b


def model() -> LineModel | None:
    """The network, loaded once per process; None without its file or with READER_LINES=0 (to
    measure the reader without it)."""
    if os.environ.get("READER_LINES", "1") == "0":
        return None
    return _load(MODEL)


def cut_model() -> LineModel | None:
    """The network fine-tuned on cut lines (CUT_MODEL); None as model() is, or with READER_CUT=0."""
    if os.environ.get("READER_CUT", "1") == "0" or model() is None:
        return None
    return _load(CUT_MODEL)


@cache
def _load(path: Path) -> LineModel | None:
    return LineModel.load(path) if path.exists() else None


def decode(probabilities: np.ndarray, columns: int, length: int | None = None) -> ocr.Line:
    """The best path through the output columns' probabilities (T, 1 + len(ALPHABET)) of the
    first `columns`: each run of columns whose likeliest class is one character gives that
    character once (a blank between two runs of one character gives it twice). With `length`,
    the likeliest path of exactly that many characters (_path_of_length): a VIN has 17, and a
    best path that merged two of them or took a border for one reads no VIN at all. Each
    character's alternatives are the characters' probabilities at the run's surest column,
    the blank left out; the line's confidence is its least sure character's."""
    best = probabilities[:columns].argmax(axis=1)
    path = best
    if length is not None and _characters(best) != length:
        path = _path_of_length(probabilities[:columns], length)
        if path is None:
            return ocr.Line("", 0.0, (), engine="lines")
    run_of = np.cumsum(np.diff(best, prepend=-1) != 0)  # each column's run of the best path
    choices: list[tuple[tuple[str, float], ...]] = []
    runs: list[int] = []  # the best path's run each character's surest column lies in (-1: none)
    k = 0
    while k < columns:
        if path[k] == 0:
            k += 1
            continue
        end = k
        while end < columns and path[end] == path[k]:
            end += 1
        surest = k + int(probabilities[k:end, path[k]].argmax())
        chars = probabilities[surest, 1:] / max(float(probabilities[surest, 1:].sum()), 1e-9)
        order = np.argsort(-chars)[:ALTERNATIVES]
        choices.append(tuple((ALPHABET[i], round(float(chars[i]), 3)) for i in order))
        runs.append(int(run_of[surest]) if best[surest] == path[k] else -1)
        k = end
    if path is not best:
        _flatten_doubled(choices, runs)
    text = "".join(c[0][0] for c in choices)
    confidence = min((c[0][1] for c in choices), default=0.0)
    return ocr.Line(text, confidence, tuple(choices), engine="lines")


def _flatten_doubled(choices: list[tuple[tuple[str, float], ...]], runs: list[int]) -> None:
    """The same character twice where the best path read it once: a run parted in two, or a
    character put in beside one like it where the best path had the blank, to make up the
    length. The network saw one character there, and it cannot tell which of the two places the
    other one takes (a blurred DH read as one H, made HH: bench poor-020). Both places say
    nothing: every character alike likely, the read's own first."""
    flat = round(1 / len(ALPHABET), 3)
    texts = [c[0][0] for c in choices]
    for i in range(1, len(choices)):
        parted = runs[i] >= 0 and runs[i] == runs[i - 1]
        put_in = texts[i] == texts[i - 1] and (runs[i] < 0 or runs[i - 1] < 0)
        if parted or put_in:
            for place in (i - 1, i):
                choices[place] = tuple((c, flat) for c in texts[place] + ALPHABET.replace(texts[place], ""))


def _characters(path: np.ndarray) -> int:
    """The characters a path of classes gives: its runs of one class other than the blank."""
    starts = np.flatnonzero(np.diff(path, prepend=-1))
    return int(np.count_nonzero(path[starts]))


def _path_of_length(probabilities: np.ndarray, length: int) -> np.ndarray | None:
    """The likeliest path of classes (one per column) that gives exactly `length` characters
    (Viterbi over the columns, the state being the characters given so far and the last class),
    or None where the columns are too few for them."""
    steps, classes = probabilities.shape
    logp = np.log(np.maximum(probabilities, 1e-12))
    score = np.full((length + 1, classes), -np.inf)
    score[0, 0] = logp[0, 0]
    if length >= 1:
        score[1, 1:] = logp[0, 1:]
    # back[t, n, c]: the characters given before and the class of the column before, for the
    # path that is at n characters and class c at column t
    back_n = np.zeros((steps, length + 1, classes), np.int16)
    back_c = np.zeros((steps, length + 1, classes), np.int16)
    rows = np.arange(length + 1)
    chars = np.arange(1, classes)
    for t in range(1, steps):
        new = np.full_like(score, -np.inf)
        # a blank: the characters stay, from any class
        top = score.argmax(axis=1)
        new[:, 0] = score[rows, top] + logp[t, 0]
        back_n[t, :, 0], back_c[t, :, 0] = rows, top
        # a character c: the same run on (c before, as many characters), or a new character
        # (anything but c before, one character fewer)
        order = np.argsort(-score, axis=1)[:, :2]  # the two likeliest classes before, per count
        other = np.where(order[:, :1] == chars, order[:, 1:2], order[:, :1])  # the likeliest not c
        stay = score[:, 1:]
        fresh = np.full_like(stay, -np.inf)
        fresh[1:] = score[rows[:-1, None], other[:-1]]
        take_fresh = fresh > stay
        new[:, 1:] = np.where(take_fresh, fresh, stay) + logp[t, 1:]
        back_n[t, :, 1:] = np.where(take_fresh, rows[:, None] - 1, rows[:, None])
        back_c[t, :, 1:] = np.where(
            take_fresh, np.vstack((np.zeros((1, classes - 1), int), other[:-1])), chars
        )
        score = new
    last = int(score[length].argmax())
    if not np.isfinite(score[length, last]):
        return None
    path = np.zeros(steps, np.int64)
    n, c = length, last
    for t in range(steps - 1, -1, -1):
        path[t] = c
        n, c = int(back_n[t, n, c]), int(back_c[t, n, c])
    return path


def read_line(line: np.ndarray, length: int | None = None) -> ocr.Line | None:
    """The VIN on `line` (8-bit grey, dark on white, the page's scale) as the network reads it;
    None without the network or without ink. (A second network of another seed, its output
    columns averaged with this one's, read far fewer lines whole: two CTC networks place a
    line's characters and blanks at different columns.)"""
    net = model()
    if net is None or line.size == 0 or (prepared := prepare(line)) is None:
        return None
    ink, width = prepared
    read = decode(softmax(net.logits(ink[None])[0]), columns(width), length)
    if (cut := cut_model()) is not None:
        witness = decode(softmax(cut.logits(ink[None])[0]), columns(width), length)
        read = replace(read, witness=replace(witness, engine="cut"))
    return read


def columns(width: int) -> int:
    """The output columns a value `width` input columns wide takes (the last one in part)."""
    return -(-width // STRIDE)
