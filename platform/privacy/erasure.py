"""Erasure (GDPR Art. 17) of an owner's data: what goes, what tax law keeps pseudonymised.
Used by the owner's confirmed request and a partner admin's erasure (privacy.services) and by
the retention run (privacy.retention, inactive accounts)."""

from __future__ import annotations

import datetime
import hashlib
import hmac
import json
import logging
from collections import Counter
from typing import Any

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from ninja_jwt.token_blacklist.models import OutstandingToken

from accounts.models import LoginCode, LoginLink, User
from billing.models import Client
from operations.bulk import bulk_items_clear
from operations.document_models import DocumentKind, PayoutDocument
from operations.models import SettlementBatch, SettlementItem
from operations.settlement import ERASED_REASON
from privacy import errors, inventory
from privacy.errors import PrivacyError
from privacy.models import ConsentRecord, DataExport, ErasureRequest, RetainedPayout
from privacy.signals import erasure
from quota.models import AdvertisementClick, QuotaApplication, QuotaStatus
from registrations.models import BevRegistration, DeviceInfo
from staff.models import AuditEntry

logger = logging.getLogger(__name__)

# Applications whose money moved or is about to: tax and payout law keeps their record.
PAYOUT_STATUSES = (
    QuotaStatus.TO_PAY,
    QuotaStatus.TO_SETTLE,
    QuotaStatus.PAID,
    QuotaStatus.PAYMENT_FAILURE,
    QuotaStatus.COMPLETED,
)


ERASED_AUDIT_REASON = "(gelöscht, Art. 17 DSGVO)"


def privacy_digest(value: str) -> str:
    return hmac.new(settings.SECRET_KEY.encode(), f"privacy:{value}".encode(), hashlib.sha256).hexdigest()


def owner_check(user: User) -> None:
    # Staff accounts are never erased or exported through the owner's calls.
    if user.is_staff or user.is_superuser:
        raise PrivacyError(errors.NOT_AN_OWNER, status=403)


def _retain_until(moved_at: datetime.datetime) -> datetime.date:
    return datetime.date(moved_at.year + settings.RETENTION_PAYOUT_YEARS, 12, 31)


def owner_erase(*, schema_name: str, user: User, actor: str) -> dict[str, int]:
    """Deletes everything of this owner that no law requires to keep; the payout records that
    tax law does require are kept pseudonymised (RetainedPayout) until their period ends.
    Scans, exports, device data, login codes, links and sessions go, and the account itself:
    nobody can log in as this owner any more. Runs inside the partner's schema.

    `actor` names who asked ("owner" in the portal, "partner admin" by mail) for the log line.
    Returns the counts of what was deleted or kept."""
    owner_check(user)
    counts: Counter[str] = Counter()
    files: list[str] = []
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        registrations = list(BevRegistration.objects.select_for_update().filter(owner=locked))
        erasure.send(
            sender=User,
            schema_name=schema_name,
            user_id=locked.pk,
            vins=tuple(sorted({r.vin for r in registrations if r.vin})),
            registration_uuids=tuple(str(r.uuid) for r in registrations),
        )
        pseudonym = privacy_digest(f"erased:{schema_name}:{locked.pk}")
        applications = list(
            QuotaApplication.objects.filter(registration__owner=locked)
            .select_related("registration", "client")
            .prefetch_related("status_changes")
        )
        for application in applications:
            if application.status not in PAYOUT_STATUSES:
                continue
            history = [
                {"status": c.status, "at": c.created_at.isoformat()} for c in application.status_changes.all()
            ]
            moved = max(
                (c.created_at for c in application.status_changes.all()), default=application.updated_at
            )
            RetainedPayout.objects.create(
                pseudonym=pseudonym,
                sequence=application.registration.sequence,
                legislation_year=application.legislation_year,
                status=application.status,
                status_history=history,
                account_iban=application.client.account_iban,
                account_bic=application.client.account_bic,
                vehicle_class=application.registration.vehicle_class,
                created_at=application.created_at,
                retain_until=_retain_until(moved),
            )
            counts["payout records kept pseudonymised"] += 1
        counts.update(_payout_documents_pseudonymise(locked, pseudonym))
        counts.update(_settlement_items_pseudonymise(locked, pseudonym))
        counts.update(_traces_clear(locked))
        counts["applications"] = (
            QuotaApplication.objects.filter(registration__owner=locked)
            .delete()[1]
            .get("quota.QuotaApplication", 0)
        )
        counts["device data"] = DeviceInfo.objects.filter(registration__owner=locked).delete()[0]
        for registration in registrations:
            files += [
                n for n in (registration.zlb_scan, registration.display_scan, registration.resized_image) if n
            ]
        counts["registrations"] = BevRegistration.objects.filter(owner=locked).delete()[0]
        counts["billing data"] = Client.objects.filter(owner=locked).delete()[0]
        counts["advertisement clicks"] = AdvertisementClick.objects.filter(user=locked).delete()[0]
        files += [e.file for e in DataExport.objects.filter(user=locked) if e.file]
        counts["exports"] = DataExport.objects.filter(user=locked).delete()[0]
        ErasureRequest.objects.filter(user=locked).delete()
        counts["consent records"] = ConsentRecord.objects.filter(user=locked).delete()[0]
        emails = {locked.email, locked.username}
        counts["login codes"] = LoginCode.objects.filter(email__in=emails).delete()[0]
        counts["login links"] = LoginLink.objects.filter(email__in=emails).delete()[0]
        counts["sessions"] = OutstandingToken.objects.filter(user=locked).delete()[0]
        locked.delete()
        counts["accounts"] = 1
        transaction.on_commit(lambda: _files_delete(files))
    logger.info(
        "owner erased by %s: %s",
        actor,
        ", ".join(f"{name} {count}" for name, count in sorted(counts.items())),
    )
    return dict(counts)


