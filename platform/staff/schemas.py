"""Input and output shapes of the partner area's staff calls (docs/partner-api.md)."""

from __future__ import annotations

from typing import Any, Literal

from ninja import Schema
from pydantic import Field, field_validator

from accounts.validation import email_normalise
from common.text import CleanText, Password

# Every str a client sends is CleanText (no control characters, no emoji); passwords Password.

Role = Literal["partner_admin", "back_office", "viewer"]
# Times are ISO 8601 strings made by the endpoints: no datetime types in these schemas, since
# ninja builds some models at the first request and a frozen clock (freezegun, in tests)
# would hand pydantic its fake datetime class then.
Timestamp = str
ISO_DAY = r"^\d{4}-\d{2}-\d{2}$"


class LoginIn(Schema):
    username: CleanText = Field(min_length=1, max_length=254, description="Username or e-mail address")
    password: Password = Field(min_length=1, max_length=4096)


class TokenIn(Schema):
    token: CleanText = Field(
        min_length=1, max_length=40, description="Six digits of the app, or a backup code"
    )


class PasswordIn(Schema):
    password: Password = Field(min_length=1, max_length=4096)


class EnrolmentOut(Schema):
    qr_svg: str = Field(description="The otpauth URI as a QR code: an SVG data: URL for an <img>")
    secret: str = Field(description="The key in base32, for typing into an app by hand")
    otpauth_uri: str


class StepOut(Schema):
    step: Literal["otp", "enrol"]
    enrolment: EnrolmentOut | None = None


class MeOut(Schema):
    id: int
    email: str
    name: str
    role: Role
    language: Literal["de", "en"]
    digest_enabled: bool = Field(
        True, description="The daily mail digest (issue 49) is mailed to this member"
    )


class MePatchIn(Schema):
    digest_enabled: bool


class EnrolledOut(Schema):
    backup_codes: list[str]
    me: MeOut


class InviteInfoOut(Schema):
    email: str
    partner_name: str


class StaffInviteIn(Schema):
    email: CleanText
    name: CleanText = Field(min_length=1, max_length=150)
    role: Role

    @field_validator("email")
    @classmethod
    def _email(cls, value: str) -> str:
        return email_normalise(value)


class StaffPatchIn(Schema):
    role: Role | None = None
    is_active: bool | None = None


class MemberOut(Schema):
    id: int
    email: str
    name: str
    role: Role
    is_active: bool
    created_at: Timestamp
    last_login: Timestamp | None
    invited_by: int | None
    has_second_factor: bool


class InviteOut(Schema):
    id: int
    email: str
    name: str
    role: Role
    created_at: Timestamp
    expires_at: Timestamp
    invited_by: int | None


class StaffListOut(Schema):
    count: int
    results: list[MemberOut]
    invites: list[InviteOut] = Field(description="Invites not yet accepted and not expired")


class AuditOut(Schema):
    id: int
    actor: str
    actor_id: int | None
    action: str
    object_type: str
    object_id: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    created_at: Timestamp


class AuditPageOut(Schema):
    count: int
    page: int
    page_size: int
    results: list[AuditOut]


class AuditFilters(Schema):
    page: int = Field(1, ge=1)
    page_size: int = Field(25, ge=1, le=100)
    actor: int | None = Field(None, description="User id of the actor (the `actor_id` of an entry)")
    action: CleanText | None = Field(None, max_length=80)
    object_type: CleanText | None = Field(None, max_length=80)
    object_id: CleanText | None = Field(None, max_length=64)
    created_from: str | None = Field(None, pattern=ISO_DAY, description="YYYY-MM-DD")
    created_to: str | None = Field(None, pattern=ISO_DAY, description="YYYY-MM-DD, inclusive")


class WaitOut(Schema):
    detail: str
    error_code: str | None = None
    wait: int
