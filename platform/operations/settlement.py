"""Settlement batches: qa_to_pay applications paid out together. Every status move goes through
quota.services.quota_application_move (the catalogue, with actor and reason).

Amounts: the single deal's price when the application has one, else the partner's fee row for
the year and vehicle class. VAT is added only for a business owner who is VAT-liable
(is_vat_mandatory), and for fee rows only when the partner shows VAT (display_vat); private
owners and small businesses get the net amount.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from itertools import groupby
from typing import Any

from django.db import transaction
from django.db.models import Count, Q, QuerySet, Sum
from django.utils import timezone

from accounts.models import User
from billing.models import Client
from billing.validation import HOLDER, iban_check
from operations import sepa
from operations.models import SettlementBatch, SettlementItem
from quota.models import QuotaApplication, QuotaStatus
from quota.services import QuotaError, quota_application_move
from tenants.config_schema import FeeRow, PartnerConfig

CENT = Decimal("0.01")
MAX_APPLICATIONS = 10_000
REMITTANCE_LIMIT = 140

NOT_NEW = "SETTLE001"
NOTHING_TO_PAY = "SETTLE002"
NO_PAYOUT_ACCOUNT = "SETTLE003"
ALREADY_FAILED = "SETTLE004"
REASON_MISSING = "SETTLE005"
NOT_FAILED = "SETTLE006"
IBAN_INVALID = "SETTLE007"
HOLDER_INVALID = "SETTLE008"
TOO_MANY = "SETTLE009"
MOVE_REFUSED = "SETTLE010"
OWNER_ERASED = "SETTLE012"

MESSAGES = {
    NOT_NEW: 'Settlement batch status must be "NEW"',
    NOTHING_TO_PAY: "Keine der gewählten Anträge ist zur Auszahlung freigegeben und hat einen Preis und eine Bankverbindung.",
    NO_PAYOUT_ACCOUNT: "In der Konfiguration fehlt das Auszahlungskonto des Partners (payout_account).",
    ALREADY_FAILED: "Diese Position ist bereits als fehlgeschlagen markiert.",
    REASON_MISSING: "Bitte geben Sie einen Grund an.",
    NOT_FAILED: "Nur eine fehlgeschlagene Position bekommt eine neue Bankverbindung.",
    IBAN_INVALID: "Bitte geben Sie eine gültige IBAN aus dem SEPA-Raum ein.",
    HOLDER_INVALID: "Bitte geben Sie den Kontoinhaber an (Buchstaben, Ziffern und / ? : ( ) . , ' +).",
    TOO_MANY: f"Ein Abrechnungslauf umfasst höchstens {MAX_APPLICATIONS} Anträge.",
    MOVE_REFUSED: "Der Statuswechsel passt nicht zum Katalog.",
    OWNER_ERASED: "Die Daten dieses Halters wurden gelöscht (Art. 17 DSGVO); an ihn wird nicht mehr ausgezahlt.",
}
# The failure reason an open item of an unpaid batch gets when its owner is erased.
ERASED_REASON = "Halterdaten gelöscht (Art. 17 DSGVO): keine Auszahlung."
PAID_MESSAGE = "Successfully updated to status PAID"


class SettlementError(Exception):
    def __init__(self, code: str, details: dict[str, Any] | None = None, message: str | None = None):
        self.code = code
        self.message = message or MESSAGES[code]
        self.details = details or {}
        super().__init__(self.message)


@dataclass(frozen=True)
class Amounts:
    net: Decimal
    vat_percent: Decimal
    vat: Decimal
    gross: Decimal


def _fee_row(config: PartnerConfig, year: int, vehicle_class: str) -> FeeRow | None:
    return next(
        (row for row in config.fees if row.legislation_year == year and row.vehicle_class == vehicle_class),
        None,
    )


def application_amounts(application: QuotaApplication, config: PartnerConfig) -> Amounts | None:
    """What the owner is paid for this application, or None when the partner has no price."""
    client: Client = application.client
    vat_liable = client.vehicle_owner_type == Client.OwnerType.BUSINESS and client.is_vat_mandatory is True
    deal = getattr(application, "single_deal", None)
    if deal is not None:
        net, rate, shows_vat = deal.price_net, deal.vat_percent, True
    else:
        fee = _fee_row(config, application.legislation_year, application.registration.vehicle_type)
        if fee is None:
            return None
        net, rate, shows_vat = fee.client_fee, fee.vat_percentage, config.display_vat
    if not (vat_liable and shows_vat):
        rate = Decimal("0")
    net = net.quantize(CENT)
    vat = (net * rate / 100).quantize(CENT, rounding=ROUND_HALF_UP)
    return Amounts(net=net, vat_percent=rate.quantize(CENT), vat=vat, gross=net + vat)


def _payout(client: Client) -> tuple[str, str, str] | None:
    """(method, iban, charge card): the bank when there is an IBAN, else the charge card."""
    if client.account_iban:
        return SettlementItem.Method.SEPA, client.account_iban.replace(" ", "").upper(), ""
    if client.charge_card:
        return SettlementItem.Method.CHARGE_CARD, "", client.charge_card
    return None


def next_business_day(today: datetime.date | None = None) -> datetime.date:
    day = (today or timezone.localdate()) + datetime.timedelta(days=1)
    while day.weekday() >= 5:
        day += datetime.timedelta(days=1)
    return day


def _to_pay(filters: dict[str, Any]) -> QuerySet[QuotaApplication]:
    applications = QuotaApplication.objects.filter(status=QuotaStatus.TO_PAY)
    if filters.get("ids"):
        applications = applications.filter(pk__in=filters["ids"])
    if filters.get("legislation_year"):
        applications = applications.filter(legislation_year=filters["legislation_year"])
    if filters.get("vehicle_class"):
        applications = applications.filter(registration__vehicle_class=filters["vehicle_class"])
    for key in ("sub_partner", "single_deal"):
        if filters.get(key):
            applications = applications.filter(**{f"{key}_id": filters[key]})
    if filters.get("created_from"):
        applications = applications.filter(created_at__date__gte=filters["created_from"])
    if filters.get("created_to"):
        applications = applications.filter(created_at__date__lte=filters["created_to"])
    return applications


def settlement_batch_create(
    *,
    config: PartnerConfig,
    actor: User,
    filters: dict[str, Any],
    execution_date: datetime.date | None = None,
) -> tuple[SettlementBatch, list[dict[str, Any]]]:
    """A NEW batch of the chosen qa_to_pay applications (ids, or filters), each moved to
    qa_to_settle. Returns the batch and the applications left out, with the reason."""
    skipped: list[dict[str, Any]] = []
    with transaction.atomic():
        applications = list(
            _to_pay(filters)
            .select_for_update(of=("self",))
            .select_related("client", "registration", "single_deal")
            .order_by("client__owner_id", "pk")[: MAX_APPLICATIONS + 1]
        )
        if len(applications) > MAX_APPLICATIONS:
            raise SettlementError(TOO_MANY)
        if filters.get("ids"):
            found = {a.pk for a in applications}
            skipped += [
                {"id": pk, "detail": "Nicht zur Auszahlung freigegeben (qa_to_pay)."}
                for pk in filters["ids"]
                if pk not in found
            ]
        rows = []
        for application in applications:
            amounts = application_amounts(application, config)
            payout = _payout(application.client)
            if amounts is None:
                skipped.append(
                    {"id": application.pk, "detail": "Für Jahr und Fahrzeugklasse ist kein Preis hinterlegt."}
                )
            elif payout is None:
                skipped.append({"id": application.pk, "detail": "Keine Bankverbindung und keine Ladekarte."})
            else:
                rows.append((application, amounts, payout))
        if not rows:
            raise SettlementError(NOTHING_TO_PAY, {"skipped": skipped})
        batch = SettlementBatch.objects.create(
            reference="",
            execution_date=execution_date or next_business_day(),
            created_by=actor,
        )
        batch.reference = f"THG-{timezone.localdate():%Y%m%d}-{batch.pk}"
        batch.save(update_fields=["reference"])
        items = []
        for application, amounts, (method, iban, card) in rows:
            quota_application_move(
                application=application,
                status=QuotaStatus.TO_SETTLE,
                actor=actor,
                reason=f"Abrechnungslauf {batch.reference}",
            )
            client = application.client
            items.append(
                SettlementItem(
                    batch=batch,
                    application=application,
                    owner_id=client.owner_id,
                    sequence=application.registration.sequence,
                    legislation_year=application.legislation_year,
                    method=method,
                    net=amounts.net,
                    vat_percent=amounts.vat_percent,
                    vat=amounts.vat,
                    gross=amounts.gross,
                    payee_name=(client.account_name or f"{client.first_name} {client.last_name}")[:200],
                    iban=iban,
                    charge_card=card,
                    end_to_end_id=f"THG{batch.pk}-{application.registration.sequence}-{application.legislation_year}"[
                        :35
                    ],
                )
            )
        SettlementItem.objects.bulk_create(items)
    return batch, skipped


def settlement_batch_mark_paid(*, batch: SettlementBatch, actor: User) -> SettlementBatch:
    """NEW → PAID: every open item's application to qa_paid. Anything else is refused whole."""
    with transaction.atomic():
        batch = SettlementBatch.objects.select_for_update().get(pk=batch.pk)
        if batch.status != SettlementBatch.Status.NEW:
            raise SettlementError(NOT_NEW)
        items = list(batch.items.filter(status=SettlementItem.Status.OPEN).select_related("application"))
        # An item without its owner or application (erased) was not in the SEPA file and is
        # not paid; the erasure already fails such items, this only keeps the rule whole.
        gone = [item for item in items if item.application_id is None or item.owner_id is None]
        if gone:
            batch.items.filter(pk__in=[item.pk for item in gone]).update(
                status=SettlementItem.Status.FAILED, failure_reason=ERASED_REASON, failed_at=timezone.now()
            )
        items = [item for item in items if item not in gone]
        for item in items:
            assert item.application is not None  # the erased ones are gone above
            try:
                quota_application_move(
                    application=item.application,
                    status=QuotaStatus.PAID,
                    actor=actor,
                    reason=f"Abrechnungslauf {batch.reference}",
                )
            except QuotaError as error:
                raise SettlementError(
                    MOVE_REFUSED, {"application": item.application_id}, message=error.message
                ) from None
        batch.items.filter(pk__in=[item.pk for item in items]).update(status=SettlementItem.Status.PAID)
        batch.status = SettlementBatch.Status.SETTLED
        batch.paid_at = timezone.now()
        batch.paid_by = actor
        batch.save(update_fields=["status", "paid_at", "paid_by"])
    return batch


