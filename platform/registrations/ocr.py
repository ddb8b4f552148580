"""Tesseract in-process, through its C API (libtesseract, the library behind the `tesseract`
program): one engine per process and language, loaded once. The code's one way to Tesseract.

A field is a line of a few characters: starting the `tesseract` program for it costs more than
reading it (0.3 s of CPU to load the model, measured), and the program cannot give a whitelist
per field in one run nor the engine's alternatives for a character. Here each field gets its
own page segmentation mode and character whitelist, and each character its alternatives with
their confidence (`lstm_choice_mode`), from which the reader may choose one the engine
actually produced (never a character it did not see).

tesserocr is the maintained Python binding for this; it is not among our dependencies, and
these dozen C calls are all the reader needs.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import importlib.util
import math
import os
import threading
from dataclasses import dataclass

import numpy as np

TESSDATA = os.environ.get("TESSDATA_PREFIX", "/usr/share/tesseract-ocr/5/tessdata")
PSM_AUTO, PSM_SINGLE_BLOCK, PSM_SPARSE, PSM_SINGLE_LINE = 3, 6, 11, 7
RIL_WORD, RIL_SYMBOL = 3, 4


# Tesseract's OpenMP threads fight over two cores: one thread reads 4x faster here (a page
# 0.42 s against 1.73 s; the reader's page 0.7 s against 1.4 s, measured). OpenMP (libgomp,
# which libtesseract brings) reads its thread limit from the environment once, when it is
# loaded, and Tesseract asks for its threads by number (omp_set_num_threads does not hold
# it): so the limit is set here, before the library. The `tesseract` program inherits it.
os.environ.setdefault("OMP_THREAD_LIMIT", "1")


def _library() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("tesseract") or "libtesseract.so.5"
    try:
        lib = ctypes.CDLL(name)
    except OSError:
        return None
    handle, text, iterator, choices = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p
    signatures = {
        "TessBaseAPICreate": (handle, []),
        "TessBaseAPIInit3": (ctypes.c_int, [handle, text, text]),
        "TessBaseAPISetPageSegMode": (None, [handle, ctypes.c_int]),
        "TessBaseAPISetVariable": (ctypes.c_int, [handle, text, text]),
        "TessBaseAPISetImage": (
            None,
            [handle, ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int],
        ),
        "TessBaseAPISetSourceResolution": (None, [handle, ctypes.c_int]),
        "TessBaseAPIRecognize": (ctypes.c_int, [handle, ctypes.c_void_p]),
        "TessBaseAPIGetIterator": (iterator, [handle]),
        "TessBaseAPIClear": (None, [handle]),
        "TessResultIteratorNext": (ctypes.c_int, [iterator, ctypes.c_int]),
        "TessResultIteratorGetUTF8Text": (ctypes.c_void_p, [iterator, ctypes.c_int]),
        "TessResultIteratorConfidence": (ctypes.c_float, [iterator, ctypes.c_int]),
        "TessResultIteratorGetChoiceIterator": (choices, [iterator]),
        "TessResultIteratorGetPageIterator": (iterator, [iterator]),
        "TessPageIteratorIsAtBeginningOf": (ctypes.c_int, [iterator, ctypes.c_int]),
        "TessResultIteratorDelete": (None, [iterator]),
        "TessChoiceIteratorNext": (ctypes.c_int, [choices]),
        "TessChoiceIteratorGetUTF8Text": (ctypes.c_char_p, [choices]),
        "TessChoiceIteratorConfidence": (ctypes.c_float, [choices]),
        "TessChoiceIteratorDelete": (None, [choices]),
        "TessDeleteText": (None, [ctypes.c_void_p]),
        "TessBaseAPIGetUTF8Text": (ctypes.c_void_p, [handle]),
        "TessMonitorCreate": (ctypes.c_void_p, []),
        "TessMonitorDelete": (None, [ctypes.c_void_p]),
        "TessMonitorSetDeadlineMSecs": (None, [ctypes.c_void_p, ctypes.c_int]),
    }
    for function, (restype, argtypes) in signatures.items():
        getattr(lib, function).restype = restype
        getattr(lib, function).argtypes = argtypes
    return lib


_LIB = _library()
_LOCAL = threading.local()


def available() -> bool:
    return _LIB is not None


@dataclass(frozen=True)
class Line:
    text: str
    confidence: float  # mean word confidence, 0..1
    # per character (spaces left out): the engine's alternatives, best first, (char, 0..1)
    choices: tuple[tuple[tuple[str, float], ...], ...] = ()
    engine: str = "tesseract"


def _engine(lang: str) -> ctypes.c_void_p:
    engines: dict[str, ctypes.c_void_p] = getattr(_LOCAL, "engines", None) or {}
    _LOCAL.engines = engines
    if lang not in engines:
        assert _LIB is not None
        api = _LIB.TessBaseAPICreate()
        if _LIB.TessBaseAPIInit3(api, TESSDATA.encode(), lang.encode()) != 0:
            raise RuntimeError(f"tesseract: language {lang} not found in {TESSDATA}")
        _LIB.TessBaseAPISetVariable(api, b"debug_file", b"/dev/null")
        engines[lang] = api
    return engines[lang]


def read_line(
    image: np.ndarray, *, whitelist: str = "", psm: int = PSM_SINGLE_LINE, lang: str = "eng", dpi: int = 300
) -> Line:
    """One field: `image` is 8-bit grey, dark text on white."""
    assert _LIB is not None
    lib = _LIB
    api = _engine(lang)
    pixels = np.ascontiguousarray(image, dtype=np.uint8)
    lib.TessBaseAPISetPageSegMode(api, psm)
    lib.TessBaseAPISetVariable(api, b"tessedit_char_whitelist", whitelist.encode())
    lib.TessBaseAPISetVariable(api, b"lstm_choice_mode", b"2")
    lib.TessBaseAPISetImage(api, pixels.ctypes.data, pixels.shape[1], pixels.shape[0], 1, pixels.strides[0])
    lib.TessBaseAPISetSourceResolution(api, dpi)
    if lib.TessBaseAPIRecognize(api, None) != 0:
        lib.TessBaseAPIClear(api)
        return Line("", 0.0)
    words: list[str] = []
    confidences: list[float] = []
    choices: list[tuple[tuple[str, float], ...]] = []
    iterator = lib.TessBaseAPIGetIterator(api)
    if iterator:
        page = lib.TessResultIteratorGetPageIterator(iterator)
        word = ""
        while True:
            if lib.TessPageIteratorIsAtBeginningOf(page, RIL_WORD) and word:
                words.append(word)
                word = ""
            if lib.TessPageIteratorIsAtBeginningOf(page, RIL_WORD):
                confidences.append(lib.TessResultIteratorConfidence(iterator, RIL_WORD) / 100)
            raw = lib.TessResultIteratorGetUTF8Text(iterator, RIL_SYMBOL)
            if raw:
                symbol = ctypes.string_at(raw).decode("utf-8", "replace")
                lib.TessDeleteText(raw)
                word += symbol
                alternatives = [(symbol, lib.TessResultIteratorConfidence(iterator, RIL_SYMBOL) / 100)]
                choice = lib.TessResultIteratorGetChoiceIterator(iterator)
                if choice:
                    while True:
                        alt = (lib.TessChoiceIteratorGetUTF8Text(choice) or b"").decode("utf-8", "replace")
                        if alt and alt not in (a for a, _ in alternatives):
                            alternatives.append((alt, lib.TessChoiceIteratorConfidence(choice) / 100))
                        if not lib.TessChoiceIteratorNext(choice):
                            break
                    lib.TessChoiceIteratorDelete(choice)
                choices.append(tuple(alternatives))
            if not lib.TessResultIteratorNext(iterator, RIL_SYMBOL):
                break
        if word:
            words.append(word)
        lib.TessResultIteratorDelete(iterator)
    lib.TessBaseAPIClear(api)
    mean = float(np.mean(confidences)) if confidences else 0.0
    return Line(" ".join(words), max(0.0, min(1.0, mean)), tuple(choices))


def read_text(image: np.ndarray, *, psm: int = PSM_AUTO, lang: str = "deu", timeout: float = 30.0) -> str:
    """A whole page's text (what the `tesseract` program prints for it), read by this
    process's engine: the program loads its model for every run (0.3 s of CPU, measured),
    the page search reads up to four turns of a page. `image` is 8-bit grey; no resolution is
    given, so Tesseract estimates it from the text as the program does for a bare PNG. After
    `timeout` seconds the engine stops and what it read so far is returned."""
    assert _LIB is not None
    lib = _LIB
    api = _engine(lang)
    pixels = np.ascontiguousarray(image, dtype=np.uint8)
    lib.TessBaseAPISetPageSegMode(api, psm)
    lib.TessBaseAPISetVariable(api, b"tessedit_char_whitelist", b"")
    lib.TessBaseAPISetVariable(api, b"lstm_choice_mode", b"0")
    lib.TessBaseAPISetImage(api, pixels.ctypes.data, pixels.shape[1], pixels.shape[0], 1, pixels.strides[0])
    monitor = lib.TessMonitorCreate()
    lib.TessMonitorSetDeadlineMSecs(monitor, round(timeout * 1000))
    try:
        if lib.TessBaseAPIRecognize(api, monitor) != 0:
            return ""
        raw = lib.TessBaseAPIGetUTF8Text(api)
        if not raw:
            return ""
        text = ctypes.string_at(raw).decode("utf-8", "replace")
        lib.TessDeleteText(raw)
        return text
    finally:
        lib.TessMonitorDelete(monitor)
        lib.TessBaseAPIClear(api)


# ---------------------------------------------------------------- a second engine (optional)

# RapidOCR's text recognition model (PaddleOCR's PP-OCRv4 recogniser in ONNX, shipped inside
# the rapidocr-onnxruntime wheel): a second opinion on a field Tesseract did not read surely.
# Only the recognition model is loaded (a field's crop is its line: no text detection, no
# direction classifier), in an onnxruntime session of one thread without a memory arena or
# memory patterns, so that a pool process or a huey worker that reads scans stays small.
# Used when installed and READER_SECOND_ENGINE is not "0"; the bench measures whether it pays.
REC_MODEL = "models/ch_PP-OCRv4_rec_infer.onnx"
REC_HEIGHT, REC_MIN_WIDTH = 48, 320  # the model's input: 48 px high, at least 320 wide
_SECOND: list[_Recognizer | None] = []


class _Recognizer:
    def __init__(self, model: str) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.enable_cpu_mem_arena = False  # freed after each run, not kept for the next
        options.enable_mem_pattern = False  # every crop has its own width: no plan per shape
        options.intra_op_num_threads = 1  # the pool runs one page per process on 2 cores
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 4
        self.session = ort.InferenceSession(model, sess_options=options, providers=["CPUExecutionProvider"])
        self.input = self.session.get_inputs()[0].name
        characters = self.session.get_modelmeta().custom_metadata_map["character"].splitlines()
        self.characters = ["", *characters, " "]  # CTC blank first, space last (as PaddleOCR)

    def __call__(self, gray: np.ndarray) -> tuple[str, float]:
        """One line: grey pixels, dark on white; the text and its mean character confidence
        (PaddleOCR's greedy CTC decoding)."""
        import cv2

        width = max(1, math.ceil(REC_HEIGHT * gray.shape[1] / gray.shape[0]))
        resized = cv2.resize(gray, (width, REC_HEIGHT)).astype(np.float32) / 127.5 - 1.0
        batch = np.zeros((1, 3, REC_HEIGHT, max(REC_MIN_WIDTH, width)), np.float32)
        batch[0, :, :, :width] = resized
        predictions = self.session.run(None, {self.input: batch})[0][0]
        best, probability = predictions.argmax(axis=1), predictions.max(axis=1)
        keep = best != 0
        keep[1:] &= best[1:] != best[:-1]
        if not keep.any():
            return "", 0.0
        text = "".join(self.characters[i] for i in best[keep])
        return text, float(probability[keep].mean())


def _model_path() -> str | None:
    spec = importlib.util.find_spec("rapidocr_onnxruntime")  # found, not imported
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(next(iter(spec.submodule_search_locations)), REC_MODEL)
    return path if os.path.exists(path) else None


def second_engine() -> _Recognizer | None:
    if os.environ.get("READER_SECOND_ENGINE", "1") == "0":
        return None
    if not _SECOND:
        path = _model_path()
        try:
            _SECOND.append(_Recognizer(path) if path else None)
        except ImportError:  # onnxruntime missing
            _SECOND.append(None)
    return _SECOND[0]


SECOND_MARGIN = 10  # px of white set around a crop that has none of its own


def read_line_second(image: np.ndarray, margin: int = SECOND_MARGIN) -> Line | None:
    """The field by the second engine (recognition only: the crop is the line), or None."""
    engine = second_engine()
    if engine is None:
        return None
    padded = np.pad(np.ascontiguousarray(image, dtype=np.uint8), margin, constant_values=255)
    text, confidence = engine(padded)
    return Line(text.strip(), confidence, engine="rapidocr")
