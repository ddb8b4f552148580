"""The partner's own operations: sub-partners (installers, dealers) and single deals (fleet or
business customers with an agreed price). Both live in the partner's schema."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from django.contrib.postgres.fields import ArrayField
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models

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
