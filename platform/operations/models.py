"""The partner's own operations: sub-partners (installers, dealers) and single deals (fleet or
business customers with an agreed price). Both live in the partner's schema."""

from __future__ import annotations

import uuid
from decimal import ROUND_HALF_UP, Decimal

from django.contrib.postgres.fields import ArrayField
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models

from billing.masking import IbanMaskField
from common.crypto import EncryptedTextField

# Letters, digits, hyphen, 3-40: a key that survives a URL unescaped (`?ref=KEY`, `?deal=KEY`).
KEY_PATTERN = r"^[A-Za-z0-9-]{3,40}$"
key_validator = RegexValidator(KEY_PATTERN, "Nur Buchstaben, Ziffern und Bindestrich, 3 bis 40 Zeichen.")
CENT = Decimal("0.01")


class SubPartner(models.Model):
    """An installer or dealer under the partner; the flow's `?ref=KEY` attributes registrations."""

    name = models.CharField(max_length=200)
    contact_name = models.CharField(max_length=200, blank=True)
    contact_email = models.EmailField(blank=True)
    contact_phone = models.CharField(max_length=40, blank=True)
    referral_key = models.CharField(max_length=40, unique=True, validators=[key_validator])
    # The sub-partner's share of the client fee, in percent.
    fee_share_percent = models.DecimalField(
        max_digits=5,
        decimal_places=2,
        default=Decimal("0.00"),
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("100"))],
    )
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "pk"]

    def __str__(self) -> str:
        return self.name


class SingleDeal(models.Model):
    """An agreement with a fleet or business customer: a price per vehicle for some years, up
    to a number of vehicles; `?deal=KEY` in the flow or staff attach it to applications."""

    name = models.CharField(max_length=200)
    customer = models.CharField(max_length=200, blank=True)
    deal_key = models.CharField(max_length=40, unique=True, validators=[key_validator])
    price_net = models.DecimalField(
        max_digits=10, decimal_places=2, validators=[MinValueValidator(Decimal("0"))]
    )
    vat_percent = models.DecimalField(
        max_digits=5,
        decimal_places=2,
        default=Decimal("19.00"),
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("100"))],
    )
    legislation_years = ArrayField(models.PositiveSmallIntegerField(), default=list, blank=True)
    # The most vehicles (applications) the deal covers; null: no cap.
    vehicle_cap = models.PositiveIntegerField(null=True, blank=True)
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "pk"]

    def __str__(self) -> str:
        return self.name

    @property
    def price_gross(self) -> Decimal:
        return (self.price_net * (1 + self.vat_percent / 100)).quantize(CENT, rounding=ROUND_HALF_UP)


# ---------------------------------------------------------------- bulk uploads (issue 17)


