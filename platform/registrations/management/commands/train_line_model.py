"""Train the VIN line reader (registrations.line_model) on synthetic VIN lines.

The lines are drawn as the glyph reader's cells are (train_glyph_model.degraded_line: printed in
a monospace font of the training fonts, never the test documents', blurred, shrunk to a phone
photo's scale, noise, JPEG, faint ink, border remnants and specks) and prepared as the reader
prepares a VIN's crop (line_model.prepare). PyTorch is a training-time tool, not a dependency
of the site (`pip install torch==2.13.0` takes the wheel on this machine); the weights are
exported to numpy with the batch norms folded into the convolutions.

With --init it fine-tunes a committed network instead (unfolded, fine_tuned), and --crops mixes
in lines cut from photographed pages by the reader's own steps (tests.bench.pipeline_lines; what
that measured is in tests/bench/README.md).

Run with OMP_THREAD_LIMIT=$(nproc): registrations.ocr limits OpenMP to one thread for Tesseract
otherwise, and PyTorch asking for more than that spins (train_glyph_model's note).
"""

from __future__ import annotations

import os
import random
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
from django.core.management.base import BaseCommand, CommandError

from registrations import line_model
from registrations.glyphs import softmax
from registrations.management.commands.train_glyph_model import (
    DEEP_FONTS,
    EXCLUDED_FAMILIES,
    FONT_ROOT,
    TRAINING_FONTS,
    degraded_line,
)

# the regimes of train_glyph_model.degraded_line, and their shares of the lines
REGIMES = (("poor", 0.6), ("heavier", 0.2), ("light", 0.2))
VIN_SHARE = 0.8  # the rest: 8 to 16 characters (the network must not count on 17)
CHUNK = 2000  # lines drawn per task


def line_fonts(root: Path) -> list[Path]:
    """The fonts the lines are drawn in, under `root` (the share/fonts tree): CommandError where
    one is missing or a test document's font is among them."""
    fonts = [root / path for _, path in TRAINING_FONTS + DEEP_FONTS]
    if missing := [str(f) for f in fonts if not f.exists()]:
        raise CommandError(f"fonts missing (make glyph-fonts unpacks them): {missing}")
    if any(name in str(f).lower() for f in fonts for name in EXCLUDED_FAMILIES):
        raise CommandError("a test document's font is among the training fonts")
    return fonts


def random_vin(rng: random.Random) -> str:
    length = 17 if rng.random() < VIN_SHARE else rng.randint(8, 16)
    return "".join(rng.choice(line_model.ALPHABET) for _ in range(length))


