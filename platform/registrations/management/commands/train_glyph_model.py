"""Train the glyph reader's classifiers (registrations.glyphs) and write glyph_model.npz and
glyph_conv.npz.

    make glyph-model      (unpacks the fonts below from their Debian packages under
                           var/glyph-fonts, then runs this command with --fonts there)

Lines of random VIN characters and dates are drawn in the monospace fonts of TRAINING_FONTS,
degraded as a phone photo degrades the printed values (blur of 0.02-0.4 mm on the paper, a
picture of 3.2-11 pixels per mm, JPEG quality 35-95, noise, faint ink, remnants of box borders
and specks), turned into the reader's ink layer at the page's scale, and cut into cells as the
reader cuts them (with the cells' edges jittered by up to an eighth of the pitch). A two-layer
perceptron is trained on them, and a small convolutional network on cells blurred further and
tilted, both with Adam in numpy (no learning framework is a dependency: see the README).

The fonts the test documents are printed in are excluded (EXCLUDED_FAMILIES): the reader is
measured on a font it never saw.
"""

from __future__ import annotations

import os
import random
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from django.core.management.base import BaseCommand, CommandError
from PIL import Image, ImageDraw, ImageFont

from registrations import glyphs
from registrations.reader import ink_curve

FONT_ROOT = Path("/usr/share/fonts")
# (Debian package, font file under /usr/share/fonts)
TRAINING_FONTS = (
    ("fonts-urw-base35", "opentype/urw-base35/NimbusMonoPS-Regular.otf"),
    ("fonts-urw-base35", "opentype/urw-base35/NimbusMonoPS-Bold.otf"),
    ("fonts-go", "fonts-go/Go-Mono.ttf"),
    ("fonts-go", "fonts-go/Go-Mono-Bold.ttf"),
    ("fonts-league-mono", "opentype/league-mono/LeagueMono-Regular.otf"),
    ("fonts-league-mono", "opentype/league-mono/LeagueMono-NarrowRegular.otf"),
    ("fonts-league-mono", "opentype/league-mono/LeagueMono-SemiBold.otf"),
    ("fonts-3270", "truetype/3270/3270-Regular.ttf"),
    ("fonts-agave", "truetype/agave/agave-r-autohinted.ttf"),
    ("fonts-anonymous-pro", "truetype/anonymous-pro/Anonymous Pro.ttf"),
    ("fonts-firacode", "truetype/firacode/FiraCode-Regular.ttf"),
    ("fonts-jetbrains-mono", "truetype/jetbrains-mono/JetBrainsMono-Regular.ttf"),
    ("fonts-jetbrains-mono", "truetype/jetbrains-mono/JetBrainsMono-Bold.ttf"),
    ("fonts-noto-mono", "truetype/noto/NotoMono-Regular.ttf"),
    ("fonts-noto-mono", "truetype/noto/NotoSansMono-Bold.ttf"),
    ("fonts-oxygen", "truetype/oxygen/OxygenMono-Regular.ttf"),
    ("fonts-freefont-ttf", "truetype/freefont/FreeMono.ttf"),
    ("fonts-freefont-ttf", "truetype/freefont/FreeMonoBold.ttf"),
    ("fonts-inconsolata", "truetype/inconsolata/Inconsolata.otf"),
    ("fonts-hermit", "truetype/hermit/Hermit-medium.otf"),
)
# The deeper network's fonts besides those (--model deep; the reader does not use that network).
# On 36 fonts (the list up to LM Mono Light) it stored more right VINs of captured poor lines at
# 0.8 without more wrong ones (33 / 1 against 32 / 3 on the 20); on all 44, of 107 lines, 50 / 2
# against the pair's 41 / 1, but it decodes no more VINs right (69 against 70): it is surer, not
# better (issue 14's notes). Each has one advance width for all of glyphs.GLYPHS (checked).
DEEP_FONTS = (
    ("fonts-b612", "opentype/b612/B612Mono-Regular.otf"),
    ("fonts-b612", "opentype/b612/B612Mono-Bold.otf"),
    ("fonts-courier-prime", "opentype/courier-prime/Courier Prime.otf"),
    ("fonts-courier-prime", "opentype/courier-prime/Courier Prime Bold.otf"),
    ("fonts-courier-prime", "opentype/courier-prime/Courier Prime Sans.otf"),
    ("fonts-fantasque-sans", "truetype/fantasque-sans/Normal/TTF/FantasqueSansMono-Regular.ttf"),
    ("fonts-fantasque-sans", "truetype/fantasque-sans/Normal/TTF/FantasqueSansMono-Bold.ttf"),
    ("fonts-ocr-b", "opentype/ocr-b/OCRB.otf"),
    ("fonts-ocr-a", "truetype/ocr-a/OCRA.ttf"),
    ("fonts-monoid", "truetype/monoid/Monoid-Regular.ttf"),
    ("fonts-mononoki", "truetype/mononoki/mononoki-Regular.ttf"),
    ("fonts-mononoki", "truetype/mononoki/mononoki-Bold.ttf"),
    ("fonts-paratype", "truetype/paratype/PTM55F.ttf"),
    ("fonts-paratype", "truetype/paratype/PTM75F.ttf"),
    ("fonts-cmu", "truetype/cmu/cmuntt.ttf"),
    ("fonts-lmodern", "../texmf/fonts/opentype/public/lm/lmmonolt10-regular.otf"),
    ("fonts-lmodern", "../texmf/fonts/opentype/public/lm/lmmono10-regular.otf"),
    ("fonts-lmodern", "../texmf/fonts/opentype/public/lm/lmmonolt10-bold.otf"),
    ("fonts-texgyre", "../texmf/fonts/opentype/public/tex-gyre/texgyrecursor-regular.otf"),
    ("fonts-texgyre", "../texmf/fonts/opentype/public/tex-gyre/texgyrecursor-bold.otf"),
    ("fonts-linuxlibertine", "opentype/linux-libertine/LinLibertine_M.otf"),
    ("fonts-mplus", "opentype/mplus/Mplus1Code-Regular.otf"),
    ("fonts-mplus", "opentype/mplus/MplusCodeLatin60-Regular.otf"),
    ("fonts-monofur", "truetype/monofur/monof55.ttf"),
)
# the test documents' fonts (tests/fixtures/zlb/realistic.py), and those drawn from them
EXCLUDED_FAMILIES = ("liberation", "dejavu", "cousine", "hack", "vera", "menlo")
DATE_SHARE = 0.25
# The deeper network's cells (glyphs.DeepConvModel): (regime, seed offset, count), mostly poor
# photos' lines; its held-out cells (the temperature's) of poor lines too
DEEP_SETS = (("poor", 20, 125_000), ("poor", 23, 125_000), ("light", 22, 60_000), ("heavier", 21, 60_000))
DEEP_CHECK = ("poor", 30, 10_000)
DEEP_WIDTHS = (24, 48, 96)  # its convolutions' channels