class BulkUpload(models.Model):
    """A ZIP of scans (and an optional CSV of owner data) uploaded by partner staff; each file
    runs the flow's intake in a task of its own (operations.tasks)."""

    class Status(models.TextChoices):
        # spec/customer-portal.md section 4, the bulk statuses
        NEW = "new", "Neu"
        CSV_OK = "unstructured_data_upload_successful", "Halterdaten übernommen"
        CSV_FAILED = "unstructured_data_upload_failed", "Halterdaten fehlerhaft"
        IN_PROGRESS = "bevRegistration_bulk_creation_in_progress", "Wird verarbeitet"
        READY = "ready", "Fertig (mit Ablehnungen)"
        CREATED = "bevRegistration_bulk_created", "Alle Registrierungen angelegt"
        REJECTED = "bevRegistration_bulk_rejected", "Keine Registrierung angelegt"
        ROLLED_BACK = "bevRegistration_bulk_is_rolled_back", "Zurückgenommen"

    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    status = models.CharField(max_length=60, choices=Status.choices, default=Status.NEW)
    file_name = models.CharField(max_length=255)
    size = models.PositiveBigIntegerField()
    file_count = models.PositiveIntegerField()
    has_csv = models.BooleanField(default=False)
    csv_encoding = models.CharField(max_length=20, blank=True)
    registration_years = ArrayField(models.PositiveSmallIntegerField(), default=list)
    # Without a CSV every scan belongs to one owner account made for the upload.
    owner = models.ForeignKey(
        "accounts.User", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_by = models.ForeignKey(
        "accounts.User", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    rolled_back_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"bulk upload {self.pk} ({self.file_name})"


class BulkUploadItem(models.Model):
    """One file of a bulk upload and what became of it."""

    class Status(models.TextChoices):
        PENDING = "pending", "Wartet"
        ACCEPTED = "accepted", "Angenommen"
        REFUSED = "refused", "Abgelehnt"
        DUPLICATE = "duplicate", "Doppelt"

    upload = models.ForeignKey(BulkUpload, on_delete=models.CASCADE, related_name="items")
    position = models.PositiveIntegerField()
    file_name = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64)
    size = models.PositiveIntegerField()
    # The raw file until its task ran (then deleted: the registration keeps the re-encoded scan).
    stored_path = models.CharField(max_length=300, blank=True)
    # The CSV row for this file (owner data incl. IBAN), encrypted at rest.
    owner_data = EncryptedTextField(blank=True)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.PENDING)
    error_code = models.CharField(max_length=20, blank=True)
    error_details = models.JSONField(default=dict, blank=True)
    registration = models.ForeignKey(
        "registrations.BevRegistration", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    client = models.ForeignKey(
        "billing.Client", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    owner = models.ForeignKey(
        "accounts.User", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    owner_created = models.BooleanField(default=False)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["upload", "position"], name="operations_bulk_item_position")
        ]

    def __str__(self) -> str:
        return f"{self.file_name} of bulk upload {self.upload_id}"


# ---------------------------------------------------------------- settlement batches (issue 17)


class SettlementBatch(models.Model):
    """qa_to_pay applications paid out together: one SEPA credit transfer file (bank payouts)
    and a list of charge-card payouts."""

    class Status(models.TextChoices):
        # spec/customer-portal.md section 4: new, settled ('Successfully updated to status PAID')
        NEW = "new", "NEW"
        SETTLED = "settled", "PAID"

    status = models.CharField(max_length=20, choices=Status.choices, default=Status.NEW)
    reference = models.CharField(max_length=35)
    execution_date = models.DateField()
    created_by = models.ForeignKey(
        "accounts.User", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    paid_by = models.ForeignKey(
        "accounts.User", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    paid_at = models.DateTimeField(null=True, blank=True)
    # The SEPA file, built once at the first download and kept (issue 46): every later download
    # serves the same bytes with the same MsgId and PmtInfId, so the bank's duplicate check
    # catches a second upload. A batch with a file is frozen (no item removed); a change is a
    # new batch.
    sepa_file = models.BinaryField(null=True, blank=True, editable=False)
    sepa_version = models.CharField(max_length=2, blank=True)
    sepa_msg_id = models.CharField(max_length=35, blank=True)
    sepa_built_at = models.DateTimeField(null=True, blank=True)
    sepa_downloads = models.PositiveIntegerField(default=0)
    # Four eyes (issue 46): a batch above the partner's threshold (SettlementSettings) needs a
    # second partner admin's approval, not its creator's, before its SEPA file or its payment.
    approval_required = models.BooleanField(default=False)
    approved_by = models.ForeignKey(
        "accounts.User", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    approved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"settlement batch {self.pk}"


class SettlementSettings(models.Model):
    """The partner's own settlement rules, one row (pk 1): above `approval_threshold` (the
    batch's total payout, euros) a second partner admin approves the batch (four eyes)."""

    approval_threshold = models.DecimalField(
        max_digits=12,
        decimal_places=2,
        default=Decimal("10000.00"),
        validators=[MinValueValidator(Decimal("0"))],
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"settlement settings (approval above {self.approval_threshold})"

    @classmethod
    def current(cls) -> SettlementSettings:
        return cls.objects.get_or_create(pk=1)[0]


class SettlementItem(models.Model):
    """One application in a batch: its amounts and its payee as they were when the batch was
    made (the SEPA file pays exactly what the partner reviewed)."""

    class Method(models.TextChoices):
        SEPA = "sepa", "Überweisung (SEPA)"
        CHARGE_CARD = "charge_card", "Ladekarte"

    class Status(models.TextChoices):
        OPEN = "open", "Offen"
        PAID = "paid", "Ausgezahlt"
        FAILED = "failed", "Fehlgeschlagen"

    batch = models.ForeignKey(SettlementBatch, on_delete=models.CASCADE, related_name="items")
    # Null once the owner was erased (GDPR Art. 17): the item is then a pseudonymised payout
    # record, kept with its batch to the end of its legal period (privacy.retention). What the
    # batch, the SEPA file and the reports need is the item's own (sequence, year, amounts).
    application = models.ForeignKey(
        "quota.QuotaApplication",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="settlement_items",
    )
    owner = models.ForeignKey(
        "accounts.User", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The application's number and year as paid (the remittance text and the screen show them).
    sequence = models.BigIntegerField(default=0)
    legislation_year = models.PositiveSmallIntegerField(default=0)
    # Set at the erasure: the keyed pseudonym the owner's RetainedPayout rows carry.
    pseudonym = models.CharField(max_length=64, blank=True, default="", db_index=True)
    erased_at = models.DateTimeField(null=True, blank=True)
    method = models.CharField(max_length=20, choices=Method.choices)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.OPEN)
    net = models.DecimalField(max_digits=10, decimal_places=2)
    vat_percent = models.DecimalField(max_digits=5, decimal_places=2)
    vat = models.DecimalField(max_digits=10, decimal_places=2)
    gross = models.DecimalField(max_digits=10, decimal_places=2)
    payee_name = models.CharField(max_length=200)
    iban = EncryptedTextField(blank=True)
    # What the batch screen shows, so its list never decrypts an IBAN (billing.masking). The
    # item's own: a corrected IBAN on the client must not change what a failed item was paid to.
    iban_masked = IbanMaskField(source="iban")
    charge_card = EncryptedTextField(blank=True)
    end_to_end_id = models.CharField(max_length=35)
    failure_reason = models.CharField(max_length=500, blank=True)
    failed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.UniqueConstraint(fields=["batch", "application"], name="operations_settlement_item_once"),
            models.UniqueConstraint(fields=["end_to_end_id"], name="operations_settlement_end_to_end_unique"),
            # One payout per application (issue 46): at most one item that is open or paid; a
            # failed item leaves the way free for the next batch.
            models.UniqueConstraint(
                fields=["application"],
                condition=models.Q(status__in=["open", "paid"]),
                name="operations_settlement_item_one_payout",
            ),
        ]

    def __str__(self) -> str:
        return f"item {self.sequence}/{self.legislation_year} in batch {self.batch_id}"


# The payout documents (issue 46) in their own module; imported here so Django finds them.
from operations.document_models import DocumentCounter, PayoutDocument  # noqa: E402,F401
