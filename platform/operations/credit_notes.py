"""The payout documents (issue 46). When a batch is marked paid (settlement), each paid item gets
its document in the same transaction:

- a business owner a self-billing credit note (Gutschrift, § 14 Abs. 2 Satz 2 and Abs. 4 UStG):
  the partner, who receives the quota, issues the invoice for the owner's supply. Not when the
  owner objected to the procedure (billing.Client.self_billing_objected_at): then the owner
  invoices the partner and gets nothing from us;
- a private owner a payout statement (Auszahlungsbeleg): a receipt, no VAT.

Numbers: per partner and kind, without gaps, never twice (DocumentCounter, drawn under its row
lock in the issuing transaction), with the partner's subdomain in the number, so no two partners'
numbers are alike: GS-AUTOHAUS-000001, AB-AUTOHAUS-000001.

The VAT of a credit note follows the owner and the partner: a VAT-liable business owner's shows
the VAT paid (standard) or, where the partner applies § 13b UStG, the reverse-charge note; a
small business (is_vat_mandatory false) gets the § 19 UStG note. The amounts are the item's, as
paid: the document says what the SEPA file paid.

The files (operations.einvoice renders them) are made on first download and kept in storage.
"""

from __future__ import annotations

import datetime
import json
from decimal import Decimal
from typing import Any

from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from accounts.consent_book import consent_book
from billing.models import Client
from common.partner_config import PartnerConfig
from operations.document_models import DocumentCounter, DocumentKind, PayoutDocument, VatMode
from operations.formats import de_number
from operations.models import SettlementBatch, SettlementItem
from quota.models import QuotaStatus, StatusChange
from tenants.models import Partner
from tenants.quota_years import quota_year

PREFIX = {DocumentKind.CREDIT_NOTE: "GS", DocumentKind.PAYOUT_STATEMENT: "AB"}
REVERSE_CHARGE_NOTE = "Steuerschuldnerschaft des Leistungsempfängers (§ 13b UStG)"
SMALL_BUSINESS_NOTE = "Kein Ausweis der Umsatzsteuer, da Kleinunternehmer gemäß § 19 UStG"
PRIVATE_NOTE = "Auszahlung an eine Privatperson: keine Umsatzsteuer."


def credited_kwh(year: int, vehicle_class: str) -> int | None:
    """The energy the authority credits for one vehicle of the class in the year: the
    platform's quota-year calendar (tenants.quota_years)."""
    return quota_year(year).credited_energy_kwh(vehicle_class)


def partner_current() -> Partner:
    """The partner whose schema this transaction runs in (a request's, or a task's)."""
    return Partner.objects.get(schema_name=connection.schema_name)  # type: ignore[attr-defined]


def partner_party(partner: Partner, config: PartnerConfig) -> dict[str, str]:
    legal = config.invoicing
    return {
        "name": legal.legal_name or config.payout_account.name or partner.name,
        "street": legal.street,
        "postal_code": legal.postal_code,
        "city": legal.city,
        "country": legal.country,
        "vat_id": legal.vat_id,
        "tax_number": legal.tax_number,
    }


def owner_party(client: Client) -> dict[str, str]:
    person = f"{client.first_name} {client.last_name}".strip()
    business = client.vehicle_owner_type == Client.OwnerType.BUSINESS
    vat_number = (client.vat_number or "").replace(" ", "") if business else ""
    # An id with a country prefix is a USt-IdNr.; digits with slashes a Steuernummer.
    is_vat_id = bool(vat_number[:2].isalpha())
    return {
        "name": client.name_of_business if business and client.name_of_business else person,
        "person": person if business and client.name_of_business else "",
        "street": f"{client.street_name} {client.street_number}".strip(),
        "postal_code": client.postal_code,
        "city": client.city,
        "country": "DE",
        "vat_id": vat_number if is_vat_id else "",
        "tax_number": "" if is_vat_id else vat_number,
    }


