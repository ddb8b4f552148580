"""Settlement batches: qa_to_pay applications paid out together. Every status move goes through
quota.services.quota_application_move (the catalogue, with actor and reason).

Amounts: quota.amounts.application_amounts, the one function the portal card, the partner's
list and the dashboard use too (issue 46): private owners and small businesses get the net,
a VAT-liable business the net plus VAT.
"""

from __future__ import annotations

import datetime
import functools
from dataclasses import dataclass
from decimal import Decimal
from itertools import groupby
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Q, QuerySet, Sum
from django.utils import timezone

from accounts.models import User
from billing.models import Client
from billing.validation import HOLDER, iban_check
from common.partner_config import PartnerConfig
from common.payout_bounds import german_euros, payout_in_bounds, payout_max
from operations import sepa
from operations.credit_notes import payout_documents_issue
from operations.models import SettlementBatch, SettlementItem, SettlementSettings
from operations.tasks import payout_documents_render
from quota.amounts import application_amounts, fee_schedule
from quota.models import QuotaApplication, QuotaStatus
from quota.services import QuotaError, quota_application_move

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
NOT_OPEN = "SETTLE013"
ALREADY_IN_BATCH = "SETTLE014"
SEPA_FROZEN = "SETTLE015"
SEPA_VERSION = "SETTLE016"
SEPA_NOT_BUILT = "SETTLE017"
PAID_AGAIN = "SETTLE018"  # a warning, not a refusal: the paid batch's file downloaded again
APPROVAL_MISSING = "SETTLE019"
CREATOR_APPROVES = "SETTLE020"
APPROVAL_NOT_NEEDED = "SETTLE021"
THRESHOLD_INVALID = "SETTLE022"
NOT_PAYMENT_FAILURE = "SETTLE023"
# An item that is open or paid holds its application's one payout (the partial unique
# constraint operations_settlement_item_one_payout).
HOLDING = (SettlementItem.Status.OPEN, SettlementItem.Status.PAID)

