"""Finding the page: the paper's quad, also where shade cuts a corner off, a green table
joins the paper or the picture's edge cuts the paper, and the grid registered on it: each
field's box placed where the form has it in the picture (measured against the known warp)."""

from __future__ import annotations

import random
from collections.abc import Callable

import cv2
import numpy as np
import pytest
from PIL import Image

from registrations.geometry import BOXES, _enclosing_quad, find_quad, straighten
from registrations.intake import scan_prepare
from registrations.reader import GRID_SURE
from tests.fixtures.zlb import realistic


def test_a_cut_corner_is_recovered_where_the_sides_beside_it_meet() -> None:
    # a rectangle whose bottom-left corner is cut off by a diagonal
    pentagon = np.array([[0, 0], [100, 0], [100, 50], [20, 50], [0, 30]], np.float64)

    quad = _enclosing_quad(pentagon)

    assert quad is not None
    assert sorted(map(tuple, quad.round(6).tolist())) == [(0, 0), (0, 50), (100, 0), (100, 50)]


def test_green_paper_on_a_dark_cloth_with_a_corner_in_shade() -> None:
    rng = np.random.default_rng(3)
    picture = np.full((600, 800, 3), 30, np.uint8)  # BGR: dark cloth
    corners = np.array([[100, 150], [700, 80], [740, 420], [130, 520]], np.int32)
    cv2.fillPoly(picture, [corners], (215, 235, 220))  # pale green paper
    # shade over the bottom-left corner: the paper there as dark as the cloth
    cv2.fillPoly(picture, [np.array([[0, 380], [260, 600], [0, 600]], np.int32)], (30, 30, 30))
    picture = np.clip(picture + rng.normal(0, 3, picture.shape), 0, 255).astype(np.uint8)

    quad, _, _ = find_quad(picture)

    assert quad is not None
    assert np.abs(quad - corners).max() < 12


@pytest.mark.parametrize("seed", [0, 2])
def test_poor_photos_whose_page_was_not_found(seed: int) -> None:
    # given poor photos of the bench's set: 0 with its bottom-left corner in deep shade, 2 on
    # a textured yellow-green table that joined the paper at the widest paleness
    sample = realistic.zb1_sample(seed, "poor")
    image = scan_prepare(sample.data, min_size=500, max_pixels=40_000_000).image

    page = straighten(image)

    assert page.found
    assert page.grid >= GRID_SURE


def photographed(
    seed: int,
    corners: list[tuple[float, float]],
    *,
    size: tuple[int, int],
    frame: tuple[int, int, int, int],
    fold: tuple[float, float] | None = None,
) -> tuple[Image.Image, Callable[[np.ndarray], np.ndarray]]:
    """The generator's form warped so that its corners land on `corners` in a `size` scene on
    a dark cloth, then cut to `frame` (x0, y0, x1, y1): the picture and where a point of the
    form (mm) lies in it. `fold`: the paper folded down the middle (x = 105 mm), its right half
    bent toward the camera: its far corners moved by this in the picture."""
    rng = random.Random(f"geometry-{seed}")
    page = cv2.cvtColor(
        np.asarray(realistic.render_form(rng, realistic.vehicle(rng).values)), cv2.COLOR_RGB2BGR
    )
    px = realistic.PX_PER_MM
    source = np.array([[0, 0], [210, 0], [210, 105], [0, 105]], np.float32)
    flat = cv2.getPerspectiveTransform(source, np.array(corners, np.float32)) @ np.diag([1 / px, 1 / px, 1.0])
    halves = [(0.0, 210.0, flat)]
    if fold is not None:
        right = np.array([[105, 0], [210, 0], [210, 105], [105, 105]], np.float32)
        target = cv2.perspectiveTransform(right.reshape(-1, 1, 2) * px, flat).reshape(-1, 2)
        target[1:3] += np.array(fold, np.float32)
        bent = cv2.getPerspectiveTransform(right, target) @ np.diag([1 / px, 1 / px, 1.0])
        halves = [(0.0, 105.0, flat), (105.0, 210.0, bent)]
    width, height = size
    scene = realistic.scene_background(rng, width, height, "dark")
    for start, end, matrix in halves:
        part = np.zeros(page.shape[:2], np.uint8)
        part[:, round(start * px) : round(end * px)] = 255
        mask = cv2.warpPerspective(part, matrix, size)
        warped = cv2.warpPerspective(page, matrix, size, flags=cv2.INTER_AREA)
        scene = np.where(mask[..., None] > 127, warped, scene)
    scene = cv2.GaussianBlur(scene, (0, 0), 1.0)
    x0, y0, x1, y1 = frame
    picture = Image.fromarray(cv2.cvtColor(np.ascontiguousarray(scene[y0:y1, x0:x1]), cv2.COLOR_BGR2RGB))

    def truth(points_mm: np.ndarray) -> np.ndarray:
        placed = np.zeros_like(points_mm, np.float64)
        for start, end, matrix in halves:
            inside = (points_mm[:, 0] >= start) & (points_mm[:, 0] <= end)
            if not inside.any():
                continue
            mapped = cv2.perspectiveTransform(points_mm[inside].reshape(-1, 1, 2) * px, matrix)
            placed[inside] = mapped.reshape(-1, 2)
        return placed - np.array([x0, y0])

    return picture, truth


