"""Output shapes of the partner area's money calls (bulk uploads, settlement batches, payout
documents, the bank's return files) and the owner's payout calls (docs/partner-api.md).

The endpoints build their answers as dicts (money_api, documents_api); these schemas declare
them field for field, so the OpenAPI document and the generated web types say what is sent.
Times and days are the ISO strings the endpoints make, amounts decimal strings ("12.34")."""

from __future__ import annotations

from typing import Any, Literal

from ninja import Schema
from pydantic import Field

# The models' choices (operations.models, operations.document_models) as the answers send them.
BulkStatus = Literal[
    "new",
    "unstructured_data_upload_successful",
    "unstructured_data_upload_failed",
    "bevRegistration_bulk_creation_in_progress",
    "ready",
    "bevRegistration_bulk_created",
    "bevRegistration_bulk_rejected",
    "bevRegistration_bulk_is_rolled_back",
]
BulkItemStatus = Literal["pending", "accepted", "refused", "duplicate"]
BatchStatus = Literal["new", "settled"]
ItemMethod = Literal["sepa", "charge_card"]
ItemStatus = Literal["open", "paid", "failed"]
OwnerType = Literal["private", "business"]
DocumentKind = Literal["credit_note", "payout_statement"]

# ---------------------------------------------------------------- bulk uploads


class BulkCountsOut(Schema):
    pending: int
    accepted: int
    refused: int
    duplicate: int


class BulkSummaryOut(Schema):
    id: int
    status: BulkStatus
    status_label: str
    file_name: str
    size: int
    file_count: int
    has_csv: bool
    csv_encoding: str
    registration_years: list[int]
    counts: BulkCountsOut = Field(description="Items per item status")
    progress: float = Field(description="Share of the files read, 0 to 1")
    created_at: str
    finished_at: str | None
    rolled_back_at: str | None
    can_roll_back: bool


class BulkPageOut(Schema):
    count: int
    page: int
    page_size: int
    results: list[BulkSummaryOut]


class BulkRegistrationOut(Schema):
    id: int
    sequence: int
    vin: str
    needs_review: bool


class BulkApplicationOut(Schema):
    id: int
    legislation_year: int
    status: str


class BulkItemOut(Schema):
    id: int
    position: int
    file_name: str
    size: int
    status: BulkItemStatus
    status_label: str
    error_code: str | None
    details: dict[str, Any] = Field(description="The refusal's details, by error code")
    registration: BulkRegistrationOut | None
    has_owner: bool
    applications: list[BulkApplicationOut]


class BulkDetailOut(BulkSummaryOut):
    items: list[BulkItemOut]


class BulkRemovedOut(Schema):
    applications: int
    registrations: int
    clients: int
    owners: int = Field(description="Owner accounts made for the upload and not used since")


class BulkRollbackOut(BulkSummaryOut):
    removed: BulkRemovedOut = Field(description="What the rollback removed")


# ---------------------------------------------------------------- settlement batches


class TotalOut(Schema):
    count: int
    net: str
    vat: str
    gross: str


class TotalsOut(Schema):
    all: TotalOut
    sepa: TotalOut
    charge_card: TotalOut
    failed: TotalOut


class SepaFileOut(Schema):
    version: str
    msg_id: str
    built_at: str
    downloads: int
    warning: str | None


class ApprovalOut(Schema):
    required: bool
    approved: bool
    approved_at: str | None
    approved_by: str | None
    created_by: str | None


class BatchSummaryOut(Schema):
    id: int
    reference: str
    status: BatchStatus
    status_label: str
    execution_date: str
    created_at: str
    paid_at: str | None
    totals: TotalsOut
    sepa_file: SepaFileOut | None
    approval: ApprovalOut


class BatchPageOut(Schema):
    count: int
    page: int
    page_size: int
    results: list[BatchSummaryOut]


class ItemApplicationOut(Schema):
    id: int | None = Field(description="null once the owner is erased")
    sequence: int
    legislation_year: int
    status: str | None
    status_label: str


class SettlementItemOut(Schema):
    id: int
    application: ItemApplicationOut
    erased: bool
    payee_name: str
    owner_type: OwnerType | None
    method: ItemMethod
    status: ItemStatus
    net: str
    vat_percent: str
    vat: str
    gross: str
    iban_masked: str
    charge_card: str
    end_to_end_id: str
    failure_reason: str
    failed_at: str | None


class BatchDetailOut(BatchSummaryOut):
    items: list[SettlementItemOut] = Field(description="The SEPA transfers")
    charge_card_items: list[SettlementItemOut]


class SkippedOut(Schema):
    id: int
    sequence: int | None = Field(
        description="The application's number (None: no application of this partner)"
    )
    detail: str


class BatchCreatedOut(BatchDetailOut):
    skipped: list[SkippedOut] = Field(description="Applications not taken into the batch, and why")


class BatchPaidOut(Schema):
    detail: str
    batch: BatchDetailOut


class SettlementSettingsOut(Schema):
    approval_threshold: str = Field(description='Euros, e.g. "10000.00"')


# ---------------------------------------------------------------- payout documents


class DocumentOut(Schema):
    id: int
    kind: DocumentKind
    kind_label: str
    number: str
    issue_date: str
    vat_mode: str
    net: str
    vat: str
    gross: str
    application_id: int | None
    has_einvoice: bool


class BatchDocumentsOut(Schema):
    batch: int
    results: list[DocumentOut]


class ApplicationDocumentsOut(Schema):
    application: int
    results: list[DocumentOut]


class ApplicationSelfBillingOut(Schema):
    application: int
    self_billing_objected: bool


class ReturnedItemOut(Schema):
    item: int
    batch: int
    application: int | None
    end_to_end_id: str
    code: str


class FailedItemOut(ReturnedItemOut):
    reason: str


class ReturnFileOut(Schema):
    kind: Literal["camt.054", "pain.002"]
    returned: int
    failed: list[FailedItemOut]
    paid: list[ReturnedItemOut]
    already_failed: list[str]
    unknown: list[str]


class OwnerSelfBillingOut(Schema):
    self_billing_objected: bool
    changed_at: str


class PayoutAccountOut(Schema):
    account_iban: str = Field(description="Masked")
    applications: list[int]
    status: str


# ---------------------------------------------------------------- exports and print material


class BulkUploadYearsOut(Schema):
    years: list[int] = Field(description="The quota years an upload may name today")
    default: int | None


class SubPartnerLinkOut(Schema):
    id: int
    url: str = Field(description="The partner's site with the sub-partner's ?ref=")