def font_packages() -> list[str]:
    return sorted({package for package, _ in TRAINING_FONTS + DEEP_FONTS})


def monospaced(font_path: Path) -> bool:
    """Whether every glyph the reader knows takes the same width in the font."""
    font = ImageFont.truetype(str(font_path), 40)
    return len({font.getlength(glyph) for glyph in glyphs.GLYPHS}) == 1


def random_text(rng: random.Random) -> str:
    if rng.random() < DATE_SHARE:
        return f"{rng.randint(1, 28):02d}.{rng.randint(1, 12):02d}.{rng.randint(1990, 2026)}"
    return "".join(rng.choice(glyphs.GLYPHS[:-1]) for _ in range(rng.randint(8, 17)))


def degraded_line(rng: random.Random, text: str, font_path: Path, regime: str = "light") -> np.ndarray:
    """`text` printed, photographed and turned into the reader's ink layer (page scale, 10 px
    per mm; 255 paper, 0 ink). `regime` "heavier": blur up to 0.55 mm and a tilt of up to 1.5
    degrees as well (the convolutional network's cells); "poor": as a poor photo's VIN lines
    measured (blur 0.15-0.42 mm, 3.2-7.5 px per mm, more noise, JPEG 30-65, faint ink) and
    tilted (the deeper network's). "light" and "heavier" draw as before the regimes were
    named: the committed classifiers are what they wrote."""
    scale = 3  # drawn at 30 px per mm
    em = rng.uniform(26, 33) * scale  # the values' font: 2.6-3.3 mm
    font = ImageFont.truetype(str(font_path), int(em))
    width, height = int(font.getlength(text)) + 40 * scale, int(em * 1.9)
    image = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(image)
    draw.text((20 * scale, int(em * 0.4)), text, font=font, fill=rng.randint(0, 50))
    if rng.random() < 0.3:  # what is left of a box border beside or through the value
        x = rng.uniform(0, width)
        draw.line([(x, 0), (x, height)], fill=rng.randint(60, 200), width=rng.randint(3, 8))
    if rng.random() < 0.2:
        y = rng.choice([rng.uniform(0, em * 0.35), rng.uniform(em * 1.5, height)])
        draw.line([(0, y), (width, y)], fill=rng.randint(60, 200), width=rng.randint(3, 8))
    for _ in range(rng.choice([0, 0, 1, 3])):  # specks
        cx, cy, r = rng.uniform(0, width), rng.uniform(0, height), rng.uniform(3, 12)
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=rng.randint(80, 200))
    poor = regime == "poor"
    if regime != "light" and rng.random() < 0.5:  # what straightening left of a tilt
        image = image.rotate(rng.uniform(-1.5, 1.5), resample=Image.Resampling.BILINEAR, fillcolor=255)
    pixels: np.ndarray = np.asarray(image, np.float32)
    if poor:
        blur_mm = rng.uniform(0.15, 0.42)
    else:
        blurs = [rng.uniform(0.02, 0.15), rng.uniform(0.12, 0.40)]
        if regime == "heavier":
            blurs.append(rng.uniform(0.3, 0.55))  # a poor photo's: up to half a millimetre
        blur_mm = rng.choice(blurs)
    pixels = cv2.GaussianBlur(pixels, (0, 0), max(0.3, blur_mm * 10 * scale))
    photo_px_per_mm = rng.uniform(3.2, 7.5 if poor else 11.0)
    factor = photo_px_per_mm / (10 * scale)
    photo = cv2.resize(pixels, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    photo = 255 - (255 - photo) * rng.uniform(0.45, 1.0) - rng.uniform(0, 30)
    noise = np.random.default_rng(rng.randint(0, 2**31)).normal(
        0, rng.uniform(3, 10) if poor else rng.uniform(2, 8), photo.shape
    )
    photo = np.clip(photo + noise, 0, 255).astype(np.uint8)
    _, jpeg = cv2.imencode(
        ".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(30, 65) if poor else rng.randint(35, 95)]
    )
    decoded = cv2.imdecode(jpeg, cv2.IMREAD_GRAYSCALE)
    assert decoded is not None
    photo = decoded.astype(np.float32)
    page = cv2.resize(
        photo, None, fx=10 / photo_px_per_mm, fy=10 / photo_px_per_mm, interpolation=cv2.INTER_CUBIC
    )
    # the light-flattened page's darkness, as legible as the reader accepts (registrations.reader
    # LEGIBLE) up to a sharp scan, through the value layer's curve (reader.ink_curve)
    darkness = 1 - np.clip(page / max(float(np.percentile(page, 90)), 1.0), 0, 1)
    darkness *= (rng.uniform(0.35, 0.55) if poor else rng.uniform(0.35, 0.95)) / max(
        float(np.percentile(darkness, 99.5)), 0.05
    )
    ink = ink_curve(darkness)
    return (255 * (1 - ink)).astype(np.uint8)


def spread_cells(ink: np.ndarray, length: int) -> tuple[tuple[int, int], float, float]:
    """Rows, start and pitch of `length` cells on a drawn line, which holds nothing but the
    value: the ink's extent tells the pitch, the comb of cells (ink at the middles, little at
    the edges) the rest."""
    per_row = ink.sum(axis=1)
    on_rows = np.flatnonzero(per_row > 0.15 * per_row.max())
    profile = np.convolve(ink.sum(axis=0), np.ones(3) / 3, mode="same")
    on = np.flatnonzero(profile > 0.15 * profile.max())
    first, last = int(on[0]), int(on[-1])
    best = (-np.inf, 0.0, 1.0)
    for pitch in np.linspace((last - first) / (length - 0.2), (last - first) / (length - 1.2), 25):
        for start in np.linspace(first - 0.4 * pitch, first + 0.1 * pitch, 12):
            edges = start + np.arange(length + 1) * pitch
            middles = np.clip(np.round(edges[:-1] + pitch / 2).astype(int), 0, len(profile) - 1)
            borders = np.clip(np.round(edges).astype(int), 0, len(profile) - 1)
            score = float(profile[middles].sum() - profile[borders].sum())
            if score > best[0]:
                best = (score, float(start), float(pitch))
    return (int(on_rows[0]), int(on_rows[-1]) + 1), best[1], best[2]


def training_cells(
    seed: int, count: int, fonts: list[Path], regime: str = "light"
) -> tuple[np.ndarray, np.ndarray]:
    rng = random.Random(seed)
    features: list[np.ndarray] = []
    labels: list[int] = []
    while len(labels) < count:
        text = random_text(rng)
        line = degraded_line(rng, text, rng.choice(fonts), regime)
        ink = (255 - line.astype(np.float32)) / 255
        if (line < 128).sum() < 20:
            continue
        rows, start, pitch = spread_cells(ink, len(text))
        start += rng.uniform(-0.12, 0.12) * pitch
        pitch *= rng.uniform(0.97, 1.03)
        rows = (max(0, rows[0] + rng.randint(-2, 2)), rows[1] + rng.randint(-2, 2))
        for k, char in enumerate(text):
            cell = glyphs.cut(ink, rows, round(start + k * pitch), round(start + (k + 1) * pitch))
            features.append(glyphs.features(cell))
            labels.append(glyphs.GLYPHS.index(char))
    return np.array(features, np.float32), np.array(labels, np.int64)


def adam_step(
    params: list[np.ndarray],
    grads: list[np.ndarray],
    first: list[np.ndarray],
    second: list[np.ndarray],
    step: int,
    rate: float,
) -> None:
    """One Adam update of `params` in place (moments `first` and `second`, step counted from 1)."""
    for k, (param, g) in enumerate(zip(params, grads, strict=True)):
        first[k] = 0.9 * first[k] + 0.1 * g
        second[k] = 0.999 * second[k] + 0.001 * g * g
        update = rate * (first[k] / (1 - 0.9**step)) / (np.sqrt(second[k] / (1 - 0.999**step)) + 1e-8)
        param -= np.asarray(update, np.float32)


def train(
    x: np.ndarray,
    y: np.ndarray,
    sizes: list[int],
    epochs: int,
    log: Any,
    check: tuple[np.ndarray, np.ndarray],
) -> glyphs.Model:
    """Softmax cross-entropy, Adam (learning rate 1e-3, batches of 256), He initialisation."""
    init = np.random.default_rng(0)
    weights = [
        init.normal(0, np.sqrt(2 / a), (a, b)).astype(np.float32)
        for a, b in zip(sizes, sizes[1:], strict=False)
    ]
    biases = [np.zeros(b, np.float32) for b in sizes[1:]]
    net = glyphs.Model(weights, biases)
    params = net.weights + net.biases
    first: list[np.ndarray] = [np.zeros_like(p) for p in params]
    second: list[np.ndarray] = [np.zeros_like(p) for p in params]
    step = 0
    order_rng = np.random.default_rng(1)
    layers = len(net.weights)
    for epoch in range(epochs):
        order = order_rng.permutation(len(y))
        for begin in range(0, len(y), 256):
            batch = order[begin : begin + 256]
            activations = [x[batch]]
            for i in range(layers):
                out = activations[-1] @ net.weights[i] + net.biases[i]
                activations.append(np.maximum(out, 0) if i < layers - 1 else out)
            grad = glyphs.softmax(activations[-1])
            grad[np.arange(len(batch)), y[batch]] -= 1
            grad /= len(batch)
            grads_w: list[np.ndarray] = [np.empty(0)] * layers
            grads_b: list[np.ndarray] = [np.empty(0)] * layers
            for i in range(layers - 1, -1, -1):
                grads_w[i] = activations[i].T @ grad
                grads_b[i] = grad.sum(axis=0)
                if i:
                    grad = (grad @ net.weights[i].T) * (activations[i] > 0)
            step += 1
            adam_step(params, grads_w + grads_b, first, second, step, 1e-3)
        accuracy = float((net.proba(check[0]).argmax(axis=1) == check[1]).mean())
        log(f"epoch {epoch + 1}/{epochs}: held-out cells read right {accuracy:.3f}")
    return net


def conv_gradients(net: glyphs.ConvModel, x: np.ndarray, y: np.ndarray) -> tuple[float, list[np.ndarray]]:
    """The loss (softmax cross-entropy) of a batch and its gradient for each parameter."""
    k1, b1, k2, b2, w3, b3, w4, b4 = net.params
    logits, (cols1, conv1, pooled1, cols2, conv2, flat, hidden) = net.forward(x)
    n = len(x)
    grad = glyphs.softmax(logits)
    loss = float(-np.log(grad[np.arange(n), y] + 1e-9).mean())
    grad[np.arange(n), y] -= 1
    grad /= n
    d_hidden = (grad @ w4.T) * (hidden > 0)
    d_conv2 = _unpool(conv2, (d_hidden @ w3.T).reshape(n, *glyphs.pool(conv2).shape[1:])) * (conv2 > 0)
    d_conv2 = d_conv2.reshape(-1, d_conv2.shape[-1])
    d_pooled1 = _col2im(d_conv2 @ k2.T, pooled1.shape)
    d_conv1 = (_unpool(conv1, d_pooled1) * (conv1 > 0)).reshape(-1, conv1.shape[-1])
    return loss, [
        cols1.T @ d_conv1,
        d_conv1.sum(axis=0),
        cols2.T @ d_conv2,
        d_conv2.sum(axis=0),
        flat.T @ d_hidden,
        d_hidden.sum(axis=0),
        hidden.T @ grad,
        grad.sum(axis=0),
    ]


def _unpool(before: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """A max pooling's gradient: to the pixel(s) that were the maximum."""
    wide = np.repeat(np.repeat(grad, 2, axis=1), 2, axis=2)
    maxima = np.repeat(np.repeat(glyphs.pool(before), 2, axis=1), 2, axis=2)
    return (before == maxima) * wide


def _col2im(cols: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """glyphs.im2col's gradient: each neighbourhood's rows added back to the pixels they came from."""
    n, h, w, c = shape
    parts = cols.reshape(n, h, w, c, 3, 3)
    out = np.zeros((n, h + 2, w + 2, c), np.float32)
    for i in range(3):
        for j in range(3):
            out[:, i : i + h, j : j + w, :] += parts[..., i, j]
    return out[:, 1:-1, 1:-1, :]


def train_conv(
    x: np.ndarray, y: np.ndarray, epochs: int, log: Any, check: tuple[np.ndarray, np.ndarray]
) -> glyphs.ConvModel:
    """The convolutional network (16 and 32 channels, 256 hidden): Adam on batches of 128, the
    learning rate 1e-3 halved after 60 % and again after 85 % of the epochs, He initialisation."""
    init = np.random.default_rng(0)

    def he(a: int, b: int) -> np.ndarray:
        return init.normal(0, np.sqrt(2 / a), (a, b))

    c1, c2, hidden = 16, 32, 256
    pooled = (glyphs.CELL_H // 4) * (glyphs.CELL_W // 4) * c2
    net = glyphs.ConvModel(
        [
            he(9, c1),
            np.zeros(c1),
            he(9 * c1, c2),
            np.zeros(c2),
            he(pooled, hidden),
            np.zeros(hidden),
            he(hidden, len(glyphs.GLYPHS)),
            np.zeros(len(glyphs.GLYPHS)),
        ]
    )
    first: list[np.ndarray] = [np.zeros_like(p) for p in net.params]
    second: list[np.ndarray] = [np.zeros_like(p) for p in net.params]
    step = 0
    order_rng = np.random.default_rng(1)
    for epoch in range(epochs):
        order = order_rng.permutation(len(y))
        rate = 1e-3 * (0.5 if epoch >= epochs * 0.6 else 1) * (0.5 if epoch >= epochs * 0.85 else 1)
        losses = []
        for begin in range(0, len(y), 128):
            batch = order[begin : begin + 128]
            loss, grads = conv_gradients(net, x[batch].astype(np.float32), y[batch])
            losses.append(loss)
            step += 1
            adam_step(net.params, grads, first, second, step, rate)
        accuracy = float((net.proba(check[0]).argmax(axis=1) == check[1]).mean())
        log(
            f"epoch {epoch + 1}/{epochs}: loss {np.mean(losses):.4f}, held-out cells read right {accuracy:.3f}"
        )
    return net


def deep_model(state: dict[str, np.ndarray], temperature: float) -> glyphs.DeepConvModel:
    """The PyTorch network's weights (`state`: its state_dict as numpy) in the layout
    glyphs.DeepConvModel reads: each kernel (out, in, 3, 3) as columns over im2col's
    neighbourhoods (in * 9 + row * 3 + column), the hidden layer's inputs reordered from PyTorch's
    channel, row, column to row, column, channel; the last layer divided by `temperature`."""

    def kernel(weights: np.ndarray) -> np.ndarray:
        return weights.reshape(len(weights), -1).T

    hidden = state["f1.weight"]
    channels = len(state["c3.weight"])
    rows, columns = glyphs.CELL_H // 4, glyphs.CELL_W // 4
    f1 = hidden.reshape(len(hidden), channels, rows, columns).transpose(0, 2, 3, 1).reshape(len(hidden), -1).T
    return glyphs.DeepConvModel(
        [
            kernel(state["c1.weight"]),
            state["c1.bias"],
            kernel(state["c2.weight"]),
            state["c2.bias"],
            kernel(state["c3.weight"]),
            state["c3.bias"],
            f1,
            state["f1.bias"],
            state["f2.weight"].T / temperature,
            state["f2.bias"] / temperature,
        ]
    )


def train_deep(
    x: np.ndarray,
    y: np.ndarray,
    epochs: int,
    log: Any,
    check: tuple[np.ndarray, np.ndarray],
    widths: tuple[int, int, int] = DEEP_WIDTHS,
) -> glyphs.DeepConvModel:
    """glyphs.DeepConvModel trained with PyTorch (imported here: a training-time tool, not a
    dependency of the site; `pip install torch`): Adam on batches of 256 with a one-cycle
    learning rate up to 2e-3, dropout 0.3 before and after the hidden layer; then the temperature
    that gives the held-out cells `check` the least cross-entropy (logits divided by it)."""
    import torch  # noqa: PLC0415
    from torch import nn  # noqa: PLC0415
    from torch.nn import functional  # noqa: PLC0415

    torch.manual_seed(0)
    # registrations.ocr limits OpenMP to one thread for Tesseract (OMP_THREAD_LIMIT=1, unless set
    # otherwise), read once by the process's OpenMP; PyTorch asking it for more threads than
    # that spun on its first backward pass for good (the command never got past it). With
    # OMP_THREAD_LIMIT=$(nproc) given to the command it trains on every core: 7 minutes here.
    torch.set_num_threads(max(1, min(os.cpu_count() or 1, int(os.environ.get("OMP_THREAD_LIMIT", "64")))))

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            first, second, third = widths
            self.c1 = nn.Conv2d(1, first, 3, padding=1)
            self.c2 = nn.Conv2d(first, second, 3, padding=1)
            self.c3 = nn.Conv2d(second, third, 3, padding=1)
            self.f1 = nn.Linear(third * (glyphs.CELL_H // 4) * (glyphs.CELL_W // 4), 256)
            self.f2 = nn.Linear(256, len(glyphs.GLYPHS))
            self.drop = nn.Dropout(0.3)

        def forward(self, cells: Any) -> Any:
            out = functional.max_pool2d(functional.relu(self.c1(cells)), 2)
            out = functional.max_pool2d(functional.relu(self.c2(out)), 2)
            out = functional.relu(self.c3(out))
            return self.f2(self.drop(functional.relu(self.f1(self.drop(out.flatten(1))))))

    def tensor(cells: np.ndarray) -> Any:
        return torch.from_numpy(cells.astype(np.float32)).reshape(-1, 1, glyphs.CELL_H, glyphs.CELL_W)

    inputs, labels = tensor(x), torch.from_numpy(y.astype(np.int64))
    check_inputs, check_labels = tensor(check[0]), torch.from_numpy(check[1].astype(np.int64))
    net = Net()
    optimiser = torch.optim.Adam(net.parameters(), 1e-3)
    batches = (len(labels) + 255) // 256
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimiser, 2e-3, total_steps=epochs * batches, pct_start=0.15
    )
    for epoch in range(epochs):
        net.train()
        order = torch.randperm(len(labels))
        total = 0.0
        for begin in range(0, len(labels), 256):
            batch = order[begin : begin + 256]
            loss = functional.cross_entropy(net(inputs[batch]), labels[batch])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach()) * len(batch)
        net.eval()
        with torch.no_grad():
            accuracy = float((net(check_inputs).argmax(1) == check_labels).float().mean())
        log(
            f"epoch {epoch + 1}/{epochs}: loss {total / len(labels):.4f}, held-out cells read right {accuracy:.3f}"
        )
    with torch.no_grad():
        logits = net(check_inputs)
    temperature = torch.ones(1, requires_grad=True)
    fit = torch.optim.LBFGS([temperature], lr=0.1, max_iter=100)

    def nll() -> Any:
        fit.zero_grad()
        loss = functional.cross_entropy(logits / temperature, check_labels)
        loss.backward()
        return loss

    fit.step(nll)
    log(f"temperature {float(temperature.detach()):.3f}")
    state = {name: value.detach().numpy() for name, value in net.state_dict().items()}
    return deep_model(state, float(temperature))


class Command(BaseCommand):
    help = "Train the glyph reader's classifiers on degraded lines of monospace fonts (not the test fonts)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--cells", type=int, default=300_000)
        parser.add_argument("--epochs", type=int, default=20)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--out", type=Path, default=glyphs.MODEL)
        parser.add_argument("--conv-out", type=Path, default=glyphs.CONV_MODEL)
        parser.add_argument("--conv-epochs", type=int, default=12)
        parser.add_argument(
            "--model",
            choices=("mlp", "conv", "both", "deep"),
            default="both",
            help="which classifier to train",
        )
        parser.add_argument("--deep-out", type=Path, default=glyphs.DEEP_MODEL)
        parser.add_argument("--deep-epochs", type=int, default=4)
        parser.add_argument(
            "--fonts", type=Path, default=FONT_ROOT, help="where the fonts' share/fonts tree is"
        )
        parser.add_argument(
            "--packages", action="store_true", help="print the fonts' Debian packages and stop"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["packages"]:
            self.stdout.write(" ".join(font_packages()))
            return
        fonts = [options["fonts"] / path for _, path in TRAINING_FONTS]
        deep_fonts = fonts + [options["fonts"] / path for _, path in DEEP_FONTS]
        used = deep_fonts if options["model"] == "deep" else fonts
        missing = [str(f) for f in used if not f.exists()]
        if missing:
            raise CommandError(f"fonts missing (apt-get install {' '.join(font_packages())}): {missing}")
        if any(name in str(f).lower() for f in used for name in EXCLUDED_FAMILIES):
            raise CommandError("a test document's font is among the training fonts")
        if unequal := [str(f) for f in used if not monospaced(f)]:
            raise CommandError(f"fonts whose glyphs differ in width: {unequal}")
        started = time.monotonic()
        seed = options["seed"]
        if options["model"] in ("mlp", "both"):
            x, y = training_cells(seed, options["cells"], fonts)
            check = training_cells(seed + 1000, 5000, fonts)
            self.stdout.write(f"{len(y)} cells in {time.monotonic() - started:.0f} s")
            net = train(
                x,
                y,
                [glyphs.CELL_W * glyphs.CELL_H, 512, 256, len(glyphs.GLYPHS)],
                options["epochs"],
                self.stdout.write,
                check,
            )
            net.save(options["out"])
            self.stdout.write(f"wrote {options['out']} after {time.monotonic() - started:.0f} s")
        if options["model"] in ("conv", "both"):
            # heavier blur and a tilt: the perceptron trained on these read worse alone (bench
            # poor photos: 12 VINs against 16) and the pair erred more surely; the network on
            # them, with the perceptron on the others, reads best (measured)
            x, y = training_cells(seed, options["cells"], fonts, "heavier")
            x = x.astype(np.float16)  # half the memory; the network reads float16 cells alike
            check = training_cells(seed + 1000, 5000, fonts, "heavier")
            self.stdout.write(f"{len(y)} heavier cells in {time.monotonic() - started:.0f} s")
            conv = train_conv(x, y, options["conv_epochs"], self.stdout.write, check)
            conv.save(options["conv_out"])
            self.stdout.write(f"wrote {options['conv_out']} after {time.monotonic() - started:.0f} s")
        if options["model"] == "deep":
            # the sets drawn on both cores (each from its own seed: the same cells as one by one)
            with ProcessPoolExecutor(os.cpu_count()) as pool:
                drawn = [
                    pool.submit(training_cells, seed + offset, count, deep_fonts, regime)
                    for regime, offset, count in DEEP_SETS
                ]
                parts = [future.result() for future in drawn]
            # stored as float16 while training, as the other network's
            x = np.concatenate([cells for cells, _ in parts]).astype(np.float16).astype(np.float32)
            y = np.concatenate([labels for _, labels in parts])
            regime, offset, count = DEEP_CHECK
            check_x, check_y = training_cells(seed + offset, count, deep_fonts, regime)
            check = check_x.astype(np.float16).astype(np.float32), check_y
            self.stdout.write(f"{len(y)} cells in {time.monotonic() - started:.0f} s")
            deep = train_deep(x, y, options["deep_epochs"], self.stdout.write, check)
            deep.save(options["deep_out"])
            self.stdout.write(f"wrote {options['deep_out']} after {time.monotonic() - started:.0f} s")
