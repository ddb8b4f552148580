"""Every billing rule of spec/registration-flow.md section 5, on the server."""

from __future__ import annotations

import re
from typing import Any

from schwifty import IBAN
from schwifty.exceptions import SchwiftyException
from stdnum.de import stnr, vat

from billing import errors
from common.partner_config import PartnerConfig
from common.text import contains_emoji, text_problem

TEXT_FIELDS = (
    "first_name", "last_name", "street_name", "street_number", "postal_code", "city", "account_name",
    "account_iban", "account_bic", "charge_card", "partner_variable", "campaign", "free_text",
    "full_url_variable_string", "name_of_business", "vat_number", "signup_url", "login_url",
)  # fmt: skip
MAX_LENGTHS = {
    "first_name": 100, "last_name": 100, "street_name": 200, "street_number": 20, "postal_code": 10, "city": 100,
    "account_name": 100, "account_iban": 42, "account_bic": 11, "charge_card": 100, "partner_variable": 200,
    "campaign": 200, "free_text": 2000, "full_url_variable_string": 2000, "name_of_business": 200,
    "vat_number": 20, "signup_url": 2000, "login_url": 2000,
}  # fmt: skip
# Typed in a text area: line breaks allowed (other control characters still refused).
MULTILINE_FIELDS = {"free_text"}
HOLDER = re.compile(r"^[A-Za-z0-9/?:().,+‘' ]+$")
VAT_ID = re.compile(r"^DE[ -]?(\d{9})$", re.IGNORECASE)
TAX_NUMBER = re.compile(r"^(\d{10,12}|\d{4}0\d{8})$")
GENDERS = {
    1: ["woman", "man"],
    2: ["woman", "man", "diverse"],
    3: ["woman", "man", "diverse", "not_specified"],
}

Errors = dict[str, Any]

# billing.services' B2B placeholder client checks its fields with this (full emoji set).
__all__ = ["contains_emoji", "client_validate", "iban_check", "tax_number_normalise", "tax_number_valid"]


def iban_check(value: str) -> str | None:
    """The error code for an IBAN (spaces ignored), or None when it can be paid to."""
    try:
        iban = IBAN(value.replace(" ", ""))
    except SchwiftyException:
        return errors.IBAN_INVALID
    return None if iban.in_sepa_zone else errors.IBAN_NOT_SEPA


def tax_number_normalise(value: str) -> tuple[str, str] | None:
    """('vat', 'DE123456789') or ('stnr', digits) when the format is right, else None."""
    compact = value.strip()
    match = VAT_ID.match(compact)
    if match:
        return "vat", "DE" + match.group(1)
    digits = compact.replace(" ", "").replace("/", "")
    if TAX_NUMBER.match(digits):
        return "stnr", digits
    return None


def tax_number_valid(kind: str, number: str) -> bool:
    if kind == "vat":
        return bool(vat.is_valid(number))
    # A 13-digit federal form has no checksum stdnum knows; 10-11 digit regional forms do.
    return len(number) == 13 or bool(stnr.is_valid(number))


def _add(found: Errors, field: str, message: str) -> None:
    found.setdefault(field, [])
    if isinstance(found[field], list):
        found[field].append(message)


def client_validate(data: dict[str, Any], config: PartnerConfig) -> tuple[dict[str, Any], Errors]:
    """Clean a client payload; the second value maps fields to their messages (or error codes)."""
    found: Errors = {}
    clean: dict[str, Any] = {}
    for field in TEXT_FIELDS:
        value = data.get(field)
        if value is None:
            value = ""
        if not isinstance(value, str):
            _add(found, field, "Bitte geben Sie einen Text ein.")
            continue
        value = value.strip()
        problem = text_problem(value, multiline=field in MULTILINE_FIELDS)
        if problem:
            _add(found, field, problem)
        elif len(value) > MAX_LENGTHS[field]:
            _add(found, field, f"Höchstens {MAX_LENGTHS[field]} Zeichen.")
        clean[field] = value

    for field in ("first_name", "last_name", "street_name", "street_number", "postal_code", "city"):
        if field not in found and not clean.get(field):
            _add(found, field, errors.REQUIRED)
    if "street_name" not in found and len(clean["street_name"]) < 3:
        _add(found, "street_name", errors.STREET_INVALID)

    gender = data.get("gender")
    if config.show_gender_option:
        if not gender:
            _add(found, "gender", errors.REQUIRED)
        elif gender not in GENDERS[config.gender_option]:
            _add(found, "gender", errors.NOT_OFFERED)
        clean["gender"] = gender or ""
    else:
        clean["gender"] = ""

    _payment(clean, found, config)
    _owner(data, clean, found, config)
    clean["email_promotion_opt_in"] = data.get("email_promotion_opt_in") is True
    if not config.end_user_portal_enable:
        clean["signup_url"] = clean["login_url"] = ""
    return clean, found