def drawn_lines(seed: int, count: int, fonts: list[Path]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """`count` lines of random VIN characters, prepared as the reader prepares its crop: the
    inputs (count, LINE_H, LINE_W) as uint8, their widths and their texts."""
    rng = random.Random(seed)
    inputs: list[np.ndarray] = []
    widths: list[int] = []
    texts: list[str] = []
    while len(texts) < count:
        text = random_vin(rng)
        regime = rng.choices([r for r, _ in REGIMES], [s for _, s in REGIMES])[0]
        line = degraded_line(rng, text, rng.choice(fonts), regime)
        prepared = line_model.prepare(line)
        if prepared is None or prepared[1] < len(text) * line_model.STRIDE:
            continue
        inputs.append((prepared[0] * 255).round().astype(np.uint8))
        widths.append(prepared[1])
        texts.append(text)
    return np.array(inputs), np.array(widths), texts


def lines_in_parallel(seed: int, count: int, fonts: list[Path]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """drawn_lines on every core, each chunk from its own seed (the same lines in any order of work)."""
    with ProcessPoolExecutor(os.cpu_count()) as workers:
        parts = [
            workers.submit(drawn_lines, seed * 1_000_003 + k, min(CHUNK, count - k * CHUNK), fonts)
            for k in range((count + CHUNK - 1) // CHUNK)
        ]
        done = [part.result() for part in parts]
    return (
        np.concatenate([d[0] for d in done]),
        np.concatenate([d[1] for d in done]),
        [t for d in done for t in d[2]],
    )


def exported(state: dict[str, np.ndarray]) -> line_model.LineModel:
    """The PyTorch network's weights in line_model.LineModel's layout: each batch norm folded
    into the convolution before it, each kernel (out, in, ...) as columns over im2col's
    neighbourhoods (in, then place)."""

    def folded(conv: str, norm: str) -> tuple[np.ndarray, np.ndarray]:
        scale = state[f"{norm}.weight"] / np.sqrt(state[f"{norm}.running_var"] + 1e-5)
        weights = state[f"{conv}.weight"] * scale.reshape(-1, *([1] * (state[f"{conv}.weight"].ndim - 1)))
        bias = (state[f"{conv}.bias"] - state[f"{norm}.running_mean"]) * scale + state[f"{norm}.bias"]
        return weights.reshape(len(weights), -1).T, bias

    params: list[np.ndarray] = []
    for k in (1, 2, 3, 4):
        params += folded(f"c{k}", f"n{k}")
    for k in (1, 2):
        params += folded(f"l{k}", f"m{k}")
    params += [state["out.weight"].reshape(len(state["out.weight"]), -1).T, state["out.bias"]]
    return line_model.LineModel(params)


def unfolded(model: line_model.LineModel, shapes: dict[str, tuple[int, ...]]) -> dict[str, np.ndarray]:
    """`model`'s weights in the PyTorch network's layout (`shapes`: its state's names and
    shapes), exported's inverse: each folded convolution's kernel and bias, its batch norm the
    identity (and kept so in training: fine_tuned)."""
    params = iter(model.params)
    state: dict[str, np.ndarray] = {}
    for conv, norm in [(f"c{i}", f"n{i}") for i in (1, 2, 3, 4)] + [(f"l{i}", f"m{i}") for i in (1, 2)]:
        kernel, bias = next(params), next(params)
        state[f"{conv}.weight"], state[f"{conv}.bias"] = kernel.T.reshape(shapes[f"{conv}.weight"]), bias
        size = shapes[f"{norm}.weight"]
        state[f"{norm}.weight"], state[f"{norm}.bias"] = np.ones(size), np.zeros(size)
        state[f"{norm}.running_mean"], state[f"{norm}.running_var"] = np.zeros(size), np.full(size, 1 - 1e-5)
    kernel, bias = next(params), next(params)
    state["out.weight"], state["out.bias"] = kernel.T.reshape(shapes["out.weight"]), bias
    return state


def fine_tuned(net: Any) -> None:
    """Training mode with the batch norms frozen as unfolded left them (the identity): in training
    mode they would normalise by each batch's statistics and undo the network's weights."""
    from torch import nn  # noqa: PLC0415

    net.train()
    for module in net.modules():
        if isinstance(module, nn.BatchNorm1d | nn.BatchNorm2d):
            module.eval()
            for p in module.parameters():
                p.requires_grad_(False)


def pipeline_crops(paths: list[Path]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The lines tests.bench.pipeline_lines cut out of photographed pages, as drawn_lines gives them."""
    parts = [np.load(path) for path in paths]
    return (
        np.concatenate([p["inputs"] for p in parts]),
        np.concatenate([p["widths"] for p in parts]),
        [str(t) for p in parts for t in p["texts"]],
    )


def network(widths: tuple[int, int, int, int], hidden: int) -> Any:
    """The PyTorch network line_model.LineModel runs (imported here: a training-time tool)."""
    from torch import nn  # noqa: PLC0415
    from torch.nn import functional  # noqa: PLC0415

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            channels = (1, *widths)
            for k in range(4):
                setattr(self, f"c{k + 1}", nn.Conv2d(channels[k], channels[k + 1], 3, padding=1))
                setattr(self, f"n{k + 1}", nn.BatchNorm2d(channels[k + 1]))
            features = widths[-1] * (line_model.LINE_H // 8)
            self.l1, self.m1 = nn.Conv1d(features, hidden, 3, padding=1), nn.BatchNorm1d(hidden)
            self.l2, self.m2 = nn.Conv1d(hidden, hidden, 3, padding=1), nn.BatchNorm1d(hidden)
            self.out = nn.Conv1d(hidden, 1 + len(line_model.ALPHABET), 1)
            self.drop = nn.Dropout(0.2)

        def forward(self, x: Any) -> Any:
            for k, pooling in ((1, (2, 2)), (2, (2, 2)), (3, None), (4, (2, 1))):
                x = functional.relu(getattr(self, f"n{k}")(getattr(self, f"c{k}")(x)))
                if pooling:
                    x = functional.max_pool2d(x, pooling)
            n, c, h, w = x.shape
            x = x.permute(0, 1, 2, 3).reshape(n, c * h, w)  # each column: channel, row
            x = functional.relu(self.m1(self.l1(self.drop(x))))
            x = functional.relu(self.m2(self.l2(self.drop(x))))
            return self.out(x)  # (N, classes, T)

    return Net()


def encoded(texts: list[str]) -> tuple[Any, Any]:
    import torch  # noqa: PLC0415

    targets = [line_model.ALPHABET.index(c) + 1 for text in texts for c in text]
    return torch.tensor(targets, dtype=torch.long), torch.tensor([len(t) for t in texts], dtype=torch.long)


def whole_lines_read(
    net: line_model.LineModel, inputs: np.ndarray, widths: np.ndarray, texts: list[str]
) -> float:
    """The share of lines the exported network reads whole (best path)."""
    right = 0
    for begin in range(0, len(texts), 256):
        batch = inputs[begin : begin + 256].astype(np.float32) / 255
        logits = net.logits(batch)
        for k, out in enumerate(logits):
            read = line_model.decode(softmax(out), line_model.columns(int(widths[begin + k])))
            right += read.text == texts[begin + k]
    return right / len(texts)


class Command(BaseCommand):
    help = "Train the VIN line reader (registrations.line_model) on degraded lines of monospace fonts."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--lines", type=int, default=100_000, help="lines in each set")
        parser.add_argument("--epochs", type=int, default=4)
        parser.add_argument("--sets", type=int, default=2, help="fresh sets of lines drawn, used in turn")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--widths", default="16,32,64,64")
        parser.add_argument("--hidden", type=int, default=128)
        parser.add_argument("--out", type=Path, default=line_model.MODEL)
        parser.add_argument(
            "--crops", type=Path, nargs="*", default=[], help="tests.bench.pipeline_lines files: in every set"
        )
        parser.add_argument("--held-crops", type=int, default=500, help="crops kept out to check on")
        parser.add_argument("--init", type=Path, help="start from this network's weights (fine-tuning)")
        parser.add_argument("--rate", type=float, default=2e-3, help="the peak learning rate")
        parser.add_argument(
            "--fonts", type=Path, default=FONT_ROOT, help="where the fonts' share/fonts tree is"
        )

    def handle(self, *args: Any, **options: Any) -> None:  # noqa: PLR0915
        import torch  # noqa: PLC0415
        from torch.nn import functional  # noqa: PLC0415

        fonts = line_fonts(options["fonts"])
        torch.manual_seed(options["seed"])
        torch.set_num_threads(max(1, min(os.cpu_count() or 1, int(os.environ.get("OMP_THREAD_LIMIT", "64")))))
        started = time.monotonic()

        def log(text: str) -> None:
            self.stdout.write(f"[{time.monotonic() - started:6.0f} s] {text}")
            self.stdout.flush()

        check = lines_in_parallel(options["seed"] + 999, 2000, fonts)
        widths = tuple(int(w) for w in options["widths"].split(","))
        crops = pipeline_crops(options["crops"]) if options["crops"] else None
        crop_check = None
        if crops is not None and (held := options["held_crops"]) > 0:
            crop_check = (crops[0][-held:], crops[1][-held:], crops[2][-held:])
            crops = (crops[0][:-held], crops[1][:-held], crops[2][:-held])
            log(f"{len(crops[2])} pipeline crops to train on, {held} to check on")
        net = network(widths, options["hidden"])  # type: ignore[arg-type]
        trained = list(net.parameters())
        if options["init"]:
            shapes = {name: tuple(value.shape) for name, value in net.state_dict().items()}
            initial = unfolded(line_model.LineModel.load(options["init"]), shapes)
            net.load_state_dict(
                {name: torch.from_numpy(value.astype(np.float32)) for name, value in initial.items()},
                strict=False,
            )
            fine_tuned(net)
            trained = [p for p in net.parameters() if p.requires_grad]
            for name, check_set in (("drawn", check), ("pipeline", crop_check)):
                if check_set is not None:
                    read = whole_lines_read(line_model.LineModel.load(options["init"]), *check_set)
                    log(f"{options['init']}: held-out {name} lines read whole {read:.3f}")
        rate = options["rate"]
        optimiser = torch.optim.AdamW(trained, rate, weight_decay=1e-4)
        batch_size = 64
        per_epoch = options["lines"] + (len(crops[2]) if crops is not None else 0)
        steps = options["epochs"] * ((per_epoch + batch_size - 1) // batch_size)
        schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, rate, total_steps=steps, pct_start=0.1)
        sets: list[tuple[np.ndarray, np.ndarray, list[str]]] = []
        for epoch in range(options["epochs"]):
            turn = epoch % options["sets"]
            if turn == len(sets):
                drawn = lines_in_parallel(options["seed"] + turn, options["lines"], fonts)
                if crops is not None:
                    drawn = (
                        np.concatenate([drawn[0], crops[0]]),
                        np.concatenate([drawn[1], crops[1]]),
                        drawn[2] + crops[2],
                    )
                sets.append(drawn)
                log(f"set {turn}: {len(sets[turn][2])} lines drawn")
            inputs, line_widths, texts = sets[turn]
            if options["init"]:
                fine_tuned(net)
            else:
                net.train()
            order = np.random.default_rng(options["seed"] + epoch).permutation(len(texts))
            total = 0.0
            for begin in range(0, len(order), batch_size):
                chosen = order[begin : begin + batch_size]
                x = torch.from_numpy(inputs[chosen].astype(np.float32) / 255).unsqueeze(1)
                targets, lengths = encoded([texts[i] for i in chosen])
                out = net(x).permute(2, 0, 1).log_softmax(2)  # (T, N, classes)
                columns = torch.tensor([line_model.columns(int(w)) for w in line_widths[chosen]])
                loss = functional.ctc_loss(out, targets, columns, lengths, zero_infinity=True)
                optimiser.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(net.parameters(), 5.0)
                optimiser.step()
                schedule.step()
                total += float(loss.detach()) * len(chosen)
                if (begin // batch_size) % 500 == 0:
                    log(f"epoch {epoch + 1} batch {begin // batch_size}: loss {float(loss.detach()):.3f}")
            net.eval()
            state = {
                name: value.detach().numpy().astype(np.float64) for name, value in net.state_dict().items()
            }
            model = exported(state)
            model.save(options["out"])
            saved = line_model.LineModel.load(options["out"])
            read = whole_lines_read(saved, *check)
            on_crops = f", pipeline {whole_lines_read(saved, *crop_check):.3f}" if crop_check else ""
            log(
                f"epoch {epoch + 1}/{options['epochs']}: loss {total / len(order):.3f}, "
                f"held-out lines read whole {read:.3f}{on_crops}; wrote {options['out']}"
            )
