"""The SEPA file check (lxml's XMLSchema against the pain.001 XSDs sepaxml ships): a valid
file passes, and a file out of its types, of another message or not well-formed is refused."""

from __future__ import annotations

import datetime

import pytest

from operations import sepa

DEBTOR = sepa.Debtor(name="Autohaus Sonnenschein GmbH", iban="DE89370400440532013000", bic="COBADEFFXXX")
TRANSFER = sepa.Transfer(
    name="Jörg Müßig",
    iban="DE02120300000000202051",
    amount_cents=12_345,
    remittance="THG-Praemie Antrag 1001/2026",
    end_to_end_id="THG1-1001-2026",
)
DAY = datetime.date(2026, 12, 1)


@pytest.mark.parametrize("version", ["09", "03"])
def test_a_built_file_validates(version: sepa.Version) -> None:
    xml = sepa.credit_transfer_xml(debtor=DEBTOR, transfers=[TRANSFER], execution_date=DAY, version=version)

    sepa.sepa_validate(xml, version)  # raises otherwise
    assert b'<InstdAmt Ccy="EUR">123.45</InstdAmt>' in xml


@pytest.mark.parametrize("version", ["09", "03"])
def test_a_value_out_of_its_type_is_refused(version: sepa.Version) -> None:
    xml = sepa.credit_transfer_xml(debtor=DEBTOR, transfers=[TRANSFER], execution_date=DAY, version=version)
    broken = xml.replace(b"DE02120300000000202051", b"not-an-iban")

    with pytest.raises(sepa.SepaInvalid) as refused:
        sepa.sepa_validate(broken, version)
    assert "IBAN" in str(refused.value)
    assert str(refused.value).startswith("line ")


def test_a_file_of_the_other_version_is_refused() -> None:
    xml = sepa.credit_transfer_xml(debtor=DEBTOR, transfers=[TRANSFER], execution_date=DAY, version="09")

    with pytest.raises(sepa.SepaInvalid):
        sepa.sepa_validate(xml, "03")


def test_a_missing_element_is_refused() -> None:
    xml = sepa.credit_transfer_xml(debtor=DEBTOR, transfers=[TRANSFER], execution_date=DAY, version="09")
    start, end = xml.index(b"<NbOfTxs>"), xml.index(b"</NbOfTxs>") + len(b"</NbOfTxs>")

    with pytest.raises(sepa.SepaInvalid):
        sepa.sepa_validate(xml[:start] + xml[end:], "09")


def test_a_file_that_is_not_well_formed_or_declares_entities_is_refused() -> None:
    with pytest.raises(sepa.SepaInvalid):
        sepa.sepa_validate(b"<Document><unclosed></Document>", "09")
    entity = (
        b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><Document>&x;</Document>'
    )
    with pytest.raises(sepa.SepaInvalid) as refused:
        sepa.sepa_validate(entity, "09")
    assert "root:x:" not in str(refused.value)  # the file was never read