def vat_mode(client: Client, config: PartnerConfig) -> str | None:
    """The document's VAT mode, or None when no document is issued (the owner objected to the
    self-billing procedure)."""
    if client.vehicle_owner_type != Client.OwnerType.BUSINESS:
        return VatMode.PRIVATE
    if client.self_billing_objected_at is not None:
        return None
    if client.is_vat_mandatory is not True:
        return VatMode.SMALL_BUSINESS
    if config.invoicing.business_vat_mode == "reverse_charge":
        return VatMode.REVERSE_CHARGE
    return VatMode.STANDARD


def _draw(kind: str, count: int) -> int:
    """The first of `count` fresh numbers of the kind; the counter row stays locked to the end
    of the transaction, so concurrent issues wait and a rollback returns the numbers."""
    DocumentCounter.objects.get_or_create(kind=kind)
    counter = DocumentCounter.objects.select_for_update().get(kind=kind)
    first = counter.last_number + 1
    counter.last_number += count
    counter.save(update_fields=["last_number"])
    return first


def document_number(partner: Partner, kind: str, sequence: int) -> str:
    return f"{PREFIX[DocumentKind(kind)]}-{partner.subdomain.upper()}-{sequence:06d}"


def _service_dates(application_ids: list[int]) -> dict[int, datetime.date]:
    """The supply's date: the day the authority accepted the quota (the transfer took effect)."""
    found: dict[int, datetime.date] = {}
    for application_id, created in (
        StatusChange.objects.filter(application_id__in=application_ids, status=QuotaStatus.ACCEPTED)
        .order_by("created_at", "pk")
        .values_list("application_id", "created_at")
    ):
        found.setdefault(application_id, timezone.localdate(created))
    return found


def payout_documents_issue(*, batch: SettlementBatch, partner: Partner | None = None) -> list[PayoutDocument]:
    """A document for every paid item of the batch that has none yet (a second call issues
    nothing). Called by settlement.settlement_batch_mark_paid inside its transaction."""
    partner = partner or partner_current()
    config = PartnerConfig.model_validate(partner.config)
    with transaction.atomic():
        # One document per application: a payout the bank returned and a later batch paid again
        # is the same supply, already credited (the first document stays valid).
        items = list(
            batch.items.filter(status=SettlementItem.Status.PAID, payout_document__isnull=True)
            .exclude(Q(application__isnull=True) | Q(owner__isnull=True))
            .exclude(application__payout_documents__isnull=False)
            .select_related("application__client", "application__registration")
            .order_by("sequence", "legislation_year", "pk")
        )
        planned: list[tuple[SettlementItem, DocumentKind, str]] = []
        for item in items:
            assert item.application is not None
            mode = vat_mode(item.application.client, config)
            if mode is None:
                continue
            kind = DocumentKind.PAYOUT_STATEMENT if mode == VatMode.PRIVATE else DocumentKind.CREDIT_NOTE
            planned.append((item, kind, mode))
        if not planned:
            return []
        issued = timezone.localdate()
        services = _service_dates([item.application_id for item, _, _ in planned if item.application_id])
        terms = consent_book().consent_terms_versions(
            [item.owner_id for item, _, _ in planned if item.owner_id]
        )
        recipient = partner_party(partner, config)
        next_number = {
            kind: _draw(kind, count)
            for kind in (DocumentKind.CREDIT_NOTE, DocumentKind.PAYOUT_STATEMENT)
            if (count := sum(1 for _, k, _ in planned if k == kind))
        }
        documents = []
        for item, kind, mode in planned:
            application = item.application
            assert application is not None
            sequence = next_number[kind]
            next_number[kind] += 1
            registration = application.registration
            vehicle_class = registration.vehicle_type
            documents.append(
                PayoutDocument(
                    kind=kind,
                    number=document_number(partner, kind, sequence),
                    sequence=sequence,
                    item=item,
                    application=application,
                    owner_id=item.owner_id,
                    issue_date=issued,
                    service_date=services.get(application.pk, issued),
                    vat_mode=mode,
                    partner_data=recipient,
                    owner_data=json.dumps(owner_party(application.client), ensure_ascii=False),
                    vin=registration.vin or "",
                    vehicle_class=vehicle_class,
                    legislation_year=item.legislation_year,
                    energy_kwh=credited_kwh(item.legislation_year, vehicle_class),
                    net=item.net,
                    vat_percent=item.vat_percent if mode == VatMode.STANDARD else Decimal("0"),
                    vat=item.vat if mode == VatMode.STANDARD else Decimal("0"),
                    gross=item.gross if mode == VatMode.STANDARD else item.net,
                    self_billing_clause=config.invoicing.self_billing_clause
                    if kind == DocumentKind.CREDIT_NOTE
                    else "",
                    terms_version=terms.get(item.owner_id or 0, ""),
                    end_to_end_id=item.end_to_end_id if item.method == SettlementItem.Method.SEPA else "",
                )
            )
        return PayoutDocument.objects.bulk_create(documents, batch_size=1000)