MESSAGES = {
    NOT_NEW: 'Settlement batch status must be "NEW"',
    NOTHING_TO_PAY: "Keine der gewählten Anträge ist zur Auszahlung freigegeben und hat einen Preis und eine Bankverbindung.",
    NO_PAYOUT_ACCOUNT: "In der Konfiguration fehlt das Auszahlungskonto des Partners (payout_account).",
    ALREADY_FAILED: "Diese Position ist bereits als fehlgeschlagen markiert.",
    REASON_MISSING: "Bitte geben Sie einen Grund an.",
    NOT_FAILED: "Nur eine fehlgeschlagene Position kommt wieder in die Auszahlung.",
    IBAN_INVALID: "Bitte geben Sie eine gültige IBAN aus dem SEPA-Raum ein.",
    HOLDER_INVALID: "Bitte geben Sie den Kontoinhaber an (Buchstaben, Ziffern und / ? : ( ) . , ' +).",
    TOO_MANY: f"Ein Abrechnungslauf umfasst höchstens {MAX_APPLICATIONS} Anträge.",
    MOVE_REFUSED: "Der Statuswechsel passt nicht zum Katalog.",
    OWNER_ERASED: "Die Daten dieses Halters wurden gelöscht (Art. 17 DSGVO); an ihn wird nicht mehr ausgezahlt.",
    NOT_OPEN: "Nur eine offene Position eines neuen Laufs kann entfernt werden.",
    ALREADY_IN_BATCH: "Ein gewählter Antrag ist schon in einem anderen Abrechnungslauf (offen oder bezahlt).",
    SEPA_FROZEN: "Die SEPA-Datei dieses Laufs ist schon erstellt; er wird nicht mehr geändert. "
    "Für eine Änderung markieren Sie die Position als fehlgeschlagen und legen einen neuen Lauf an.",
    SEPA_VERSION: "Die SEPA-Datei dieses Laufs wurde schon als Version {version} erstellt.",
    SEPA_NOT_BUILT: "Dieser Lauf ist bezahlt und hat keine gespeicherte SEPA-Datei; es wird keine mehr erstellt.",
    PAID_AGAIN: "Achtung: Dieser Lauf ist bereits bezahlt. Laden Sie die Datei nicht erneut bei der Bank hoch.",
    APPROVAL_MISSING: "Dieser Lauf übersteigt die Freigabegrenze und braucht erst die Freigabe "
    "eines zweiten Partner-Admins (Vier-Augen-Prinzip).",
    CREATOR_APPROVES: "Wer den Lauf angelegt hat, kann ihn nicht selbst freigeben (Vier-Augen-Prinzip).",
    APPROVAL_NOT_NEEDED: "Dieser Lauf braucht keine Freigabe (oder ist nicht mehr neu).",
    THRESHOLD_INVALID: "Bitte geben Sie einen Betrag ab 0,00 € mit höchstens zwei Nachkommastellen an.",
    NOT_PAYMENT_FAILURE: "Nur ein Antrag mit fehlgeschlagener Auszahlung kann als doch ausgezahlt bestätigt werden; "
    "dieser ist schon wieder zur Auszahlung freigegeben oder in einem anderen Lauf.",
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
            numbers = dict(
                QuotaApplication.objects.filter(pk__in=set(filters["ids"]) - found).values_list(
                    "pk", "registration__sequence"
                )
            )
            skipped += [
                {"id": pk, "sequence": numbers.get(pk), "detail": "Nicht zur Auszahlung freigegeben."}
                for pk in filters["ids"]
                if pk not in found
            ]
        held = dict(
            SettlementItem.objects.filter(
                application__in=[a.pk for a in applications], status__in=HOLDING
            ).values_list("application_id", "batch__reference")
        )
        rows = []
        schedule = fee_schedule(config)  # every version of the fee table, once for the batch
        for application in applications:
            if application.pk in held:
                # Only a broken state gets here (qa_to_pay with an open or paid item): never paid twice.
                skipped.append(
                    {
                        "id": application.pk,
                        "sequence": application.registration.sequence,
                        "detail": f"Schon im Abrechnungslauf {held[application.pk]}.",
                    }
                )
                continue
            amounts = application_amounts(application, config, schedule)
            payout = _payout(application.client)
            vehicle_class = application.registration.vehicle_type
            if amounts is None:
                skipped.append(
                    {
                        "id": application.pk,
                        "sequence": application.registration.sequence,
                        "detail": "Für Jahr und Fahrzeugklasse ist kein Preis hinterlegt.",
                    }
                )
            elif not payout_in_bounds(amounts.net, application.legislation_year, vehicle_class):
                # The platform's bounds per year and class (common.payout_bounds): never paid.
                ceiling = german_euros(payout_max(application.legislation_year, vehicle_class))
                skipped.append(
                    {
                        "id": application.pk,
                        "sequence": application.registration.sequence,
                        "detail": f"Der Betrag {german_euros(amounts.net)} liegt außerhalb der Grenze der "
                        f"Plattform (über 0,00 € bis {ceiling} je Fahrzeug der Klasse {vehicle_class}).",
                    }
                )
            elif payout is None:
                skipped.append(
                    {
                        "id": application.pk,
                        "sequence": application.registration.sequence,
                        "detail": "Keine Bankverbindung und keine Ladekarte.",
                    }
                )
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
        try:
            with transaction.atomic():
                SettlementItem.objects.bulk_create(items)
        except IntegrityError:
            # The database's one-payout constraint: another batch took one of them meanwhile.
            raise SettlementError(ALREADY_IN_BATCH) from None
        # Four eyes above the partner's threshold: the batch's whole payout (bank and card).
        total = sum((amounts.gross for _, amounts, _ in rows), Decimal(0))
        if total > SettlementSettings.current().approval_threshold:
            batch.approval_required = True
            batch.save(update_fields=["approval_required"])
    return batch, skipped


def settlement_approval_pending(batch: SettlementBatch) -> bool:
    return batch.approval_required and batch.approved_at is None


def settlement_batch_approve(*, batch: SettlementBatch, actor: User) -> tuple[SettlementBatch, bool]:
    """The second partner admin's approval of a batch above the threshold (never its creator's).
    Returns the batch and whether this call approved it (False: it was approved already)."""
    with transaction.atomic():
        batch = SettlementBatch.objects.select_for_update().get(pk=batch.pk)
        if not batch.approval_required or batch.status != SettlementBatch.Status.NEW:
            raise SettlementError(APPROVAL_NOT_NEEDED)
        if batch.approved_at is not None:
            return batch, False
        if batch.created_by_id == actor.pk:
            raise SettlementError(CREATOR_APPROVES)
        batch.approved_by = actor
        batch.approved_at = timezone.now()
        batch.save(update_fields=["approved_by", "approved_at"])
    return batch, True


def settlement_settings_update(*, approval_threshold: Any) -> tuple[SettlementSettings, Decimal]:
    """The partner's approval threshold (euros, two places, from 0); returns the settings and
    the threshold before."""
    try:
        threshold = Decimal(str(approval_threshold))
    except ArithmeticError:
        raise SettlementError(THRESHOLD_INVALID) from None
    if (
        not threshold.is_finite()
        or threshold < 0
        or threshold != threshold.quantize(CENT)
        or threshold >= 10**10
    ):
        raise SettlementError(THRESHOLD_INVALID)
    with transaction.atomic():
        SettlementSettings.current()
        found = SettlementSettings.objects.select_for_update().get(pk=1)
        before = found.approval_threshold
        found.approval_threshold = threshold.quantize(CENT)
        found.save(update_fields=["approval_threshold", "updated_at"])
    return found, before


def settlement_batch_mark_paid(*, batch: SettlementBatch, actor: User) -> SettlementBatch:
    """NEW → PAID: every open item's application to qa_paid (a refusal refuses the whole).
    Idempotent: a batch already paid is answered as it is, nothing changes (no second history
    row, no second document). `settlement_batch_pay` also says whether this call paid it."""
    return settlement_batch_pay(batch=batch, actor=actor)[0]


def settlement_batch_pay(*, batch: SettlementBatch, actor: User) -> tuple[SettlementBatch, bool]:
    """settlement_batch_mark_paid, and whether this call paid the batch (False: it was paid)."""
    with transaction.atomic():
        batch = SettlementBatch.objects.select_for_update().get(pk=batch.pk)
        if batch.status == SettlementBatch.Status.SETTLED:
            return batch, False
        if batch.status != SettlementBatch.Status.NEW:
            raise SettlementError(NOT_NEW)
        if settlement_approval_pending(batch):
            raise SettlementError(APPROVAL_MISSING)
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
        # Each paid item's credit note or payout statement, numbered in this transaction.
        _documents_issue(batch)
        batch.status = SettlementBatch.Status.SETTLED
        batch.paid_at = timezone.now()
        batch.paid_by = actor
        batch.save(update_fields=["status", "paid_at", "paid_by"])
    return batch, True


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


def settlement_item_remove(*, item: SettlementItem, actor: User) -> None:
    """An open item taken out of a NEW batch: the item is deleted and its application goes
    back to qa_to_pay, ready for another batch."""
    with transaction.atomic():
        batch = SettlementBatch.objects.select_for_update().get(pk=item.batch_id)
        item = (
            SettlementItem.objects.select_for_update(of=("self",))
            .select_related("application")
            .get(pk=item.pk)
        )
        if batch.status != SettlementBatch.Status.NEW:
            raise SettlementError(NOT_NEW)
        if batch.sepa_file is not None:
            raise SettlementError(SEPA_FROZEN)
        if item.status != SettlementItem.Status.OPEN:
            raise SettlementError(NOT_OPEN)
        if item.application is not None:
            try:
                quota_application_move(
                    application=item.application,
                    status=QuotaStatus.TO_PAY,
                    actor=actor,
                    reason=f"Aus Abrechnungslauf {batch.reference} entfernt",
                )
            except QuotaError as error:
                raise SettlementError(MOVE_REFUSED, message=error.message) from None
        item.delete()


def _failed_item_locked(item: SettlementItem, *related: str) -> SettlementItem:
    """The item under its row lock (inside the caller's transaction), refused unless it is a
    failed payout whose owner and application still exist: what a requeue, an IBAN correction
    and a confirmed payment start from."""
    item = (
        SettlementItem.objects.select_for_update(of=("self",))
        .select_related(*(related or ("application",)))
        .get(pk=item.pk)
    )
    if item.application is None:
        raise SettlementError(OWNER_ERASED)
    if item.status != SettlementItem.Status.FAILED:
        raise SettlementError(NOT_FAILED)
    return item


def _move(application: QuotaApplication, status: str, actor: User, reason: str) -> None:
    """quota_application_move, its refusal as the settlement's (MOVE_REFUSED)."""
    try:
        quota_application_move(application=application, status=status, actor=actor, reason=reason)
    except QuotaError as error:
        raise SettlementError(MOVE_REFUSED, message=error.message) from None


def settlement_item_requeue(*, item: SettlementItem, actor: User) -> SettlementItem:
    """A failed payout paid again as it is (the bank's return was temporary): the application
    goes from qa_payment_failure back to qa_to_pay, for a new batch; the item stays failed."""
    with transaction.atomic():
        item = _failed_item_locked(item)
        assert item.application is not None
        _move(item.application, QuotaStatus.TO_PAY, actor, "Erneut zur Auszahlung")
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
        item = _failed_item_locked(item, "application__client")
        assert item.application is not None
        client = Client.objects.select_for_update().get(pk=item.application.client_id)
        client.account_iban = iban
        fields = ["account_iban", "updated_at"]
        if account_name:
            client.account_name = account_name
            fields.append("account_name")
        client.save(update_fields=fields)
        _move(item.application, QuotaStatus.TO_PAY, actor, "Bankverbindung korrigiert")
    return item


@dataclass(frozen=True)
class PaidConfirmed:
    item: SettlementItem
    # False: the item was confirmed paid before (nothing changed, nothing to record again).
    confirmed_now: bool
    # The failure the confirmation replaced (for the audit log).
    failure_reason: str


def settlement_item_paid_confirm(*, item: SettlementItem, actor: User, note: str = "") -> PaidConfirmed:
    """A payout recorded as failed that was in fact paid (the bank's status report or the
    partner admin says so): the item is paid again and its application moves from
    qa_payment_failure to qa_paid; the item gets its credit note or payout statement if it has
    none (one per application). Idempotent: an item confirmed before is answered as it is."""
    note = note.strip()
    with transaction.atomic():
        try:
            found = _failed_item_locked(item)
        except SettlementError as error:
            if error.code == NOT_FAILED:
                # Locked by the helper already; confirmed before: answered as it is.
                again = SettlementItem.objects.select_related("application").get(pk=item.pk)
                if (
                    again.status == SettlementItem.Status.PAID
                    and again.failed_at is not None
                    and again.application is not None
                    and again.application.status == QuotaStatus.PAID
                ):
                    return PaidConfirmed(again, False, "")
            raise
        application = found.application
        assert application is not None
        if application.status != QuotaStatus.PAYMENT_FAILURE:
            # Requeued (qa_to_pay) or in a later batch meanwhile: that one pays it now.
            raise SettlementError(NOT_PAYMENT_FAILURE)
        reason = "Doch ausgezahlt" + (f": {note}" if note else "")
        _move(application, QuotaStatus.PAID, actor, reason[:500])
        before = found.failure_reason
        found.status = SettlementItem.Status.PAID
        # failed_at stays: the item was returned once and confirmed since (the audit log has both).
        found.failure_reason = ""
        try:
            with transaction.atomic():
                found.save(update_fields=["status", "failure_reason"])
        except IntegrityError:
            # The one-payout constraint: another item of the application holds its payout.
            raise SettlementError(ALREADY_IN_BATCH) from None
        batch = SettlementBatch.objects.get(pk=found.batch_id)
        _documents_issue(batch)
    return PaidConfirmed(found, True, before)


def _documents_issue(batch: SettlementBatch) -> None:
    """The batch's documents numbered in the caller's transaction; their files are made by a
    worker once it commits, so the owners' links and the batch's ZIP need not wait for 10,000
    PDFs in a request."""
    if payout_documents_issue(batch=batch):
        schema_name = str(connection.schema_name)  # type: ignore[attr-defined]
        transaction.on_commit(functools.partial(payout_documents_render, schema_name, batch.pk))


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


@dataclass(frozen=True)
class SepaFile:
    xml: bytes
    version: str
    msg_id: str
    built_now: bool
    # Set when the batch is paid: its file is downloaded again (PAID_AGAIN), not refused.
    warning: str | None


def settlement_sepa_file(
    *, batch: SettlementBatch, config: PartnerConfig, version: sepa.Version | None = None
) -> SepaFile:
    """The batch's SEPA file: built once, at the first download of a NEW batch, from its open
    bank items whose application is in the batch's state (qa_to_settle), and kept; every later
    download serves the same bytes (same MsgId and PmtInfId), a paid batch's with a warning."""
    with transaction.atomic():
        batch = SettlementBatch.objects.select_for_update().get(pk=batch.pk)
        if batch.sepa_file is not None:
            if version is not None and version != batch.sepa_version:
                raise SettlementError(
                    SEPA_VERSION, message=MESSAGES[SEPA_VERSION].format(version=batch.sepa_version)
                )
            batch.sepa_downloads += 1
            batch.save(update_fields=["sepa_downloads"])
            paid = batch.status == SettlementBatch.Status.SETTLED
            return SepaFile(
                xml=bytes(batch.sepa_file),
                version=batch.sepa_version,
                msg_id=batch.sepa_msg_id,
                built_now=False,
                warning=MESSAGES[PAID_AGAIN] if paid else None,
            )
        if batch.status != SettlementBatch.Status.NEW:
            raise SettlementError(SEPA_NOT_BUILT)
        if settlement_approval_pending(batch):
            raise SettlementError(APPROVAL_MISSING)
        version = version or "09"
        xml = settlement_sepa_xml(batch=batch, config=config, version=version)
        batch.sepa_file = xml
        batch.sepa_version = version
        batch.sepa_msg_id = batch.reference
        batch.sepa_built_at = timezone.now()
        batch.sepa_downloads = 1
        batch.save(
            update_fields=["sepa_file", "sepa_version", "sepa_msg_id", "sepa_built_at", "sepa_downloads"]
        )
    return SepaFile(xml=xml, version=version, msg_id=batch.reference, built_now=True, warning=None)


def sepa_payable_items(batch: SettlementBatch) -> list[SettlementItem]:
    """What a SEPA file may pay: the open bank items whose application is where this batch put
    it (qa_to_settle) and whose owner is not erased."""
    return list(
        batch.items.filter(
            method=SettlementItem.Method.SEPA,
            status=SettlementItem.Status.OPEN,
            application__status=QuotaStatus.TO_SETTLE,
            owner__isnull=False,
        )
    )


def settlement_sepa_xml(*, batch: SettlementBatch, config: PartnerConfig, version: sepa.Version) -> bytes:
    """A new SEPA file of the batch (settlement_sepa_file builds and keeps it once)."""
    account = config.payout_account
    if not account.iban:
        raise SettlementError(NO_PAYOUT_ACCOUNT)
    transfers = sepa_transfers(batch, sepa_payable_items(batch))
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
        msg_id=batch.reference,
        payment_id=f"{batch.reference}-P1",
    )
