from __future__ import annotations

from typing import Literal

from ninja import Schema
from pydantic import Field, field_validator

from accounts.validation import email_normalise
from common.text import CleanText, Password

# Every str a client sends is CleanText (no control characters, no emoji; common.text);
# passwords are Password (control characters refused, any printable character allowed).


class EmailIn(Schema):
    email: CleanText

    @field_validator("email")
    @classmethod
    def _email(cls, value: str) -> str:
        return email_normalise(value)


class LoginSendIn(EmailIn):
    partner: CleanText = Field(min_length=1, max_length=63)
    verify_email_url: CleanText = Field(default="", max_length=2000)


class CodeVerifyIn(EmailIn):
    otp_code: CleanText = Field(max_length=32)


class LinkVerifyIn(Schema):
    key: CleanText = Field(min_length=1, max_length=200)


class RefreshIn(Schema):
    refresh: CleanText = Field(min_length=1, max_length=4000)


class TokensOut(Schema):
    access: str
    refresh: str


class SentOut(Schema):
    email: CleanText


class ErrorOut(Schema):
    """An accounts error: the message (German, or English by accept-language) and its code of
    accounts.errors, as the handler of AccountError answers it (config.api)."""

    detail: str
    error_code: str


class ProfilePartnerOut(Schema):
    subdomain: str
    name: str
    is_eon_partner: bool


class ProfileOut(Schema):
    email: CleanText
    first_name: str
    last_name: str
    username: str
    partner: ProfilePartnerOut


class PortalLoginIn(Schema):
    username: CleanText = Field(max_length=254)
    password: Password = Field(max_length=200)
    recaptcha: CleanText = Field(default="", max_length=2000)


class PortalLoginOut(Schema):
    tokens: TokensOut | None
    recaptcha_extra_check: bool
    user_id: int | None


class OtpVerifyIn(Schema):
    user_id: int
    otp_code: CleanText = Field(max_length=32)


class OtpResendIn(Schema):
    user_id: int


class TokensWrappedOut(Schema):
    tokens: TokensOut
    user_id: int


class BotCheckChallengeOut(Schema):
    """A proof-of-work challenge in the shape the altcha widget and the portal's solver read."""

    algorithm: Literal["SHA-256"]
    challenge: str
    maxnumber: int
    salt: str
    signature: str


class ResetRequestIn(EmailIn):
    pass


class ResetVerifyOut(Schema):
    detail: str
    email: CleanText
    is_user_creation: bool


class ResetCompleteIn(Schema):
    password: Password = Field(default="", max_length=200)
    password_again: Password = Field(default="", max_length=200)
    token: CleanText = Field(max_length=200)
    uidb64: CleanText = Field(max_length=50)
    recaptcha: CleanText = Field(default="", max_length=2000)


class SignupSendIn(EmailIn):
    partner: CleanText = Field(min_length=1, max_length=63)
    verify_email_url: CleanText = Field(max_length=2000)


class SignupVerifyOut(Schema):
    email_address: str
    token: TokensOut
    is_unknown_user: bool


class AccountCreateIn(Schema):
    password: Password = Field(default="", max_length=200)
    password_again: Password | None = Field(default=None, max_length=200)
    subdomain: CleanText = Field(max_length=63)
    recaptcha: CleanText = Field(default="", max_length=2000)
    # Required only when the account has a password already (it is then a change, not a creation).
    current_password: Password = Field(default="", max_length=200)


class AccountCreatedOut(Schema):
    detail: str
    tokens: TokensOut
