from __future__ import annotations

from ninja import Schema
from pydantic import Field, field_validator

from accounts.validation import email_normalise


class EmailIn(Schema):
    email: str

    @field_validator("email")
    @classmethod
    def _email(cls, value: str) -> str:
        return email_normalise(value)


class LoginSendIn(EmailIn):
    partner: str = Field(min_length=1, max_length=63)
    verify_email_url: str = Field(default="", max_length=2000)


class CodeVerifyIn(EmailIn):
    otp_code: str = Field(max_length=32)


class LinkVerifyIn(Schema):
    key: str = Field(min_length=1, max_length=200)


class RefreshIn(Schema):
    refresh: str = Field(min_length=1, max_length=4000)


class TokensOut(Schema):
    access: str
    refresh: str


class SentOut(Schema):
    email: str


class ErrorOut(Schema):
    detail: str
    error_code: str | None = None


class ProfilePartnerOut(Schema):
    subdomain: str
    name: str
    is_eon_partner: bool


class ProfileOut(Schema):
    email: str
    first_name: str
    last_name: str
    username: str
    partner: ProfilePartnerOut
