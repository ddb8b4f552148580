"""Train the reader's line recogniser (platform/registrations/reader/lines.onnx): a small
convolutional network with a CTC output that reads a located value's line as a whole, the
reader's third engine beside Tesseract and RapidOCR (registrations.reader.lines).

    .venv/bin/python tools/lines_train.py harvest [--documents 800] [--processes 2]
    TORCH_VENV/bin/python tools/lines_train.py train var/lines/crops-....npz [--epochs 14]

`make lines-model` runs both, the second in a torch environment of its own (var/lines-venv).

1. Harvest (the project's environment): documents of the real layout (tests/fixtures/zlb/real)
   in every condition, poor and phone photos most, drawn in the TUNED printer families and the
   training-only fonts (fonts.TRAINING_ONLY; fonts.HELD_OUT is never drawn here, so the bench's
   held-out family stays a font the network has not seen), from seeds no bench, test or dev set
   uses (HARVEST_SEED on). Each goes through the upload's intake and the reader's own stages
   (find, locate) to each located value of a fixed alphabet (the VIN, field 3, the dates, the
   codes and the numbers of the two data panels), kept as the reader reads it
   (locate.Located.plain) with the text the document printed there. A crop whose width does
   not fit its text's number of characters at the printers' pitch is another row's value
   (a poor photo's registration a row off) and is dropped. Written to var/lines/crops-KEY.npz.
2. Train (torch, its own environment: not a dependency of the product): the crops at 32 px
   high, each epoch with a little more blur, noise, contrast and shift drawn at random; CTC
   loss, Adam, a fixed seed; exported to ONNX, which the reader runs with onnxruntime (already
   there for RapidOCR).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import re
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "platform"), str(ROOT)]

HARVEST_SEED = 110_000  # bench faces use seeds below 4,000, glyphs 70,000+, dev sets 90,000+
CACHE = ROOT / "var" / "lines"


def _lines_module():  # noqa: ANN202
    """registrations/reader/lines.py loaded by its path: its input and decoding are the reader's
    own, and the training environment (torch) has no Django to import the package with."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("lines", ROOT / "platform/registrations/reader/lines.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


LINES = _lines_module()
MODEL, ALPHABET, HEIGHT, to_input = LINES.MODEL, LINES.ALPHABET, LINES.HEIGHT, LINES.to_input
# the conditions drawn, by share: the photos are where Tesseract and RapidOCR fail
CONDITION_MIX = ("poor", "poor", "poor", "phone", "phone", "pdf", "scan")
VIN_REPEAT = 3
PITCH_PX = 17.7  # the printers' character pitch at 10 px/mm (thresholds.GLYPH_PITCH_MM)
TEXT = re.compile(r"[0-9A-Z.e]{1,20}")


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def printed(seed: int) -> dict[str, str]:
    """What the document of face seed `seed` printed in each field (documents.real_face draws
    its values first from this same generator)."""
    from tests.fixtures.zlb.real import values

    return values.document_values(random.Random(f"zb1-real-{seed}")).values


def fits(width: int, text: str, margin: int) -> bool:
    """A crop as wide as `text` printed at the printers' pitch (a single character: any)."""
    if len(text) == 1:
        return width <= 4 * PITCH_PX
    cells = (width - 2 * margin) / PITCH_PX
    return 0.7 * len(text) - 0.6 <= cells <= 1.25 * len(text) + 0.5


def harvest_one(job: tuple[int, str, str]) -> list[tuple[np.ndarray, str]]:
    """Each located value of a fixed alphabet of one document, as the reader reads it
    (locate.Located.plain), with its printed text."""
    _setup()
    from glyphs_train import located_values  # tools/, beside this file

    from registrations.reader import layout
    from registrations.reader.find import PX_PER_MM
    from registrations.reader.thresholds import PLAIN_MARGIN_MM
    from tests.fixtures.zlb.real import documents

    seed, condition, family = job
    data, expected, _ = documents.real_document(seed, condition, family=family)
    texts = printed(seed)
    assert texts["E"] == expected["E"], "the printed values are not the document's"
    codes = [
        c
        for c, t in texts.items()
        if (c in layout.SEGMENT or c == "I")
        and "\n" not in t
        and TEXT.fullmatch(t)
        and (c not in layout.SEGMENT or layout.SEGMENT[c].rows == 1)
    ]
    margin = round(PLAIN_MARGIN_MM * PX_PER_MM)
    out = []
    for code, found in located_values(data, tuple(codes)).items():
        if fits(found.plain.shape[1], texts[code], margin):
            out.append((found.plain, texts[code]))
    return out