def settlement_item_fail(*, item: SettlementItem, reason: str, actor: User) -> SettlementItem:
    """One payout failed (wrong IBAN, returned transfer): qa_payment_failure with the reason,
    before or after the batch was paid."""
    reason = reason.strip()
    if not reason:
        raise SettlementError(REASON_MISSING)
    with transaction.atomic():
        item = (
            SettlementItem.objects.select_for_update(of=("self",))
            .select_related("application")
            .get(pk=item.pk)
        )
        if item.status == SettlementItem.Status.FAILED:
            raise SettlementError(ALREADY_FAILED)
        # An erased owner's item (no application any more) is still marked: a returned transfer
        # belongs in the payout record; there is no application left to move.
        if item.application is not None:
            try:
                quota_application_move(
                    application=item.application,
                    status=QuotaStatus.PAYMENT_FAILURE,
                    actor=actor,
                    reason=reason,
                )
            except QuotaError as error:
                raise SettlementError(MOVE_REFUSED, message=error.message) from None
        item.status = SettlementItem.Status.FAILED
        item.failure_reason = reason[:500]
        item.failed_at = timezone.now()
        item.save(update_fields=["status", "failure_reason", "failed_at"])
    return item


def settlement_item_iban_correct(
    *, item: SettlementItem, iban: str, account_name: str, actor: User
) -> SettlementItem:
    """A corrected bank account for a failed payout: the owner's billing data gets it and the
    application goes back to qa_to_pay, ready for the next batch."""
    iban = iban.replace(" ", "").upper()
    account_name = account_name.strip()
    if iban_check(iban) is not None:
        raise SettlementError(IBAN_INVALID)
    if account_name and (len(account_name) < 2 or len(account_name) > 100 or not HOLDER.match(account_name)):
        raise SettlementError(HOLDER_INVALID)
    with transaction.atomic():
        item = (
            SettlementItem.objects.select_for_update(of=("self",))
            .select_related("application__client")
            .get(pk=item.pk)
        )
        if item.application is None:
            raise SettlementError(OWNER_ERASED)
        if item.status != SettlementItem.Status.FAILED:
            raise SettlementError(NOT_FAILED)
        client = Client.objects.select_for_update().get(pk=item.application.client_id)
        client.account_iban = iban
        fields = ["account_iban", "updated_at"]
        if account_name:
            client.account_name = account_name
            fields.append("account_name")
        client.save(update_fields=fields)
        try:
            quota_application_move(
                application=item.application,
                status=QuotaStatus.TO_PAY,
                actor=actor,
                reason="Bankverbindung korrigiert",
            )
        except QuotaError as error:
            raise SettlementError(MOVE_REFUSED, message=error.message) from None
    return item