def client_self_billing_object(*, owner_id: int, objected: bool) -> int:
    """The owner objects to (or accepts again) the self-billing procedure: every billing data
    of the owner carries it. Returns the number of billing data rows changed."""
    return Client.objects.filter(owner_id=owner_id).update(
        self_billing_objected_at=timezone.now() if objected else None
    )


def service_text(document: PayoutDocument) -> str:
    """The supply as the document names it (§ 14 Abs. 4 Nr. 5 UStG)."""
    energy = (
        f", angerechnete Strommenge {de_number(Decimal(document.energy_kwh) / 1000, 3)} MWh"
        if document.energy_kwh
        else ""
    )
    return (
        f"Übertragung der THG-Quote für das Quotenjahr {document.legislation_year}: "
        f"FIN {document.vin or '–'}, Fahrzeugklasse {document.vehicle_class or 'M1'}{energy}"
    )


def vat_note(document: PayoutDocument) -> str:
    return {
        VatMode.REVERSE_CHARGE: REVERSE_CHARGE_NOTE,
        VatMode.SMALL_BUSINESS: SMALL_BUSINESS_NOTE,
        VatMode.PRIVATE: PRIVATE_NOTE,
    }.get(VatMode(document.vat_mode), "")


def document_summary(document: PayoutDocument) -> dict[str, Any]:
    return {
        "id": document.pk,
        "kind": document.kind,
        "kind_label": DocumentKind(document.kind).label,
        "number": document.number,
        "issue_date": document.issue_date.isoformat(),
        "vat_mode": document.vat_mode,
        "net": str(document.net),
        "vat": str(document.vat),
        "gross": str(document.gross),
        "application_id": document.application_id,
        "has_einvoice": document.kind == DocumentKind.CREDIT_NOTE,
    }


# ---------------------------------------------------------------- the owner's links

DOCUMENT_URL_LIFETIME = datetime.timedelta(hours=1)


def _salt(partner: Partner) -> str:
    return f"payout-document:{partner.schema_name}"


def document_url(*, partner: Partner, document: PayoutDocument) -> str:
    """A short-lived link for the owner (a download cannot send the bearer token): signed for
    this partner, document and owner, like the scans' (registrations.files)."""
    from django.core import signing

    token = signing.dumps({"d": document.pk, "o": document.owner_id}, salt=_salt(partner))
    return f"/api/end_user_portal/payout_documents/{token}/"


def document_token_read(*, partner: Partner, token: str) -> tuple[int, int] | None:
    """(document id, owner id) of a valid, unexpired link of this partner."""
    from django.core import signing

    try:
        data = signing.loads(token, salt=_salt(partner), max_age=DOCUMENT_URL_LIFETIME)
    except signing.BadSignature:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("d"), int) or not isinstance(data.get("o"), int):
        return None
    return data["d"], data["o"]


def card_documents(application: Any, *, partner: Partner) -> list[dict[str, Any]]:
    """The portal card's documents of one application (prefetched `payout_documents` where the
    list loaded them): kind, number, date and the owner's download link."""
    return [
        {
            "kind": document.kind,
            "kind_label": DocumentKind(document.kind).label,
            "number": document.number,
            "issue_date": document.issue_date.isoformat(),
            "url": document_url(partner=partner, document=document),
        }
        for document in sorted(application.payout_documents.all(), key=lambda d: d.sequence)
        if document.owner_id == application.registration.owner_id
    ]
