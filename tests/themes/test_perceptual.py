"""The status colours of the theme keep a perceptual distance from the partner's primary."""

from __future__ import annotations

import pytest

from themes.contrast import contrast_ratio
from themes.perceptual import (
    STATUS_DEFAULTS,
    STATUS_DISTANCE,
    ciede2000,
    colour_distance,
    distinct_shade,
    hex_lab,
    status_palette,
)


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        # Sharma, Wu, Dalal (2005), test data pairs 1, 7, 17, 25, 34
        ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
        ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
        ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
        ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
        ((22.7233, 20.0904, -46.6940), (23.0331, 14.9730, -42.5619), 2.0373),
    ],
)
def test_ciede2000_gives_the_published_differences(
    first: tuple[float, float, float], second: tuple[float, float, float], expected: float
) -> None:
    assert ciede2000(first, second) == pytest.approx(expected, abs=1e-4)


def test_lab_of_srgb_white_black_and_red() -> None:
    assert hex_lab("#ffffff") == pytest.approx((100.0, 0.0, 0.0), abs=0.01)
    assert hex_lab("#000000") == pytest.approx((0.0, 0.0, 0.0), abs=0.01)
    assert hex_lab("#ff0000") == pytest.approx((53.24, 80.09, 67.20), abs=0.05)


def test_the_utility_partners_brand_red_no_longer_is_error_red() -> None:
    # given the demo utility partner's button colour, 4 from MUI's error red
    brand = "#c81e1e"
    assert colour_distance(brand, STATUS_DEFAULTS["error"]) < 5

    # when the palette is chosen, then the error moves away and still reads on white
    error = status_palette(brand)["error"]
    assert error != STATUS_DEFAULTS["error"]
    assert colour_distance(error, brand) >= STATUS_DISTANCE
    assert contrast_ratio(error, "#ffffff") >= 4.5
    # the nearest such shade: far less than a jump to another colour family
    assert colour_distance(error, STATUS_DEFAULTS["error"]) < 25


@pytest.mark.parametrize("name", sorted(STATUS_DEFAULTS))
def test_a_brand_equal_to_a_status_colour_pushes_that_status_away(name: str) -> None:
    brand = STATUS_DEFAULTS[name]

    palette = status_palette(brand)

    for colour in palette.values():
        assert colour_distance(colour, brand) >= STATUS_DISTANCE
    assert contrast_ratio(palette[name], "#ffffff") >= 4.5


def test_a_brand_far_from_every_status_keeps_the_defaults() -> None:
    assert status_palette("#1d4ed8") == STATUS_DEFAULTS
    assert distinct_shade("#d32f2f", "#1d4ed8") == "#d32f2f"