# ---------------------------------------------------------------- reads


TOTAL_GROUPS: dict[str, Q] = {
    "all": ~Q(status=SettlementItem.Status.FAILED),
    "sepa": Q(method=SettlementItem.Method.SEPA) & ~Q(status=SettlementItem.Status.FAILED),
    "charge_card": Q(method=SettlementItem.Method.CHARGE_CARD) & ~Q(status=SettlementItem.Status.FAILED),
    "failed": Q(status=SettlementItem.Status.FAILED),
}
TOTAL_FIELDS = ("net", "vat", "gross")


def _prefixed(condition: Q, prefix: str) -> Q:
    """The condition on items, seen from the batch (`items__status`) or the item (`status`)."""
    copy = Q(*condition.children, _connector=condition.connector, _negated=condition.negated)
    copy.children = [
        _prefixed(child, prefix) if isinstance(child, Q) else (prefix + child[0], child[1])  # type: ignore[index]
        for child in condition.children
    ]
    return copy


def totals_annotations(prefix: str = "") -> dict[str, Any]:
    """Count and sums per group in one query: on batch.items (prefix "") or annotated on a
    batch list (prefix "items__")."""
    found: dict[str, Any] = {}
    for group, condition in TOTAL_GROUPS.items():
        where = _prefixed(condition, prefix)
        found[f"t_{group}_count"] = Count(f"{prefix}pk", filter=where)
        for field in TOTAL_FIELDS:
            found[f"t_{group}_{field}"] = Sum(f"{prefix}{field}", filter=where)
    return found


