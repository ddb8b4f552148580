"""The document check on generated ZLB-like pages and on things that are not one."""

from __future__ import annotations

import datetime

import pytest

from registrations.errors import ScanRejected
from registrations.intake import scan_prepare
from registrations.reader import Reading, document_check, document_read

LIMITS = {"min_size": 500, "max_pixels": 40_000_000}


def german_date(value: str) -> datetime.date:
    day, month, year = (int(part) for part in value.split("."))
    return datetime.date(year, month, day)


def read(data: bytes) -> Reading:
    return document_read(scan_prepare(data, **LIMITS).image)


def test_the_classifier_on_the_generated_set(
    generated_set: list[tuple[str, bytes, dict[str, str] | None]],
) -> None:
    documents = [(name, read(data), expected) for name, data, expected in generated_set if expected]
    others = [(name, read(data)) for name, data, expected in generated_set if expected is None]

    accepted = sum(reading.is_zlb for _, reading, _ in documents) / len(documents)
    false_accepts = [name for name, reading in others if reading.is_zlb]
    fields = {
        "B": sum(r.first_registration == german_date(e["B"]) for _, r, e in documents),
        "10": sum(r.energy_code == e["10"] for _, r, e in documents),
        "J": sum(r.vehicle_class == e["J"] for _, r, e in documents),
        "E": sum(r.vin == e["E"] for _, r, e in documents),
    }
    print(
        f"\nZLB accepted {accepted:.0%} of {len(documents)}; non-documents accepted {len(false_accepts)} of {len(others)}"
    )
    print("fields read correctly:", {k: f"{v}/{len(documents)}" for k, v in fields.items()})

    assert accepted >= 0.9
    assert false_accepts == []
    assert fields["10"] / len(documents) >= 0.9


def test_the_energy_code_flags_non_electric_vehicles(
    generated_set: list[tuple[str, bytes, dict[str, str] | None]],
) -> None:
    for _, data, expected in generated_set:
        if expected and expected["10"] != "0004":
            reading = read(data)
            assert reading.is_zlb
            assert reading.is_electric is False
            return
    pytest.fail("the set has no non-electric document")


@pytest.mark.parametrize(
    ("reading", "code"),
    [
        (Reading(is_zlb=False, readable=True, score=0), "IMGC002"),
        (Reading(is_zlb=False, readable=False, score=0), "IMGC003"),
    ],
)
def test_the_check_refuses_with_the_spec_codes(reading: Reading, code: str) -> None:
    with pytest.raises(ScanRejected) as refused:
        document_check(reading)

    assert refused.value.code == code


def test_readable_text_is_imgc002_and_blank_is_imgc003(
    generated_set: list[tuple[str, bytes, dict[str, str] | None]],
) -> None:
    by_name = {name: data for name, data, _ in generated_set}

    codes = {}
    for name in ("letter-002", "receipt-001", "blank-003", "photo-000"):
        with pytest.raises(ScanRejected) as refused:
            document_check(read(by_name[name]))
        codes[name] = refused.value.code

    assert codes == {
        "letter-002": "IMGC002",
        "receipt-001": "IMGC002",
        "blank-003": "IMGC003",
        "photo-000": "IMGC003",
    }
