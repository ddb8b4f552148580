"""Shapes of the quota calls: the portal's form bodies read by hand, the portal's cards and
filters, the partner area's application detail and filters."""

from __future__ import annotations

from typing import Any, Literal

from ninja import Schema
from pydantic import BaseModel, Field

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


# The partner area's application detail (operations.application_selectors.application_detail): the row,
# the scan and what the reader found, the billing data with the IBAN masked, the agreement, the
# history and the moves the catalogue allows.
class ThirdPartyAgreementOut(BaseModel):
    legislation_year: int
    agreed_at: str = Field(description="When the owner agreed (ISO 8601, the partner's local time)")
    text_version: str = Field(description="SHA-256 of the text shown: the checkbox and the terms behind it")
    text: str = Field(description="The checkbox text as shown")
    channel: str = Field(description="web (the registration flow) or portal (the customer portal)")
    channel_label: str


class ReadingFieldOut(Schema):
    code: str = Field(description="The form's field code: E, B, I, J, 10, P.3, D.1, D.3, A, 2.1")
    name: str
    value: str | None
    confidence: float | None = Field(description="0..1; null where the reader gave none")
    unread: bool = Field(description="Seen on the document but not read")
    source: Literal["reader", "corrected"]
    corrected_by: str | None
    corrected_at: str | None


class FieldCorrectionOut(Schema):
    code: str
    before: str
    after: str
    actor: str
    rule: str = Field(description="The reader's rule that had decided the field when it was corrected")
    created_at: str


class RegistrationDetailOut(Schema):
    uuid: str
    scan_url: str
    resized_url: str
    source: str
    vin: str
    first_registration: str | None
    vehicle_class: str
    energy_code: str
    is_electric: bool | None
    needs_review: bool
    classifier_skipped: bool
    registration_date: str | None
    make: str
    model: str
    fuel: str
    plate: str
    maker_key: str
    fields: list[ReadingFieldOut]
    unread: list[str]
    decided_by: dict[str, str] = Field(
        description="Per field code the reader's rule that decided it, or why it was left unread"
    )
    field_boxes: dict[str, list[float]] = Field(
        description="Per field code where its value lies on the display picture: [x0, y0, x1, y1], "
        "shares of its size"
    )
    check_digit: str
    holder_name: str
    holder_first_names: str
    holder_mismatch: bool | None = Field(
        description="The holder on the document (C.1.1/C.1.2) against the billing name: true differs "
        "(flagged for review: leasing, companies; never refused), false the same, null not compared"
    )
    corrections: list[FieldCorrectionOut]


class ApplicationClientOut(Schema):
    gender: str
    first_name: str
    last_name: str
    street_name: str
    street_number: str
    postal_code: str
    city: str
    email: str
    owner_type: str
    name_of_business: str
    account_name: str
    iban_masked: str
    partner_variable: str
    campaign: str


class HistoryEntryOut(Schema):
    status: str
    status_label: str
    reason: str
    actor: str
    created_at: str


class AllowedMoveOut(Schema):
    status: str
    status_label: str


class ApplicationRowOut(Schema):
    """One application of the partner area's list (operations.application_selectors.application_rows)."""

    id: int
    sequence: int
    legislation_year: int
    status: str
    status_label: str
    created_at: str
    updated_at: str
    vin: str
    vehicle_class: str
    owner_name: str
    owner_type: str
    sub_partner: NamedOut | None
    single_deal: NamedOut | None
    fee_gross: str | None
    reference: str = Field("", description="The partner's own reference (PUT .../reference/)")


class ApplicationDetailOut(ApplicationRowOut):
    """The row plus what the drawer shows (operations.application_selectors.application_detail)."""

    registration: RegistrationDetailOut
    client: ApplicationClientOut
    agreement: ThirdPartyAgreementOut | None = Field(
        description="The owner's agreement in text form naming the partner as third party ('Dritter', "
        "38. BImSchV § 5 Abs. 2) for the application's year: the first terms of that year the owner "
        "agreed to. Null where none is recorded (a B2B upload: the partner's contract covers it)."
    )
    history: list[HistoryEntryOut]
    allowed_moves: list[AllowedMoveOut]
