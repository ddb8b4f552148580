"""The documents a payout leaves (issue 46): a self-billing credit note (Gutschrift, § 14 Abs. 2
Satz 2 and Abs. 4 UStG) for a business owner, a payout statement (Auszahlungsbeleg, no VAT) for
a private owner. Both live in the partner's schema, numbered without gaps per partner and kind
(DocumentCounter). Imported by operations.models, so Django finds them as the app's models.

A document is a tax record: it keeps what it says (names, addresses, VAT ids, amounts) as
issued, kept for the retention period of tax law; the owner's part is encrypted at rest."""

from __future__ import annotations

import json
from typing import Any

from django.db import models

from common.crypto import EncryptedTextField


class DocumentKind(models.TextChoices):
    CREDIT_NOTE = "credit_note", "Gutschrift"
    PAYOUT_STATEMENT = "payout_statement", "Auszahlungsbeleg"


class VatMode(models.TextChoices):
    STANDARD = "standard", "Umsatzsteuer ausgewiesen"
    REVERSE_CHARGE = "reverse_charge", "Steuerschuldnerschaft des Leistungsempfängers (§ 13b UStG)"
    SMALL_BUSINESS = "small_business", "Kleinunternehmer (§ 19 UStG)"
    PRIVATE = "private", "Privatperson (keine Umsatzsteuer)"


class DocumentCounter(models.Model):
    """The last number drawn for one kind in this partner's schema. Drawn under a row lock in the
    issuing transaction: a rolled-back issue gives its numbers back, so numbers have no gaps and
    are never used twice."""

    kind = models.CharField(max_length=20, choices=DocumentKind.choices, unique=True)
    last_number = models.PositiveBigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.kind}: {self.last_number}"


class PayoutDocument(models.Model):
    kind = models.CharField(max_length=20, choices=DocumentKind.choices)
    # e.g. GS-AUTOHAUS-000001: the kind, the partner (its subdomain: unique among partners), the
    # counter's value
    number = models.CharField(max_length=40, unique=True)
    sequence = models.PositiveBigIntegerField()
    # Kept as long as its payout record: the batch and its items go at the end of the legal
    # period (privacy.retention, RETENTION_PAYOUT_YEARS), their documents with them.
    item = models.OneToOneField(
        "operations.SettlementItem", on_delete=models.CASCADE, related_name="payout_document"
    )
    application = models.ForeignKey(
        "quota.QuotaApplication",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="payout_documents",
    )
    owner = models.ForeignKey(
        "accounts.User", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    issue_date = models.DateField()
    service_date = models.DateField()
    vat_mode = models.CharField(max_length=20, choices=VatMode.choices)
    # The partner (the credit note's recipient of the supply) as configured at issue.
    partner_data = models.JSONField(default=dict)
    # The owner (the supplier): name, business, address, VAT id or tax number; JSON, encrypted.
    owner_data = EncryptedTextField()
    vin = models.CharField(max_length=17, blank=True)
    vehicle_class = models.CharField(max_length=10, blank=True)
    legislation_year = models.PositiveSmallIntegerField()
    energy_kwh = models.PositiveIntegerField(null=True, blank=True)
    net = models.DecimalField(max_digits=10, decimal_places=2)
    vat_percent = models.DecimalField(max_digits=5, decimal_places=2)
    vat = models.DecimalField(max_digits=10, decimal_places=2)
    gross = models.DecimalField(max_digits=10, decimal_places=2)
    # The self-billing agreement: the clause printed, and the version (SHA-256) of the terms the
    # owner accepted last (privacy.ConsentRecord), empty where none was recorded (B2B, bulk).
    self_billing_clause = models.TextField(blank=True)
    terms_version = models.CharField(max_length=64, blank=True)
    end_to_end_id = models.CharField(max_length=35, blank=True)
    pdf_path = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["sequence", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "sequence"], name="operations_document_sequence_once"),
        ]

    def __str__(self) -> str:
        return self.number

    @property
    def owner_fields(self) -> dict[str, Any]:
        value = json.loads(self.owner_data or "{}")
        return value if isinstance(value, dict) else {}
