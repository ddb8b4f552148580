"""Finding the page: the paper's quad, also where shade cuts a corner off or a green table
joins the paper, and the grid found on it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from registrations.geometry import _enclosing_quad, find_quad, straighten
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