def _source_key() -> str:
    parts = [ROOT / "platform/registrations/reader" / name for name in ("find.py", "locate.py")]
    parts += sorted((ROOT / "tests/fixtures/zlb/real").glob("*.py"))
    return hashlib.sha256(b"".join(p.read_bytes() for p in parts)).hexdigest()[:12]


def harvest(count: int, processes: int) -> Path:
    from tests.fixtures.zlb.real import fonts

    tuned = [f.name for f in fonts.available() if not f.held_out]
    if len(tuned) < 4:
        raise SystemExit(f"printer fonts missing: {fonts.missing_reason()}")
    tuned += [f.name for f in fonts.TRAINING_ONLY if fonts.font_path(f).exists()]
    jobs = [
        (
            HARVEST_SEED + i,
            CONDITION_MIX[i % len(CONDITION_MIX)],
            tuned[(i // len(CONDITION_MIX)) % len(tuned)],
        )
        for i in range(count)
    ]
    out = CACHE / f"crops-{count}-{_source_key()}.npz"
    if out.exists():
        return out
    crops: list[np.ndarray] = []
    texts: list[str] = []
    start = time.perf_counter()
    _setup()  # once here first: the workers would race to start the embedded database
    with Pool(processes) as pool:
        for n, found in enumerate(pool.imap_unordered(harvest_one, jobs), 1):
            for crop, text in found:
                crops.append(crop)
                texts.append(text)
            if n % 50 == 0:
                print(
                    f"  {n}/{count} documents, {len(crops)} lines, {time.perf_counter() - start:.0f} s",
                    flush=True,
                )
    CACHE.mkdir(parents=True, exist_ok=True)
    packed = np.empty(len(crops), dtype=object)
    packed[:] = crops
    np.savez_compressed(out, crops=packed, texts=np.array(texts))
    print(f"{len(crops)} lines from {count} documents in {time.perf_counter() - start:.0f} s -> {out}")
    return out


def augmented(gray: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The crop as another photo might have given it: cut a little wider or narrower, squeezed
    or stretched, blurred, its contrast and noise changed."""
    import cv2

    h, w = gray.shape
    pad = int(rng.integers(0, 4))
    image = cv2.copyMakeBorder(gray, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    top, bottom = int(rng.integers(0, 3)), int(rng.integers(0, 3))
    left, right = int(rng.integers(0, 4)), int(rng.integers(0, 4))
    image = image[top : image.shape[0] - bottom, left : image.shape[1] - right]
    stretch = float(rng.uniform(0.85, 1.15))
    image = cv2.resize(image, (max(8, round(image.shape[1] * stretch)), image.shape[0]))
    if rng.random() < 0.5:
        image = cv2.GaussianBlur(image, (0, 0), float(rng.uniform(0.4, 1.6)))
    ink = to_input(image)
    ink = np.clip(ink * rng.uniform(0.6, 1.3) + rng.uniform(-0.1, 0.1), 0, 1)
    ink += rng.normal(0, rng.uniform(0, 0.08), ink.shape).astype(np.float32)
    return np.clip(ink, 0, 1).astype(np.float32)


def network():  # noqa: ANN201 - torch is imported here only
    import torch
    from torch import nn

    def block(cin: int, cout: int, pool: tuple[int, int] | None) -> list[nn.Module]:
        layers: list[nn.Module] = [nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU()]
        return layers + ([nn.MaxPool2d(pool)] if pool else [])

    class Lines(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(
                *block(1, 32, (2, 2)),  # 16 x W/2
                *block(32, 64, (2, 2)),  # 8 x W/4
                *block(64, 96, None),
                *block(96, 96, (2, 1)),  # 4 x W/4
                *block(96, 128, (2, 1)),  # 2 x W/4
                nn.Conv2d(128, 128, (2, 1)),  # 1 x W/4
                nn.ReLU(),
            )
            self.rnn = nn.LSTM(128, 96, bidirectional=True, batch_first=True)
            self.out = nn.Linear(192, len(ALPHABET) + 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            f = self.features(x).squeeze(2).permute(0, 2, 1)  # B x T x C
            f, _ = self.rnn(f)
            return self.out(f).log_softmax(-1)  # B x T x classes (0: the CTC blank)

    return Lines()


def _batch(images: list[np.ndarray]):  # noqa: ANN202
    import torch

    width = max(i.shape[1] for i in images)
    width += (-width) % 4
    batch = np.zeros((len(images), 1, HEIGHT, width), np.float32)
    for k, image in enumerate(images):
        batch[k, 0, :, : image.shape[1]] = image
    return torch.from_numpy(batch)


def train(crops_file: Path, epochs: int, seed: int = 45) -> None:
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(2)
    rng = np.random.default_rng(seed)
    data = np.load(crops_file, allow_pickle=True)  # our own file under var/
    crops, texts = list(data["crops"]), [str(t) for t in data["texts"]]
    order = rng.permutation(len(crops))
    held = set(order[: len(crops) // 20].tolist())  # 5 % of the lines to measure on, never trained
    train_ix = [i for i in range(len(crops)) if i not in held]
    # the VIN, one line in thirty but the one every character must be right in: seen VIN_REPEAT times
    train_ix += [i for i in train_ix if len(texts[i]) == 17] * (VIN_REPEAT - 1)
    valid_ix = sorted(held)
    model = network()
    optimiser = torch.optim.Adam(model.parameters(), lr=2e-3)
    steps = epochs * ((len(train_ix) + 63) // 64)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=3e-3, total_steps=steps)
    ctc = torch.nn.CTCLoss(blank=0, zero_infinity=True)
    start = time.perf_counter()
    for epoch in range(epochs):
        model.train()
        rng.shuffle(train_ix)
        # similar widths together: less padding per batch
        chunks = [train_ix[k : k + 1024] for k in range(0, len(train_ix), 1024)]
        batches = []
        for chunk in chunks:
            chunk = sorted(chunk, key=lambda i: crops[i].shape[1])
            batches += [chunk[k : k + 64] for k in range(0, len(chunk), 64)]
        rng.shuffle(batches)
        total = 0.0
        for ids in batches:
            images = [augmented(crops[i], rng) for i in ids]
            x = _batch(images)
            logp = model(x).permute(1, 0, 2)  # T x B x C
            targets = torch.tensor([ALPHABET.index(c) + 1 for i in ids for c in texts[i]])
            lengths = torch.tensor([len(texts[i]) for i in ids])
            inputs = torch.full((len(ids),), logp.shape[0], dtype=torch.long)
            loss = ctc(logp, targets, inputs, lengths)
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            optimiser.step()
            schedule.step()
            total += float(loss) * len(ids)
        right, vins, vins_right = _measure(model, [crops[i] for i in valid_ix], [texts[i] for i in valid_ix])
        print(
            f"epoch {epoch + 1}/{epochs}: loss {total / len(train_ix):.3f}, held lines exact "
            f"{right:.3f}, VINs {vins_right}/{vins}, {time.perf_counter() - start:.0f} s",
            flush=True,
        )
    export(model)


def _measure(model, crops: list[np.ndarray], texts: list[str]) -> tuple[float, int, int]:  # noqa: ANN001
    import torch

    model.eval()
    right = vins = vins_right = 0
    with torch.no_grad():
        for crop, text in zip(crops, texts, strict=True):
            got = LINES.decode(model(_batch([to_input(crop)]))[0].numpy())[0]
            right += got == text
            if len(text) == 17:
                vins += 1
                vins_right += got == text
    return right / max(1, len(texts)), vins, vins_right


def export(model) -> None:  # noqa: ANN001
    import torch

    model.eval()
    example = torch.zeros(1, 1, HEIGHT, 160)
    torch.onnx.export(
        model,
        (example,),
        str(MODEL),
        input_names=["ink"],
        output_names=["logp"],
        dynamic_axes={"ink": {0: "batch", 3: "width"}, "logp": {0: "batch", 1: "steps"}},
        opset_version=17,
        dynamo=False,
    )
    print(f"written {MODEL} ({MODEL.stat().st_size / 1e6:.1f} MB)")


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    harvesting = commands.add_parser("harvest")
    harvesting.add_argument("--documents", type=int, default=800)
    harvesting.add_argument("--processes", type=int, default=2)
    training = commands.add_parser("train")
    training.add_argument("crops", type=Path)
    training.add_argument("--epochs", type=int, default=14)
    args = parser.parse_args(argv)
    if args.command == "harvest":
        harvest(args.documents, args.processes)
    else:
        train(args.crops, args.epochs)


if __name__ == "__main__":
    main(sys.argv[1:])
