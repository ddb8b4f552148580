"""Shapes of the quota calls: the portal's form bodies read by hand, the portal's cards and
filters, the partner area's application detail and filters."""

from __future__ import annotations

from typing import Any, Literal

from ninja import Schema
from pydantic import BaseModel, ConfigDict, Field

# The resubmit is a PUT with a form body, which Django does not parse and ninja cannot
# infer: this is what the endpoint reads (as multipart or urlencoded form).
_RESUBMIT_FORM: dict[str, Any] = {
    "type": "object",
    "required": ["period"],
    "properties": {
        "period": {"type": "integer", "minimum": 0, "description": "The new quota year."},
        "email_promotion_opt_in": {"type": "boolean", "default": False},
        "free_text": {"type": "string", "maxLength": 2000, "default": ""},
    },
}
RESUBMIT_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {"schema": _RESUBMIT_FORM},
            "application/x-www-form-urlencoded": {"schema": _RESUBMIT_FORM},
        },
    }
}


# The partner area's application detail (quota.partner_selectors.application_detail). Its many
# other keys (the row, the reader's fields, the billing data, the history) are passed as they
# are (plain pydantic models: ninja's Schema reads its input through attribute access and would
# drop the keys it does not declare); the fields below are described.
class ThirdPartyAgreementOut(BaseModel):
    legislation_year: int
    agreed_at: str = Field(description="When the owner agreed (ISO 8601, the partner's local time)")
    text_version: str = Field(description="SHA-256 of the text shown: the checkbox and the terms behind it")
    text: str = Field(description="The checkbox text as shown")
    channel: str = Field(description="web (the registration flow) or portal (the customer portal)")
    channel_label: str


class RegistrationDetailOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    holder_mismatch: bool | None = Field(
        description="The holder on the document (C.1.1/C.1.2) against the billing name: true differs "
        "(flagged for review: leasing, companies; never refused), false the same, null not compared"
    )


class ApplicationDetailOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    registration: RegistrationDetailOut

    agreement: ThirdPartyAgreementOut | None = Field(
        description="The owner's agreement in text form naming the partner as third party ('Dritter', "
        "38. BImSchV § 5 Abs. 2) for the application's year: the first terms of that year the owner "
        "agreed to. Null where none is recorded (a B2B upload: the partner's contract covers it)."
    )


# ---------------------------------------------------------------- the portal (spec/customer-portal.md)


class TimelineDetailsOut(Schema):
    title: str
    subtitles: list[str]


class TimelineEntryOut(Schema):
    status: str
    position: Literal["past", "current", "future"]
    details: TimelineDetailsOut


class VatDetailsOut(Schema):
    client_fee_after_vat: str
    vat_percentage: str
    vat_amount: str


class CardDocumentOut(Schema):
    kind: Literal["credit_note", "payout_statement"]
    kind_label: str
    number: str
    issue_date: str
    url: str = Field(description="The owner's short-lived download link")


class CardClientOut(Schema):
    gender: str
    first_name: str
    last_name: str
    street_name: str
    street_number: str
    postal_code: str
    city: str
    vehicle_owner_type: str
    name_of_business: str
    is_vat_mandatory: bool | None
    vat_number: str
    account_name: str
    account_iban: str = Field(description="Masked")
    charge_card: str
    email: str


class CardRegistrationOut(Schema):
    id: int
    uuid: str
    vehicle_type: str
    zlb_scan: str
    resized_image: str
    # The display copy is the neutral card "Dokument eingegangen" (registrations.redaction: the
    # form was not located on the scan), not the scan with the holder panel blacked out.
    scan_placeholder: bool = False
    width: int
    height: int
    source: str
    created_at: str
    client: CardClientOut


class ApplicationCardOut(Schema):
    """One card of the portal's list (quota.selectors.quota_application_item)."""

    id: int
    sequence: int
    legislation_year: int
    status: str
    status_timeline: list[TimelineEntryOut]
    client_fee: str | None
    display_vat: bool
    vat_details: VatDetailsOut | None
    next_year_client_fee: str | None
    next_year_client_fee_year: int
    next_year_client_fee_for_m1: str | None
    payout_documents: list[CardDocumentOut]
    allowed_resubmit_years: list[int]
    registration: CardRegistrationOut


class ApplicationCardsOut(Schema):
    count: int
    results: list[ApplicationCardOut]


class StatusChoiceOut(Schema):
    value: str
    label: str
    name: str


class YearChoiceOut(Schema):
    value: int
    label: str
    period: Literal["historical", "current", "future"]


class PortalFiltersOut(Schema):
    status: list[StatusChoiceOut]
    legislation_year: list[YearChoiceOut]


class CreatedOut(Schema):
    id: int


# ---------------------------------------------------------------- the partner area


class PartnerStatusChoiceOut(Schema):
    value: str
    label: str


class NamedOut(Schema):
    id: int
    name: str


class PartnerFiltersOut(Schema):
    statuses: list[PartnerStatusChoiceOut]
    years: list[int]
    vehicle_classes: list[str]
    sub_partners: list[NamedOut]
    single_deals: list[NamedOut]
