"""The one public photo of a real Zulassungsbescheinigung Teil I (issue 45) through the upload's
intake and the reader: recognised as a ZB I with its VIN, first registration and fuel, so refused
as not electric. The photo has no licence: it lives in var/specimen/ on a developer's machine
and is never committed; without it the test skips and says so."""

from __future__ import annotations

import datetime

import pytest

from registrations import reader
from registrations.intake import scan_prepare
from tests.fixtures.zlb.real.fonts import ROOT

SPECIMEN = ROOT / "var" / "specimen" / "zulassungsbescheinigung.png"


@pytest.mark.skipif(
    not SPECIMEN.exists(),
    reason=f"the public specimen photo is absent ({SPECIMEN}; it has no licence and is never committed: "
    "fetch images/zulassungsbescheinigung.png of the public repository Meteord/fahrzeugschein-detector there)",
)
def test_the_specimen_is_read_as_a_zb1() -> None:
    # given the specimen as an owner would upload it
    image = scan_prepare(SPECIMEN.read_bytes(), min_size=500, max_pixels=40_000_000).image
    # when it is read
    reading = reader.document_read(image)
    # then it is a ZB I with the specimen's values: a petrol car (Benzin, 0001), not electric
    assert reading.is_zlb
    assert reading.kind == "zb1"
    assert reading.vin == "HMU6910000K234157"
    assert reading.first_registration == datetime.date(2018, 1, 14)
    assert reading.energy_code == "0001"
    assert (reading.fuel or "").lower() == "benzin"
    assert reading.is_electric is False