def _payment(clean: dict[str, Any], found: Errors, config: PartnerConfig) -> None:
    option = config.pages.payment.payment_option
    has_bank = bool(clean.get("account_iban") or clean.get("account_name"))
    has_card = bool(clean.get("charge_card"))
    bank_required = option in {"BANK", "BANKANDOPTIONALCHARGECARD"} or (
        option == "BANKORCHARGECARD" and not has_card
    )
    card_allowed = option in {"CHARGECARD", "BANKORCHARGECARD", "BANKANDOPTIONALCHARGECARD"}
    bank_allowed = option != "CHARGECARD" and option != "NONE"
    if option == "NONE":
        clean.update(account_iban="", account_name="", account_bic="", charge_card="")
        return
    if option == "CHARGECARD" and not has_card and "charge_card" not in found:
        _add(found, "charge_card", errors.REQUIRED)
    if not card_allowed:
        clean["charge_card"] = ""
    if not bank_allowed:
        clean.update(account_iban="", account_name="")
        return
    if bank_required or has_bank:
        holder = clean.get("account_name", "")
        if "account_name" not in found:
            if not holder:
                _add(found, "account_name", errors.REQUIRED)
            elif len(holder) < 2:
                _add(found, "account_name", errors.HOLDER_INVALID)
            elif not HOLDER.match(holder):
                _add(found, "account_name", errors.HOLDER_CHARACTERS)
        iban = clean.get("account_iban", "").replace(" ", "").upper()
        if "account_iban" in found:
            pass
        elif not iban:
            _add(found, "account_iban", errors.REQUIRED)
        else:
            code = iban_check(iban)
            if code:
                found["account_iban"] = {"error_code": code}
        clean["account_iban"] = iban
    clean["account_bic"] = ""


def _owner(data: dict[str, Any], clean: dict[str, Any], found: Errors, config: PartnerConfig) -> None:
    owner_type = data.get("vehicle_owner_type") or "private"
    if owner_type not in {"private", "business"} or (
        owner_type == "business" and not config.enable_private_business_registration
    ):
        _add(found, "vehicle_owner_type", errors.NOT_OFFERED)
        return
    clean["vehicle_owner_type"] = owner_type
    if owner_type == "private":
        clean.update(is_vat_mandatory=None, name_of_business="", vat_number="")
        return
    vat_mandatory = data.get("is_vat_mandatory")
    if not isinstance(vat_mandatory, bool):
        _add(found, "is_vat_mandatory", errors.CHOOSE)
        return
    clean["is_vat_mandatory"] = vat_mandatory
    if not vat_mandatory:
        return
    if not clean.get("name_of_business") and "name_of_business" not in found:
        _add(found, "name_of_business", errors.REQUIRED)
    if "vat_number" in found:
        return
    if not clean.get("vat_number"):
        _add(found, "vat_number", errors.REQUIRED)
        return
    normalised = tax_number_normalise(clean["vat_number"])
    if normalised is None:
        _add(found, "vat_number", errors.TAX_NUMBER_FORMAT)
    elif not tax_number_valid(*normalised):
        found["vat_number"] = {"error_code": errors.VAT_INVALID}
    else:
        clean["vat_number"] = normalised[1]
