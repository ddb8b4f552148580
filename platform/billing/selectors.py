"""Billing reads: what a returning owner's billing screen starts from."""

from __future__ import annotations

from typing import Any

from accounts.models import User
from billing.models import Client

# What the billing screen may prefill; the IBAN itself never leaves the server again.
PREFILL_FIELDS = (
    "gender",
    "first_name",
    "last_name",
    "street_name",
    "street_number",
    "postal_code",
    "city",
    "account_name",
    "charge_card",
    "vehicle_owner_type",
    "is_vat_mandatory",
    "name_of_business",
    "vat_number",
)


def client_previous(*, owner: User) -> Client | None:
    """The owner's last submitted (locked) billing data of the flow, B2B placeholders aside."""
    return (
        Client.objects.filter(owner=owner, locked_at__isnull=False)
        .exclude(source="b2b_fe")
        .order_by("-locked_at", "-pk")
        .first()
    )


def client_prefill(client: Client) -> dict[str, Any]:
    data: dict[str, Any] = {field: getattr(client, field) for field in PREFILL_FIELDS}
    data["account_iban_masked"] = client.account_iban_masked
    data["has_stored_iban"] = bool(client.account_iban_masked)
    return data
