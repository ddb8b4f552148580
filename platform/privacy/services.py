"""Export (GDPR Art. 15/20) and erasure (Art. 17) of an owner's data."""

from __future__ import annotations

import datetime
import hashlib
import hmac
import io
import json
import logging
import secrets
import zipfile
from collections import Counter
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone
from ninja_jwt.token_blacklist.models import OutstandingToken

from accounts.mails import mail_secret_seal
from accounts.models import LoginCode, LoginLink, User, canonical_name
from billing.models import Client
from operations.bulk import bulk_items_clear
from operations.document_models import DocumentKind, PayoutDocument
from operations.models import SettlementBatch, SettlementItem
from operations.settlement import ERASED_REASON
from privacy import errors, inventory
from privacy.errors import PrivacyError
from privacy.models import ConsentRecord, DataExport, ErasureRequest, RetainedPayout
from privacy.selectors import owner_data, owner_scans
from privacy.signals import erasure
from quota.models import AdvertisementClick, QuotaApplication, QuotaStatus
from registrations.models import BevRegistration, DeviceInfo
from staff.audit import audit_record
from staff.models import AuditEntry, StaffMember
from tenants.models import Partner

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


def _digest(value: str) -> str:
    return hmac.new(settings.SECRET_KEY.encode(), f"privacy:{value}".encode(), hashlib.sha256).hexdigest()


def _owner_check(user: User) -> None:
    # Staff accounts are never erased or exported through the owner's calls.
    if user.is_staff or user.is_superuser:
        raise PrivacyError(errors.NOT_AN_OWNER, status=403)


# ---------------------------------------------------------------- export


def data_export_request(*, partner: Partner, user: User, site_url: str) -> DataExport:
    """Queues the ZIP for this owner; one per PRIVACY_EXPORT_INTERVAL (429 before)."""
    from privacy.tasks import data_export_build_task  # the task module imports this one

    _owner_check(user)
    now = timezone.now()
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()  # one request at a time
        last = DataExport.objects.filter(user=user).order_by("-created_at").first()
        if last is not None and now - last.created_at < settings.PRIVACY_EXPORT_INTERVAL:
            wait = settings.PRIVACY_EXPORT_INTERVAL - (now - last.created_at)
            raise PrivacyError(errors.EXPORT_TOO_SOON, status=429, retry_after=int(wait.total_seconds()) + 1)
        key = secrets.token_urlsafe(32)
        link = f"{site_url.rstrip('/')}/api/end_user_portal/data_export/{key}/"
        export = DataExport.objects.create(
            user=user,
            key_hash=_digest(key),
            sealed=mail_secret_seal(link),
            expires_at=now + settings.PRIVACY_EXPORT_LINK_LIFETIME,
        )
        schema = partner.schema_name
        transaction.on_commit(lambda: data_export_build_task(schema, export.pk))
    logger.info("data export requested")
    return export


def data_export_build(*, schema_name: str, export_id: int) -> DataExport | None:
    """Writes the ZIP (JSON documents and the scans) to private storage. Runs in the schema."""
    export = DataExport.objects.select_related("user").filter(pk=export_id, built_at__isnull=True).first()
    if export is None:
        return None
    data = owner_data(user=export.user)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(
            "LIESMICH.txt",
            "Ihre Daten bei diesem Anbieter (Art. 15 und 20 DSGVO): JSON-Dateien in maschinenlesbarer Form, "
            "die Bilder Ihrer Fahrzeugscheine im Ordner scans/.\n",
        )
        for name, document in data.items():
            archive.writestr(f"{name}.json", json.dumps(document, ensure_ascii=False, indent=2))
        for name, path in owner_scans(user=export.user):
            try:
                with default_storage.open(path, "rb") as handle:
                    archive.writestr(name, handle.read())
            except FileNotFoundError:
                continue
    export.file = default_storage.save(
        f"{schema_name}/exports/{export.uuid}.zip", ContentFile(buffer.getvalue())
    )
    export.built_at = timezone.now()
    export.save(update_fields=["file", "built_at"])
    return export


def data_export_claim(*, key: str) -> DataExport:
    """The export of a mailed link: valid 24 hours, once (also under concurrency)."""
    now = timezone.now()
    export = DataExport.objects.filter(
        key_hash=_digest(key), downloaded_at__isnull=True, expires_at__gt=now, built_at__isnull=False
    ).first()
    if export is None or not DataExport.objects.filter(pk=export.pk, downloaded_at__isnull=True).update(
        downloaded_at=now
    ):
        raise PrivacyError(errors.EXPORT_LINK_INVALID, status=404)
    return export


# ---------------------------------------------------------------- erasure


def erasure_request(*, partner: Partner, user: User) -> ErasureRequest:
    """Mails a confirmation code to the account's address."""
    from privacy.tasks import mail_erasure_code  # the task module imports this one

    _owner_check(user)
    now = timezone.now()
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()
        last = ErasureRequest.objects.filter(user=user).order_by("-created_at").first()
        if last is not None and now - last.created_at < settings.LOGIN_SEND_INTERVAL:
            wait = settings.LOGIN_SEND_INTERVAL - (now - last.created_at)
            raise PrivacyError(errors.ERASURE_TOO_SOON, status=429, retry_after=int(wait.total_seconds()) + 1)
        ErasureRequest.objects.filter(user=user, expires_at__gt=now).update(expires_at=now)
        code = f"{secrets.randbelow(10**6):06d}"
        row = ErasureRequest.objects.create(
            user=user,
            code_hash=_digest(f"{user.pk}:{code}"),
            sealed=mail_secret_seal(code),
            expires_at=now + settings.PRIVACY_ERASURE_CODE_LIFETIME,
        )
        schema = partner.schema_name
        transaction.on_commit(lambda: mail_erasure_code(schema, row.pk))
    return row