def settlement_totals(batch: SettlementBatch) -> dict[str, Any]:
    """Totals per payout method and overall; failed items are counted apart. Read from the
    batch's annotations (a list) or with one query."""
    values = (
        {key: getattr(batch, key) for key in totals_annotations()}
        if hasattr(batch, "t_all_count")
        else batch.items.aggregate(**totals_annotations())
    )
    return {
        group: {
            "count": values[f"t_{group}_count"],
            **{
                field: str((values[f"t_{group}_{field}"] or Decimal("0")).quantize(CENT))
                for field in TOTAL_FIELDS
            },
        }
        for group in TOTAL_GROUPS
    }


def _remittance_chunks(numbers: list[str], prefix: str) -> list[list[str]]:
    """Application numbers split so that each remittance text fits 140 characters."""
    chunks: list[list[str]] = [[]]
    for number in numbers:
        candidate = chunks[-1] + [number]
        if chunks[-1] and len(prefix + ", ".join(candidate)) > REMITTANCE_LIMIT:
            chunks.append([number])
        else:
            chunks[-1] = candidate
    return chunks


def sepa_transfers(batch: SettlementBatch, items: list[SettlementItem] | None = None) -> list[sepa.Transfer]:
    """One transfer per owner and account, with the owner's application numbers as the
    remittance (split into more transfers only where they exceed 140 characters). The
    end-to-end id is the application's own when the transfer pays one application; a transfer
    for several carries the first one's id and each item keeps its own for matching returns."""
    if items is None:
        items = list(
            batch.items.filter(method=SettlementItem.Method.SEPA).exclude(status=SettlementItem.Status.FAILED)
        )
    # An erased owner is never paid: the erasure fails an open item (ERASED_REASON), and an
    # item without its owner is left out here all the same (owner_id None would group them).
    items = [i for i in items if i.owner_id is not None and i.application_id is not None]
    # Sorted here: the IBAN is stored encrypted, its column does not sort.
    items.sort(key=lambda i: (i.owner_id, i.iban, i.payee_name, i.sequence, i.legislation_year))
    prefix = "THG-Praemie Antrag "
    transfers = []
    for (_, iban, name), group in groupby(
        items, key=lambda item: (item.owner_id, item.iban, item.payee_name)
    ):
        members = list(group)
        numbers = [f"{m.sequence}/{m.legislation_year}" for m in members]
        by_number = dict(zip(numbers, members, strict=True))
        for chunk in _remittance_chunks(numbers, prefix):
            paid = [by_number[number] for number in chunk]
            transfers.append(
                sepa.Transfer(
                    name=name,
                    iban=iban,
                    amount_cents=int(sum(m.gross for m in paid) * 100),
                    remittance=prefix + ", ".join(chunk),
                    end_to_end_id=paid[0].end_to_end_id,
                )
            )
    return transfers


def settlement_erased_count(batch: SettlementBatch) -> int:
    """SEPA items of the batch whose owner was erased: not in the file."""
    return (
        batch.items.filter(method=SettlementItem.Method.SEPA)
        .filter(Q(owner__isnull=True) | Q(application__isnull=True))
        .count()
    )


def settlement_sepa_xml(*, batch: SettlementBatch, config: PartnerConfig, version: sepa.Version) -> bytes:
    account = config.payout_account
    if not account.iban:
        raise SettlementError(NO_PAYOUT_ACCOUNT)
    transfers = sepa_transfers(batch)
    if not transfers:
        erased = settlement_erased_count(batch)
        if erased:
            raise SettlementError(
                OWNER_ERASED,
                {"erased_items": erased},
                message="Alle Überweisungen dieses Laufs gehören zu gelöschten Haltern (Art. 17 DSGVO); "
                "es gibt nichts zu überweisen.",
            )
        raise SettlementError(NOTHING_TO_PAY)
    return sepa.credit_transfer_xml(
        debtor=sepa.Debtor(name=account.name, iban=account.iban, bic=account.bic),
        transfers=transfers,
        execution_date=max(batch.execution_date, timezone.localdate()),
        version=version,
    )
