"""Billing writes: submit the client, lock it (which creates the quota applications)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.module_loading import import_string

from accounts.consent_book import CHANNEL_WEB, consent_book
from accounts.models import User
from billing import errors
from billing.hooks import ApplicationsRefused, applications_create
from billing.models import Client
from billing.selectors import client_previous
from billing.validation import MAX_LENGTHS, client_validate, tax_number_normalise, tax_number_valid
from common.partner_config import PartnerConfig
from common.text import text_problem
from registrations.models import BevRegistration
from tenants.models import Partner

B2B_SOURCE = "b2b_fe"
B2B_FIELDS = ("first_name", "last_name", "free_text", "charge_card", "campaign", "full_url_variable_string")


class ClientInvalid(Exception):
    def __init__(self, errors: dict[str, Any]):
        self.errors = errors
        super().__init__(str(errors))


class ClientLockError(Exception):
    def __init__(self, code: str, detail: str):
        self.code = code
        self.detail = detail
        super().__init__(detail)


def _b2b_clean(data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The placeholder client of the B2B flow: no address, no payment data."""
    clean: dict[str, Any] = {"source": B2B_SOURCE}
    found: dict[str, Any] = {}
    for field in B2B_FIELDS:
        value = data.get(field) or ""
        if not isinstance(value, str):
            found[field] = ["Bitte geben Sie einen Text ein."]
        elif problem := text_problem(value):
            found[field] = [problem]
        elif len(value) > MAX_LENGTHS[field]:
            found[field] = [f"Höchstens {MAX_LENGTHS[field]} Zeichen."]
        else:
            clean[field] = value.strip()
    return clean, found


def _stored_iban_kept(*, owner: User, data: dict[str, Any]) -> dict[str, Any]:
    """A returning owner who leaves the IBAN field empty keeps the IBAN of their last billing
    data (the screen showed it masked): the server copies it, the browser never had it."""
    if data.get("keep_stored_iban") is not True or (data.get("account_iban") or "").strip():
        return data
    previous = client_previous(owner=owner)
    if previous is None or not previous.account_iban:
        return data
    return {**data, "account_iban": previous.account_iban, "account_bic": previous.account_bic}


def client_submit(*, partner: Partner, owner: User, data: dict[str, Any]) -> Client:
    """Create the owner's client, or update the one not yet locked (a second submit)."""
    config = PartnerConfig.model_validate(partner.config)
    data = _stored_iban_kept(owner=owner, data=data)
    if data.get("source") == B2B_SOURCE:
        clean, found = _b2b_clean(data)
    else:
        clean, found = client_validate(data, config)
        clean["source"] = ""
    if found:
        raise ClientInvalid(found)
    with transaction.atomic():
        client = (
            Client.objects.select_for_update()
            .filter(owner=owner, locked_at__isnull=True)
            .order_by("-created_at")
            .first()
        )
        if client is None:
            client = Client(owner=owner)
        for field, value in clean.items():
            setattr(client, field, value)
        client.save()
        if client.source != B2B_SOURCE:
            consent_book().consent_record_promotion(
                user=owner,
                config=config,
                given=bool(client.email_promotion_opt_in),
                channel=CHANNEL_WEB,
            )
    return client


def client_lock(*, partner: Partner, client: Client) -> Client:
    """Lock the client and apply every completed registration of its owner for its years."""
    config = PartnerConfig.model_validate(partner.config)
    with transaction.atomic():
        client = Client.objects.select_for_update().get(pk=client.pk)
        # The client row lock serialises locks of one owner; applied registrations are skipped.
        pending = list(
            BevRegistration.objects.filter(owner_id=client.owner_id, locked_at__isnull=False)
            .exclude(quota_applications__isnull=False)
            .order_by("sequence")
        )
        if not pending and client.locked_at is None:
            raise ClientLockError(errors.NO_REGISTRATION, "Es gibt keine abgeschlossene Registrierung.")
        for registration in pending:
            try:
                # quota makes them (billing.hooks, filled in QuotaConfig.ready())
                applications_create()(
                    registration=registration, client=client, config=config, actor=client.owner
                )
            except ApplicationsRefused as refused:  # its only year closed since the upload (the calendar)
                raise ClientLockError(refused.code, refused.message) from None
        if client.locked_at is None:
            client.locked_at = timezone.now()
            client.save(update_fields=["locked_at", "updated_at"])
            # The portal greets the owner by name: the first billing data gives it.
            owner = client.owner
            if not (owner.first_name or owner.last_name):
                owner.first_name, owner.last_name = client.first_name[:150], client.last_name[:150]
                owner.save(update_fields=["first_name", "last_name"])
    return client


def vat_number_check(value: str) -> bool:
    normalised = tax_number_normalise(value or "")
    if normalised is None or not tax_number_valid(*normalised):
        return False
    hook = getattr(settings, "VAT_REMOTE_CHECK", None)
    if hook and normalised[0] == "vat":
        return bool(import_string(hook)(normalised[1]))
    return True