def erasure_confirm(*, partner: Partner, user: User, code: str) -> dict[str, int]:
    """The code from the mail: five tries, ten minutes; then the owner is erased."""
    _owner_check(user)
    now = timezone.now()
    active = ErasureRequest.objects.filter(user=user, expires_at__gt=now).order_by("-created_at").first()
    if active is None:
        raise PrivacyError(errors.ERASURE_CODE_INVALID)
    limit = settings.PRIVACY_ERASURE_CODE_MAX_ATTEMPTS
    # The attempt is counted before the code is looked at, in one conditional UPDATE (atomic in
    # the database): however many tries arrive at once, at most `limit` are evaluated.
    counted = ErasureRequest.objects.filter(pk=active.pk, attempts__lt=limit).update(
        attempts=F("attempts") + 1
    )
    if not counted:
        raise PrivacyError(errors.ERASURE_TOO_MANY_ATTEMPTS, status=429)
    if not (code.isdigit() and hmac.compare_digest(active.code_hash, _digest(f"{user.pk}:{code}"))):
        attempts = ErasureRequest.objects.filter(pk=active.pk).values_list("attempts", flat=True).first()
        if attempts is None or attempts >= limit:
            raise PrivacyError(errors.ERASURE_TOO_MANY_ATTEMPTS, status=429)
        raise PrivacyError(errors.ERASURE_CODE_INVALID)
    return owner_erase(schema_name=partner.schema_name, user=user, actor="owner")


def _retain_until(moved_at: datetime.datetime) -> datetime.date:
    return datetime.date(moved_at.year + settings.RETENTION_PAYOUT_YEARS, 12, 31)


def owner_erase(*, schema_name: str, user: User, actor: str) -> dict[str, int]:
    """Deletes everything of this owner that no law requires to keep; the payout records that
    tax law does require are kept pseudonymised (RetainedPayout) until their period ends.
    Scans, exports, device data, login codes, links and sessions go, and the account itself:
    nobody can log in as this owner any more. Runs inside the partner's schema.

    `actor` names who asked ("owner" in the portal, "partner admin" by mail) for the log line.
    Returns the counts of what was deleted or kept."""
    _owner_check(user)
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
        pseudonym = _digest(f"erased:{schema_name}:{locked.pk}")
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


def _settlement_items_of(owner: User) -> QuerySet[Any]:
    return SettlementItem.objects.filter(Q(owner=owner) | Q(application__registration__owner=owner))


def _settlement_items_pseudonymise(owner: User, pseudonym: str) -> Counter[str]:
    """The owner's settlement items (payout records of tax and payout law) stay with their
    batch, without the owner: no name, no link to the owner or the application, no free-text
    failure reason (staff may have written a name there); the amounts, number and year, the
    masked IBAN and the IBAN or card as paid (encrypted) stay. An open item of a batch not yet
    paid is failed: an erased owner is not paid (docs/privacy.md)."""
    counts: Counter[str] = Counter()
    now = timezone.now()
    items = _settlement_items_of(owner).select_for_update(of=("self",))
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


# ---------------------------------------------------------------- erasure by a partner admin


def _owner_by_email(email: str) -> User:
    user = User.objects.filter(email_canonical=canonical_name(email)).first()
    if user is None:
        raise PrivacyError(errors.OWNER_UNKNOWN, status=404)
    if user.is_staff or user.is_superuser or StaffMember.objects.filter(user=user).exists():
        raise PrivacyError(errors.NOT_AN_OWNER, status=403)
    return user


def partner_erasure_preview(*, email: str) -> dict[str, int]:
    """What an erasure of this owner would delete and keep, for the admin to check first."""
    user = _owner_by_email(email)
    applications = QuotaApplication.objects.filter(registration__owner=user)
    return {
        "registrations": BevRegistration.objects.filter(owner=user).count(),
        "applications": applications.count(),
        "payout_records_kept": applications.filter(status__in=PAYOUT_STATUSES).count(),
        "settlement_items_kept": _settlement_items_of(user).count(),
    }


def partner_erasure(
    *, partner: Partner, member: StaffMember | None, email: str, reference: str
) -> dict[str, int]:
    """A partner admin (or the operator's command, `member` None) erases an owner on a
    request received by mail or letter: the same erasure as the owner's own, audited in the
    partner's log (who, when, the request's reference, the counts; the address only as the
    same keyed pseudonym the payout records carry)."""
    user = _owner_by_email(email)
    with transaction.atomic():
        pseudonym = _digest(f"erased:{partner.schema_name}:{user.pk}")
        user_id = user.pk
        counts = owner_erase(
            schema_name=partner.schema_name, user=user, actor="partner admin" if member else "operator"
        )
        audit_record(
            actor=member,
            action="privacy.erasure",
            object_type="accounts.user",
            object_id=str(user_id),
            after={"reference": reference, "pseudonym": pseudonym, "counts": counts},
        )
    return counts
