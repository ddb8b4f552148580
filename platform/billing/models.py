from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.postgres.indexes import GinIndex, OpClass
from django.db import models
from django.db.models.functions import Upper

from billing.masking import IbanMaskField
from common.crypto import EncryptedTextField


class Client(models.Model):
    """The billing data of one submission: who is paid, how, and for which registrations."""

    class Gender(models.TextChoices):
        WOMAN = "woman", "Frau"
        MAN = "man", "Herr"
        DIVERSE = "diverse", "Divers"
        NOT_SPECIFIED = "not_specified", "Keine Angabe"

    class OwnerType(models.TextChoices):
        PRIVATE = "private", "Privat"
        BUSINESS = "business", "Gewerblich"

    # Street, house number, bank and card data and the VAT/tax number are encrypted at rest
    # (common.crypto); their lengths are checked on the plain value in billing.validation.
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="clients")
    gender = models.CharField(max_length=20, choices=Gender.choices, blank=True)
    first_name = models.CharField(max_length=100)
    last_name = models.CharField(max_length=100)
    street_name = EncryptedTextField()
    street_number = EncryptedTextField()
    postal_code = models.CharField(max_length=10)
    city = models.CharField(max_length=100)
    account_name = EncryptedTextField(blank=True)
    account_iban = EncryptedTextField(blank=True)
    # What lists and summaries show, so they never decrypt the IBAN (billing.masking).
    account_iban_masked = IbanMaskField(source="account_iban")
    account_bic = EncryptedTextField(blank=True)
    charge_card = EncryptedTextField(blank=True)
    partner_variable = models.CharField(max_length=200, blank=True)
    campaign = models.CharField(max_length=200, blank=True)
    free_text = models.CharField(max_length=2000, blank=True)
    full_url_variable_string = models.CharField(max_length=2000, blank=True)
    vehicle_owner_type = models.CharField(max_length=10, choices=OwnerType.choices, default=OwnerType.PRIVATE)
    is_vat_mandatory = models.BooleanField(null=True)
    name_of_business = models.CharField(max_length=200, blank=True)
    vat_number = EncryptedTextField(blank=True)
    email_promotion_opt_in = models.BooleanField(default=False)
    # The owner objected to the self-billing procedure (the terms' Gutschriftsverfahren): no
    # credit note is issued, the owner invoices the partner (operations.credit_notes).
    self_billing_objected_at = models.DateTimeField(null=True, blank=True)
    signup_url = models.CharField(max_length=2000, blank=True)
    login_url = models.CharField(max_length=2000, blank=True)
    source = models.CharField(max_length=10, blank=True)
    locked_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [
            # The partner area's search over owners' names (any part, as icontains writes it:
            # UPPER(col::text) LIKE ...): trigrams of pg_trgm.
            *(
                GinIndex(OpClass(Upper(name), name="gin_trgm_ops"), name=f"billing_client_{short}_trgm")
                for name, short in (
                    ("first_name", "first"),
                    ("last_name", "last"),
                    ("name_of_business", "business"),
                )
            ),
            # The dashboard's funnel counts owners whose billing data was locked in a range.
            models.Index(
                fields=["locked_at", "owner"],
                name="billing_client_locked",
                condition=models.Q(locked_at__isnull=False),
            ),
            # ... and without a range, every such owner once in the index's order (no sort), and
            # for one sub-partner, its clients' owners, from the index alone (the table's rows
            # are wide with ciphertext).
            models.Index(
                fields=["owner", "id"],
                name="billing_client_locked_owner",
                condition=models.Q(locked_at__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"client {self.pk} ({self.last_name})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        # A write of the IBAN writes its masked form too.
        fields = kwargs.get("update_fields")
        if fields is not None and "account_iban" in fields:
            kwargs["update_fields"] = {*fields, "account_iban_masked"}
        super().save(*args, **kwargs)
