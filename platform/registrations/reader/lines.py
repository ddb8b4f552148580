"""A recogniser for the registration printers' lines: the reader's third engine, beside
Tesseract and RapidOCR, for the values of a fixed alphabet (the VIN, field 3, the dates, J and
code 10).

Tesseract's models and RapidOCR's were trained on other print: on a blurred, shaded, strongly
compressed photo of the printers' condensed fonts they read most VINs a few characters off (on
the bench's poor photos one VIN in 48 came out whole from Tesseract's read of its cut-out, 8
from RapidOCR's), while a person still reads them. This network reads the value's box as the
reader locates it (locate.Located.plain): a few convolutions down to one column per 4 px, a
bidirectional LSTM and a CTC output over ALPHABET. It was trained on located values of
rendered documents of the tuned printer families and the training-only fonts, every condition,
poor and phone photos most (`tools/lines_train.py`; the held-out family never drawn), and runs
in onnxruntime, which the reader has for RapidOCR already.

Its read is one more opinion (decide._opinion: engine "lines") with its per-character
alternatives: like every engine it never decides a field alone.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np

MODEL = Path(__file__).with_name("lines.onnx")
ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ.e"  # the CTC classes after the blank (0)
HEIGHT = 32  # the network's input height in px
ENGINE = "lines"
FIELDS = frozenset({"E", "3", "B", "I", "J", "10"})
ALTERNATIVE = 0.02  # another class at a character's frame is offered from this probability


def to_input(gray: np.ndarray) -> np.ndarray:
    """A crop (grey, dark on white) as the network's input: HEIGHT px high, ink 0..1."""
    width = max(8, round(gray.shape[1] * HEIGHT / gray.shape[0]))
    resized = cv2.resize(gray, (width, HEIGHT), interpolation=cv2.INTER_AREA)
    return 1.0 - resized.astype(np.float32) / 255.0


def decode(logp: np.ndarray) -> tuple[str, tuple[tuple[tuple[str, float], ...], ...]]:
    """Greedy CTC decoding (steps x classes, log probabilities): the text and, per character,
    the classes at the step it is surest, best first."""
    p = np.exp(logp)
    best = p.argmax(axis=1)
    text: list[str] = []
    choices: list[tuple[tuple[str, float], ...]] = []
    step = 0
    while step < len(best):
        run = step
        while run + 1 < len(best) and best[run + 1] == best[step]:
            run += 1
        if best[step] != 0:
            peak = step + int(p[step : run + 1, best[step]].argmax())
            ranked = [int(k) for k in np.argsort(-p[peak]) if k != 0 and p[peak, k] >= ALTERNATIVE][:4]
            text.append(ALPHABET[best[step] - 1])
            choices.append(tuple((ALPHABET[k - 1], float(p[peak, k])) for k in ranked))
        step = run + 1
    return "".join(text), tuple(choices)


@cache
def _session() -> Any:
    if not MODEL.exists() or os.environ.get("READER_LINES", "1") == "0":
        return None
    try:
        import onnxruntime as ort
    except ImportError:  # requirements-ocr.lock not installed: Tesseract and the cells read alone
        return None

    options = ort.SessionOptions()
    options.enable_cpu_mem_arena = False
    options.enable_mem_pattern = False  # every crop has its own width
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 4
    return ort.InferenceSession(str(MODEL), sess_options=options, providers=["CPUExecutionProvider"])


def line_read(code: str, plain: np.ndarray) -> tuple[str, tuple[tuple[tuple[str, float], ...], ...]] | None:
    """`code`'s value box (locate.Located.plain) read by the network: its text and per character
    the alternatives (read.line_network makes it a Read), or None where the model is absent
    (READER_LINES=0, onnxruntime not installed) or the field is not one of FIELDS."""
    session = _session()
    if session is None or code not in FIELDS or plain.size == 0:
        return None
    ink = to_input(plain)
    width = ink.shape[1] + (-ink.shape[1]) % 4
    batch = np.zeros((1, 1, HEIGHT, width), np.float32)
    batch[0, 0, :, : ink.shape[1]] = ink
    return decode(session.run(None, {"ink": batch})[0][0])
