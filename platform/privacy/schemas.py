from __future__ import annotations

from ninja import Schema
from pydantic import Field

from common.text import CleanText


class PrivacyErrorOut(Schema):
    detail: str
    error_code: str


class ErasureConfirmIn(Schema):
    code: CleanText = Field(min_length=1, max_length=12)


class PartnerErasureLookupIn(Schema):
    email: CleanText = Field(min_length=3, max_length=254)


class PartnerErasureIn(Schema):
    email: CleanText = Field(min_length=3, max_length=254)
    # Where the request came from (a letter, a mail of a date): kept in the audit log.
    reference: CleanText = Field(min_length=3, max_length=200)


class PartnerErasureOwnerOut(Schema):
    registrations: int
    applications: int
    payout_records_kept: int
    settlement_items_kept: int = 0


class PartnerErasureOut(Schema):
    detail: str
    counts: dict[str, int]
