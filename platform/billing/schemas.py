"""Output shapes of the registration flow's billing calls (spec/registration-flow.md)."""

from __future__ import annotations

from typing import Literal

from ninja import Schema
from pydantic import Field


class ClientCreatedOut(Schema):
    id: int
    email: str


class ClientPreviousOut(Schema):
    """A returning owner's last billing data (billing.selectors.client_prefill): never the IBAN,
    its masked form."""

    gender: str
    first_name: str
    last_name: str
    street_name: str
    street_number: str
    postal_code: str
    city: str
    account_name: str
    charge_card: str
    vehicle_owner_type: Literal["private", "business"]
    is_vat_mandatory: bool | None
    name_of_business: str
    vat_number: str
    account_iban_masked: str
    has_stored_iban: bool


class ClientLockedOut(Schema):
    id: int
    locked: bool
    quota_applications: int = Field(description="Applications the lock created")


class VatValidOut(Schema):
    status: Literal["valid"]