def _traces_clear(owner: User) -> Counter[str]:
    """What stays in rows that are not the owner's (privacy.inventory, "cleared"): a bulk
    upload's items lose the owner's CSV row, file name and refusal details, their raw files go;
    the audit log keeps that something changed and which field, not the owner's values."""
    counts: Counter[str] = Counter()
    items = inventory.holding("operations.BulkUploadItem").queryset(owner)
    stored = [path for path in items.values_list("stored_path", flat=True) if path]
    counts["bulk upload items cleared"] = bulk_items_clear(items)
    transaction.on_commit(lambda: _files_delete(stored))
    for entry in inventory.holding("staff.AuditEntry").queryset(owner).select_for_update():
        entry.before = inventory.audit_values_drop(entry.before)
        entry.after = inventory.audit_values_drop(entry.after)
        entry.save(update_fields=["before", "after"])
        counts["audit entries cleared of values"] += 1
    return counts


def settlement_items_of(owner: User) -> QuerySet[Any]:
    return SettlementItem.objects.filter(Q(owner=owner) | Q(application__registration__owner=owner))


def _settlement_items_pseudonymise(owner: User, pseudonym: str) -> Counter[str]:
    """The owner's settlement items (payout records of tax and payout law) stay with their
    batch, without the owner: no name, no link to the owner or the application, no free-text
    failure reason (staff may have written a name there); the amounts, number and year, the
    masked IBAN and the IBAN or card as paid (encrypted) stay. An open item of a batch not yet
    paid is failed: an erased owner is not paid (docs/privacy.md)."""
    counts: Counter[str] = Counter()
    now = timezone.now()
    items = settlement_items_of(owner).select_for_update(of=("self",))
    ids = list(items.values_list("pk", flat=True))
    if not ids:
        return counts
    mine = SettlementItem.objects.filter(pk__in=ids)
    counts["settlement items not paid (erased)"] = mine.filter(
        status=SettlementItem.Status.OPEN, batch__status=SettlementBatch.Status.NEW
    ).update(status=SettlementItem.Status.FAILED, failure_reason=ERASED_REASON, failed_at=now)
    mine.exclude(failure_reason=ERASED_REASON).update(failure_reason="")
    counts["settlement items kept pseudonymised"] = mine.update(
        owner=None, application=None, payee_name="", pseudonym=pseudonym, erased_at=now
    )
    # The audit log keeps who failed an item and when, not the free-text reason given.
    for entry in AuditEntry.objects.filter(
        action="settlement_item.fail",
        object_type=SettlementItem._meta.label_lower,
        object_id__in=[str(pk) for pk in ids],
    ):
        entry.after = {**(entry.after or {}), "reason": ERASED_AUDIT_REASON}
        entry.save(update_fields=["after"])
    return counts


def _payout_documents_pseudonymise(owner: User, pseudonym: str) -> Counter[str]:
    """The owner's payout documents (privacy.inventory, "pseudonymised") stay with their number:
    the numbering is gap-free and the documents are kept for their legal period.

    - A credit note (Gutschrift) is an invoice the partner issued in the owner's name (§ 14
      Abs. 2 Satz 2 UStG): kept as issued, row and PDF, for the retention of invoices (§ 14b
      UStG, § 147 AO). Only the links to the erased account and application go.
    - A payout statement (Auszahlungsbeleg, a private owner's) is no invoice: the payment it
      records stays in the pseudonymised settlement item. It keeps number, dates and amounts;
      the owner's name and address are replaced by the keyed pseudonym, the VIN goes, and its
      stored PDF (which prints the name) is deleted: it is made again from the row on request."""
    counts: Counter[str] = Counter()
    documents = list(
        inventory.holding("operations.PayoutDocument").queryset(owner).select_for_update(of=("self",))
    )
    files = []
    for document in documents:
        changed = ["owner", "application"]
        document.owner, document.application = None, None
        if document.kind == DocumentKind.PAYOUT_STATEMENT:
            document.owner_data = json.dumps(
                {"name": f"{inventory.ERASED_VALUE} ({pseudonym[:12]})", "country": "DE"}, ensure_ascii=False
            )
            document.vin = ""
            if document.pdf_path:
                files.append(document.pdf_path)
            document.pdf_path = ""
            changed += ["owner_data", "vin", "pdf_path"]
            counts["payout statements pseudonymised"] += 1
        else:
            counts["credit notes kept (invoice retention)"] += 1
        PayoutDocument.objects.filter(pk=document.pk).update(
            **{name: getattr(document, name) for name in changed}
        )
    transaction.on_commit(lambda: _files_delete(files))
    return counts


def _files_delete(names: list[str]) -> None:
    for name in names:
        default_storage.delete(name)
