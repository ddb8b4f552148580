from __future__ import annotations

from ninja import Schema
from pydantic import Field

from config.text import CleanText


class DetailOut(Schema):
    detail: str


class PrivacyErrorOut(Schema):
    detail: str
    error_code: str


class ErasureConfirmIn(Schema):
    code: CleanText = Field(min_length=1, max_length=12)