def placement_error_mm(
    image: Image.Image, truth: Callable[[np.ndarray], np.ndarray], codes: tuple[str, ...]
) -> dict[str, float]:
    """How far (mm) each box's corners on the straightened page lie from where the form has
    them in the picture: the page's fixed boxes are what the reader cuts out."""
    page = straighten(image)
    ends = truth(np.array([[0.0, 50.0], [210.0, 50.0]]))
    scale = float(np.linalg.norm(ends[1] - ends[0])) / 210  # picture pixels per mm, roughly
    errors = {}
    for code in codes:
        x, y, w, h = BOXES[code]
        box = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float64)
        placed = page.template_to_picture(box)  # the page's boxes at 1:1 (offset 0, scale 1)
        expected = truth(box)
        errors[code] = float(np.linalg.norm(placed - expected, axis=1).max() / scale)
    return errors


FIELDS = ("E", "B", "J", "10", "P.3", "A", "I")


def test_a_side_cut_off_by_the_frame_is_carried_on_past_the_picture() -> None:
    # the document's right end (box 3, the end of E) outside the picture, seen at an angle
    image, truth = photographed(
        1, [(150, 260), (1450, 170), (1500, 880), (180, 930)], size=(1600, 1100), frame=(0, 0, 1380, 1100)
    )

    quad, _, extended = find_quad(cv2.cvtColor(np.asarray(image), cv2.COLOR_RGB2BGR))

    assert quad is not None and extended == (True, False)
    assert quad[:, 0].max() > image.width + 20  # the right corners lie beyond the frame
    assert max(placement_error_mm(image, truth, FIELDS).values()) < 1.0


def test_a_corner_beyond_the_frame_where_the_cut_runs_nearly_along_the_paper() -> None:
    # the bottom-left corner below the picture: the frame and the paper's bottom edge meet at
    # a small angle, which a polygon approximation would merge into one slanted side
    image, truth = photographed(
        2, [(270, 440), (1220, 250), (1290, 730), (325, 825)], size=(1400, 1000), frame=(0, 0, 1400, 790)
    )

    quad, _, _ = find_quad(cv2.cvtColor(np.asarray(image), cv2.COLOR_RGB2BGR))

    assert quad is not None
    expected = truth(np.array([[0.0, 105.0]]))[0]
    assert np.linalg.norm(quad - expected, axis=1).min() < 8  # the corner outside, found
    assert max(placement_error_mm(image, truth, FIELDS).values()) < 0.6


def test_strong_keystone_with_the_top_cut_and_turned_a_quarter() -> None:
    # photographed at a slant (one end much nearer), the far end cut by the frame, and the
    # picture then saved turned 90 degrees
    image, truth = photographed(
        3, [(60, 150), (1500, 60), (1560, 1000), (40, 860)], size=(1600, 1100), frame=(0, 110, 1600, 1100)
    )
    turned = image.rotate(90, expand=True)

    def turned_truth(points_mm: np.ndarray) -> np.ndarray:  # PIL's quarter turn (counter-clockwise)
        x, y = truth(points_mm).T
        return np.stack([y, image.width - x], axis=1)

    errors = placement_error_mm(turned, turned_truth, FIELDS)

    assert max(errors.values()) < 1.0, errors


def test_boxes_on_a_whole_page_in_view_stay_within_a_few_tenths_of_a_millimetre() -> None:
    image, truth = photographed(
        4, [(200, 180), (1400, 120), (1430, 760), (190, 800)], size=(1600, 1000), frame=(0, 0, 1600, 1000)
    )

    errors = placement_error_mm(image, truth, FIELDS)

    assert max(errors.values()) < 0.4, errors


def test_a_page_folded_down_the_middle_keeps_the_read_fields_within_a_millimetre() -> None:
    # the right half (the VIN's box E, B, J, 10) bent toward the camera along the fold: no
    # single perspective holds for the whole page; the alignment shares the difference out
    image, truth = photographed(
        5,
        [(150, 200), (1450, 140), (1480, 820), (170, 860)],
        size=(1600, 1000),
        frame=(0, 0, 1600, 1000),
        fold=(30.0, 18.0),
    )

    errors = placement_error_mm(image, truth, ("E", "B", "J", "10", "P.3"))

    assert max(errors.values()) < 1.0, errors
