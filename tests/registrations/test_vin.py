"""Field 3 of the ZB I (the KBA check digit of the VIN) and the VIN's plausibility rules."""

from __future__ import annotations

import pytest

from registrations import vin


def test_field3_of_the_published_example() -> None:
    # the published example of the KBA check digit
    assert vin.kba_check_digit("A1BS31Z0430336179") == "4"


@pytest.mark.parametrize(
    ("value", "digit"),
    [
        ("HMU6910000K234157", "X"),  # the public specimen's VIN: the sum leaves 10
        ("WVWZZZ1JZXW000001", vin.kba_check_digit("WVWZZZ1JZXW000001")),
    ],
)
def test_field3_is_a_digit_or_x(value: str, digit: str) -> None:
    assert vin.kba_check_digit(value) == digit
    assert digit in "0123456789X"


def test_letters_count_by_their_ebcdic_digit() -> None:
    # A and J and S+1 share a digit (1, 1, 2 vs T=3...): swapping them keeps the sum
    assert vin.kba_check_digit("A" + "0" * 16) == vin.kba_check_digit("J" + "0" * 16)
    assert vin.kba_check_digit("S" + "0" * 16) == vin.kba_check_digit("B" + "0" * 16)
    # the weight of the first place is 9: A (1) -> 9
    assert vin.kba_check_digit("A" + "0" * 16) == "9"
    # an O printed on an old document counts 0, as the digit it stands for
    assert vin.kba_check_digit("O" * 17) == "0"


def test_field3_disagreeing_is_not_valid() -> None:
    good = "A1BS31Z0430336179"
    assert vin.valid(good, "4")
    assert not vin.valid(good, "5")
    assert vin.kba_check_ok(good, " 4 ")
    assert not vin.kba_check_ok("SHORT", "4")


def test_a_single_misread_changes_field3() -> None:
    # every one-character substitution at any place is caught by field 3 unless the weight
    # times the difference is a multiple of 11 (never for weights 2..10 and digit gaps 1..9)
    base = "A1BS31Z0430336179"
    for place in range(17):
        for other in "0123456789":
            if other == base[place]:
                continue
            changed = base[:place] + other + base[place + 1 :]
            if vin._ebcdic_digit(other) == vin._ebcdic_digit(base[place]):
                continue
            assert vin.kba_check_digit(changed) != "4", changed


def test_iso_check_digit_where_mandatory() -> None:
    assert vin.plausible("1M8GDM9AXKP042788") == (True, True)  # the textbook North American VIN
    assert vin.plausible("1M8GDM9A1KP042788") == (False, False)  # wrong ISO digit in region 1
    # an unknown WMI alone is no reason to refuse
    assert vin.plausible("ZZZ6910000K234157")[0]
    assert not vin.plausible("HMU6910000K23415I")[0]  # I is not a VIN character
