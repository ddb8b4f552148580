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


class PortalLoginIn(Schema):
    username: str = Field(max_length=254)
    password: str = Field(max_length=200)
    recaptcha: str = Field(default="", max_length=2000)


class PortalLoginOut(Schema):
    tokens: TokensOut | None
    recaptcha_extra_check: bool
    user_id: int | None


class OtpVerifyIn(Schema):
    user_id: int
    otp_code: str = Field(max_length=32)


class OtpResendIn(Schema):
    user_id: int


class TokensWrappedOut(Schema):
    tokens: TokensOut
    user_id: int


class DetailOut(Schema):
    detail: str


class ResetRequestIn(EmailIn):
    pass


class ResetVerifyOut(Schema):
    detail: str
    email: str
    is_user_creation: bool


class ResetCompleteIn(Schema):
    password: str = Field(default="", max_length=200)
    password_again: str = Field(default="", max_length=200)
    token: str = Field(max_length=200)
    uidb64: str = Field(max_length=50)
    recaptcha: str = Field(default="", max_length=2000)


class SignupSendIn(EmailIn):
    partner: str = Field(min_length=1, max_length=63)
    verify_email_url: str = Field(max_length=2000)


class SignupVerifyOut(Schema):
    email_address: str
    token: TokensOut
    is_unknown_user: bool


class AccountCreateIn(Schema):
    password: str = Field(default="", max_length=200)
    password_again: str | None = Field(default=None, max_length=200)
    subdomain: str = Field(max_length=63)
    recaptcha: str = Field(default="", max_length=2000)
    # Required only when the account has a password already (it is then a change, not a creation).
    current_password: str = Field(default="", max_length=200)


class AccountCreatedOut(Schema):
    detail: str
    tokens: TokensOut
