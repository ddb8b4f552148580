"""Bulk uploads: a ZIP of scans (and an optional owner CSV) checked whole before anything is
stored; then one task per file runs the flow's own intake (registrations.services.
registration_create: size, type, decode, document check, reader, storage) and, with owner
data, the flow's billing rules and application creation (billing.validation,
quota.services.quota_applications_create)."""

from __future__ import annotations

import json
import logging
import time
from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from typing import IO, Any

from django.conf import settings
from django.core.cache import cache
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.models import User, canonical_name
from accounts.services import end_user_get_or_create
from billing.models import Client
from common.partner_config import PartnerConfig
from operations import archive as zip_check
from operations.models import BulkUpload, BulkUploadItem
from operations.owner_csv import OwnerRows, owner_data_validate, owner_rows_parse
from quota.hooks import vehicle_registry
from quota.models import QuotaApplication, QuotaStatus
from quota.services import quota_applications_create
from registrations import errors as scan_errors
from registrations.errors import ScanRejected
from registrations.models import BevRegistration
from registrations.services import B2B_SOURCE, registration_create, registration_lock
from tenants.models import Partner

logger = logging.getLogger(__name__)

ROLLBACK_NOT_FINISHED = "BULK040"
ROLLBACK_PAST_ENTERED = "BULK041"
ROLLBACK_DONE = "BULK042"
STAFF_EMAIL = "BULK030"
PROCESSING_FAILED = "BULK031"
DUPLICATE_FILE = "BULK032"  # the same bytes earlier in the archive
DUPLICATE_VEHICLE = "BULK033"  # this VIN already has an application for the year (or is in this upload)
OWNER_HAS_CSV = "BULK050"
OWNER_NOT_ACCEPTED = "BULK051"
OWNER_SET = "BULK052"
OWNER_INVALID = "BULK053"
UPLOADS_THROTTLED = "BULK060"

MESSAGES = {
    ROLLBACK_NOT_FINISHED: "Der Upload wird noch verarbeitet. Bitte warten Sie, bis er fertig ist.",
    ROLLBACK_PAST_ENTERED: "Zurücknehmen geht nicht mehr: Anträge dieses Uploads sind schon weiter als „Erfasst“.",
    ROLLBACK_DONE: "Dieser Upload wurde bereits zurückgenommen.",
    OWNER_HAS_CSV: "Die Halterdaten dieses Uploads kamen aus seiner CSV-Datei.",
    OWNER_NOT_ACCEPTED: "Halterdaten gibt es nur für angenommene Scans eines fertigen Uploads.",
    OWNER_SET: "Für diesen Scan sind die Halterdaten schon erfasst.",
    OWNER_INVALID: "Einige Angaben zum Halter sind ungültig.",
    STAFF_EMAIL: "Diese E-Mail-Adresse gehört zu einem Mitarbeiterkonto.",
    UPLOADS_THROTTLED: "Zu viele Uploads in kurzer Zeit. Bitte versuchen Sie es in {wait} Sekunden erneut.",
}
# An application in one of these may still be taken back with its upload.
ROLLBACK_STATUSES = {QuotaStatus.CREATED, QuotaStatus.ENTERED}
FINISHED = {
    BulkUpload.Status.READY,
    BulkUpload.Status.CREATED,
    BulkUpload.Status.REJECTED,
}


class BulkError(Exception):
    def __init__(self, code: str, details: dict[str, Any] | None = None):
        self.code = code
        self.message = MESSAGES[code]
        self.details = details or {}
        super().__init__(code)


class BulkThrottled(BulkError):
    def __init__(self, retry_after: int):
        super().__init__(UPLOADS_THROTTLED, {"wait": retry_after})
        self.retry_after = retry_after
        self.message = MESSAGES[UPLOADS_THROTTLED].format(wait=retry_after)


def bulk_upload_budget_take(*, partner: Partner) -> None:
    """Counts one bulk upload attempt of the partner (refused ones too: each costs the archive's
    check) in a fixed window of the shared cache; BulkThrottled past BULK_UPLOADS_PER_WINDOW."""
    window = int(settings.BULK_UPLOAD_WINDOW)
    now = time.time()
    bucket = int(now // window)
    key = f"bulk-uploads:{partner.schema_name}:{bucket}"
    cache.add(key, 0, timeout=window + 5)
    try:
        count = int(cache.incr(key))
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=window + 5)
        count = 1
    if count > int(settings.BULK_UPLOADS_PER_WINDOW):
        raise BulkThrottled(max(1, int((bucket + 1) * window - now) + 1))


def _raw_path(schema_name: str, upload: BulkUpload, position: int) -> str:
    return f"{schema_name}/bulk/{upload.uuid}/{position:04d}"


def _placeholder_owner(upload_uuid: str) -> User:
    """The owner of the scans of an upload without owner data (fleet scans): an account that
    cannot log in; the back office completes the data."""
    user = User(username=f"bulk-{upload_uuid}", email="")
    user.set_unusable_password()
    user.save()
    return user


def bulk_upload_create(
    *,
    partner: Partner,
    actor: User | None,
    upload: IO[bytes],
    file_name: str,
    size: int,
    owner_csv: bytes | None,
    registration_years: list[int],
    enqueue: Callable[[str, int], Any],
) -> BulkUpload:
    """Check the archive and the CSV whole (ArchiveRefused, CsvRefused: nothing stored), then
    store the files and one item each, and start a task per file after the commit."""
    archive = zip_check.archive_open(upload)
    with archive:
        checked = zip_check.archive_check(archive, max_member_bytes=settings.SCAN_MAX_BYTES)
        config = PartnerConfig.model_validate(partner.config)
        owners: OwnerRows | None = (
            owner_rows_parse(owner_csv, file_names=checked.names, config=config)
            if owner_csv is not None
            else None
        )
        stored: list[str] = []
        try:
            with transaction.atomic():
                bulk = BulkUpload.objects.create(
                    file_name=file_name[:255],
                    size=size,
                    file_count=len(checked.members),
                    has_csv=owners is not None,
                    csv_encoding=owners.encoding if owners else "",
                    registration_years=registration_years,
                    created_by=actor,
                    status=BulkUpload.Status.CSV_OK if owners else BulkUpload.Status.NEW,
                )
                if owners is None:
                    bulk.owner = _placeholder_owner(str(bulk.uuid))
                    bulk.save(update_fields=["owner"])
                seen: dict[str, str] = {}
                items = []
                for position, (member, data) in enumerate(zip_check.archive_members(archive, checked)):
                    item = BulkUploadItem(
                        upload=bulk,
                        position=position,
                        file_name=member.name[:255],
                        sha256=checked.sha256.get(member.name, ""),
                        size=member.info.file_size,
                        owner_data=json.dumps(owners.rows[member.name]) if owners else "",
                    )
                    if data is None:
                        item.status, item.error_code = (
                            BulkUploadItem.Status.REFUSED,
                            scan_errors.FILE_TOO_LARGE,
                        )
                        item.error_details = {"max_bytes": settings.SCAN_MAX_BYTES}
                        item.finished_at = timezone.now()
                    elif item.sha256 in seen:
                        item.status, item.error_code = BulkUploadItem.Status.DUPLICATE, DUPLICATE_FILE
                        item.error_details = {"same_as": seen[item.sha256]}
                        item.finished_at = timezone.now()
                    else:
                        seen[item.sha256] = member.name
                        path = _raw_path(partner.schema_name, bulk, position)
                        item.stored_path = default_storage.save(path, ContentFile(data))
                        stored.append(item.stored_path)
                    items.append(item)
                BulkUploadItem.objects.bulk_create(items)
        except Exception:
            for path in stored:
                default_storage.delete(path)
            raise
    transaction.on_commit(
        lambda: bulk_upload_start(schema_name=partner.schema_name, upload_id=bulk.pk, enqueue=enqueue)
    )
    return bulk


def bulk_upload_start(*, schema_name: str, upload_id: int, enqueue: Callable[[str, int], Any]) -> None:
    BulkUpload.objects.filter(
        pk=upload_id, status__in=[BulkUpload.Status.NEW, BulkUpload.Status.CSV_OK]
    ).update(status=BulkUpload.Status.IN_PROGRESS)
    pending = list(
        BulkUploadItem.objects.filter(upload_id=upload_id, status=BulkUploadItem.Status.PENDING).values_list(
            "pk", flat=True
        )
    )
    for item_id in pending:
        enqueue(schema_name, item_id)
    if not pending:
        bulk_upload_finish_check(upload_id=upload_id)


def _registration_delete(registration: BevRegistration) -> list[str]:
    """Delete a registration without applications; returns its files for after the commit."""
    files = [registration.zlb_scan, registration.display_scan, registration.resized_image]
    registration.delete()
    return files


def _files_delete(paths: list[str]) -> None:
    for path in paths:
        if path:
            default_storage.delete(path)


def _owner_for(item: BulkUploadItem, data: dict[str, Any] | None) -> tuple[User, bool]:
    if data is None:
        assert item.upload.owner is not None
        return item.upload.owner, False
    existed = User.objects.filter(email_canonical=canonical_name(data["email"])).exists()
    return end_user_get_or_create(email=data["email"]), not existed


def _item_finish(
    item: BulkUploadItem, status: str, code: str = "", details: dict[str, Any] | None = None
) -> None:
    item.status, item.error_code, item.error_details = status, code, details or {}
    item.finished_at = timezone.now()
    item.save(
        update_fields=[
            "status", "error_code", "error_details", "finished_at", "registration", "client", "owner",
            "owner_created", "stored_path",
        ]
    )  # fmt: skip


def bulk_item_process(*, partner: Partner, item_id: int) -> BulkUploadItem:
    """One file: the flow's intake and document check; with owner data the client and the
    applications (qa_created). Idempotent: an item already done is left alone."""
    item = BulkUploadItem.objects.select_related("upload", "upload__owner", "upload__created_by").get(
        pk=item_id
    )
    if item.status != BulkUploadItem.Status.PENDING or item.upload.status != BulkUpload.Status.IN_PROGRESS:
        return item
    raw_path = item.stored_path
    try:
        _item_run(partner=partner, item=item)
    except Exception:
        logger.exception("bulk item failed", extra={"bulk_upload": item.upload_id, "item": item.pk})
        item.stored_path = ""
        _item_finish(item, BulkUploadItem.Status.REFUSED, PROCESSING_FAILED)
    if raw_path:
        default_storage.delete(raw_path)
    bulk_upload_finish_check(upload_id=item.upload_id)
    return item


def _item_run(*, partner: Partner, item: BulkUploadItem) -> None:
    upload = item.upload
    with default_storage.open(item.stored_path, "rb") as handle:
        data = handle.read()
    item.stored_path = ""
    owner_data = json.loads(item.owner_data) if item.owner_data else None
    owner, created = _owner_for(item, owner_data)
    if owner.is_staff or owner.is_superuser:
        _item_finish(item, BulkUploadItem.Status.REFUSED, STAFF_EMAIL)
        return
    item.owner, item.owner_created = owner, created
    try:
        registration = registration_create(
            partner=partner,
            owner=owner,
            data=data,
            source=B2B_SOURCE,
            registration_years=upload.registration_years,
            skip_classifier=False,
            login=f"bulk-{upload.uuid}",
        )
    except ScanRejected as rejected:
        _item_finish(item, BulkUploadItem.Status.REFUSED, rejected.code, rejected.details)
        return
    files: list[str] = []
    try:
        with transaction.atomic():
            if registration.vin:
                # Two workers with the same vehicle: the lock makes one of them see the other.
                with connection.cursor() as cursor:
                    cursor.execute(
                        "SELECT pg_advisory_xact_lock(hashtext(%s))", [f"bulk-vin:{registration.vin}"]
                    )
                in_upload = BulkUploadItem.objects.filter(
                    upload=upload, status=BulkUploadItem.Status.ACCEPTED
                ).values("registration")
                taken = (
                    BevRegistration.objects.filter(vin=registration.vin)
                    .exclude(pk=registration.pk)
                    .filter(
                        Q(quota_applications__legislation_year__in=upload.registration_years)
                        | Q(pk__in=in_upload)
                    )
                    .first()
                )
                if taken is not None:
                    files = _registration_delete(registration)
                    _item_finish(
                        item, BulkUploadItem.Status.DUPLICATE, DUPLICATE_VEHICLE, {"sequence": taken.sequence}
                    )
                    return
            registration_lock(registration=registration)
            item.registration = registration
            if owner_data is not None:
                client_data = {key: value for key, value in owner_data.items() if key != "email"}
                client = Client.objects.create(owner=owner, locked_at=timezone.now(), **client_data)
                item.client = client
                quota_applications_create(
                    registration=registration,
                    client=client,
                    config=PartnerConfig.model_validate(partner.config),
                    actor=upload.created_by,
                )
            _item_finish(item, BulkUploadItem.Status.ACCEPTED)
    except Exception:
        files = [registration.zlb_scan, registration.display_scan, registration.resized_image]
        BevRegistration.objects.filter(pk=registration.pk, quota_applications__isnull=True).delete()
        raise
    finally:
        if files:
            transaction.on_commit(lambda: _files_delete(files))


def bulk_uploads_sweep(*, schema_name: str, enqueue: Callable[[str, int], Any]) -> dict[str, int]:
    """Uploads whose worker died: an upload still running BULK_STALE_MINUTES after it was made
    gets its waiting files queued again (resumed); one still running BULK_GIVE_UP_MINUTES after
    has its waiting files failed (BULK031) and their raw files deleted, so that it finishes and
    can be rolled back. A waiting file whose raw file is gone fails at once. Runs in the schema."""
    now = timezone.now()
    stale = now - timedelta(minutes=int(settings.BULK_STALE_MINUTES))
    give_up = now - timedelta(minutes=int(settings.BULK_GIVE_UP_MINUTES))
    counts: Counter[str] = Counter()
    running = BulkUpload.objects.filter(
        status__in=[BulkUpload.Status.NEW, BulkUpload.Status.CSV_OK, BulkUpload.Status.IN_PROGRESS],
        created_at__lt=stale,
    )
    for upload_id, created_at in running.values_list("pk", "created_at"):
        # a new upload whose start never ran (its web process died after the commit) starts now
        BulkUpload.objects.filter(
            pk=upload_id, status__in=[BulkUpload.Status.NEW, BulkUpload.Status.CSV_OK]
        ).update(status=BulkUpload.Status.IN_PROGRESS)
        files: list[str] = []
        with transaction.atomic():
            waiting = list(
                BulkUploadItem.objects.select_for_update(skip_locked=True).filter(
                    upload_id=upload_id, status=BulkUploadItem.Status.PENDING
                )
            )
            resume: list[int] = []
            for item in waiting:
                if created_at >= give_up and item.stored_path and default_storage.exists(item.stored_path):
                    resume.append(item.pk)
                    continue
                files.append(item.stored_path)
                item.stored_path = ""
                _item_finish(item, BulkUploadItem.Status.REFUSED, PROCESSING_FAILED)
                counts["failed"] += 1
            transaction.on_commit(lambda files=files: _files_delete(files))  # type: ignore[misc]
        for item_id in resume:
            enqueue(schema_name, item_id)
        counts["resumed"] += len(resume)
        bulk_upload_finish_check(upload_id=upload_id)
    if counts:
        logger.warning("stuck bulk uploads swept", extra={"partner": schema_name, **counts})
    return dict(counts)


def bulk_upload_finish_check(*, upload_id: int) -> BulkUpload | None:
    """The last file decides the upload's status: all in, none in, or a per-file report."""
    with transaction.atomic():
        upload = BulkUpload.objects.select_for_update().get(pk=upload_id)
        if upload.status != BulkUpload.Status.IN_PROGRESS:
            return upload
        counts = Counter(upload.items.values_list("status", flat=True))
        if counts[BulkUploadItem.Status.PENDING]:
            return upload
        accepted = counts[BulkUploadItem.Status.ACCEPTED]
        if accepted == upload.file_count:
            upload.status = BulkUpload.Status.CREATED
        elif accepted == 0:
            upload.status = BulkUpload.Status.REJECTED
        else:
            upload.status = BulkUpload.Status.READY
        upload.finished_at = timezone.now()
        upload.save(update_fields=["status", "finished_at"])
    return upload


def bulk_items_clear(items: QuerySet[BulkUploadItem]) -> int:
    """Bulk upload items without an owner's data (rollback, erasure: privacy.inventory): the
    position, size, checksum and outcome stay; the CSV row, the file name (which may name the
    owner), the refusal's details and the raw file's path go."""
    return int(items.update(owner_data="", file_name="", stored_path="", error_details={}))


def bulk_upload_rollback(*, upload: BulkUpload) -> tuple[BulkUpload, dict[str, int]]:
    """Remove everything the upload created (applications with their history, clients,
    registrations with their scans, owner accounts made for it); refused while it runs and
    once any of its applications is past qa_entered."""
    files: list[str] = []
    with transaction.atomic():
        upload = BulkUpload.objects.select_for_update().get(pk=upload.pk)
        if upload.status == BulkUpload.Status.ROLLED_BACK:
            raise BulkError(ROLLBACK_DONE)
        if upload.status not in FINISHED:
            raise BulkError(ROLLBACK_NOT_FINISHED)
        items = list(upload.items.exclude(registration__isnull=True).select_related("registration"))
        registration_ids = [item.registration_id for item in items]
        applications = list(
            QuotaApplication.objects.select_for_update()
            .filter(registration_id__in=registration_ids)
            .order_by("pk")
        )
        past = [a for a in applications if a.status not in ROLLBACK_STATUSES]
        if past:
            raise BulkError(
                ROLLBACK_PAST_ENTERED,
                {"applications": [{"id": a.pk, "status": a.status} for a in past[:50]]},
            )
        client_ids = {a.client_id for a in applications} | {i.client_id for i in items if i.client_id}
        owner_ids = {i.owner_id for i in upload.items.all() if i.owner_created and i.owner_id}
        if upload.owner_id:
            owner_ids.add(upload.owner_id)
        # Their vehicles are free again in the public double-registration registry.
        for application in applications:
            vehicle_registry().vehicle_release(application_id=application.pk)
        QuotaApplication.objects.filter(pk__in=[a.pk for a in applications]).delete()
        Client.objects.filter(pk__in=client_ids, quota_applications__isnull=True).delete()
        for registration in BevRegistration.objects.filter(pk__in=registration_ids):
            files += _registration_delete(registration)
        # Accounts made for the upload go too, unless their owner has used them since.
        removable = User.objects.filter(
            pk__in=owner_ids, is_staff=False, is_superuser=False, last_login__isnull=True
        ).exclude(Q(bev_registrations__isnull=False) | Q(clients__isnull=False))
        removed_owners = removable.count()
        removable.delete()
        files += [path for path in upload.items.values_list("stored_path", flat=True) if path]
        bulk_items_clear(upload.items.all())
        upload.status = BulkUpload.Status.ROLLED_BACK
        upload.rolled_back_at = timezone.now()
        upload.save(update_fields=["status", "rolled_back_at"])
        transaction.on_commit(lambda: _files_delete(files))
    return upload, {
        "applications": len(applications),
        "registrations": len(registration_ids),
        "clients": len(client_ids),
        "owners": removed_owners,
    }


def bulk_item_owner_set(
    *, partner: Partner, item: BulkUploadItem, data: dict[str, Any], actor: User | None
) -> list[QuotaApplication]:
    """Owner data for one accepted scan of an upload without CSV, checked like a CSV row: the
    owner's account (made if new), the locked billing data, the registration moved from the
    upload's account to the owner, the applications created (qa_created) as with a CSV. Rollback
    takes all of it back like the rest of the upload."""
    config = PartnerConfig.model_validate(partner.config)
    clean, found = owner_data_validate(data, config)
    if found:
        raise BulkError(OWNER_INVALID, {"errors": found})
    with transaction.atomic():
        upload = BulkUpload.objects.select_for_update().get(pk=item.upload_id)
        item = (
            BulkUploadItem.objects.select_for_update(of=("self",))
            .select_related("registration")
            .get(pk=item.pk)
        )
        if upload.has_csv:
            raise BulkError(OWNER_HAS_CSV)
        if (
            upload.status not in FINISHED
            or item.status != BulkUploadItem.Status.ACCEPTED
            or item.registration is None
        ):
            raise BulkError(OWNER_NOT_ACCEPTED)
        registration = item.registration
        if item.client_id is not None or registration.owner_id != upload.owner_id:
            raise BulkError(OWNER_SET)
        email = clean.pop("email")
        existed = User.objects.filter(email_canonical=canonical_name(email)).exists()
        owner = end_user_get_or_create(email=email)
        if owner.is_staff or owner.is_superuser:
            raise BulkError(STAFF_EMAIL)
        registration.owner = owner
        registration.save(update_fields=["owner"])
        client = Client.objects.create(owner=owner, locked_at=timezone.now(), **clean)
        item.client, item.owner, item.owner_created = client, owner, not existed
        item.save(update_fields=["client", "owner", "owner_created"])
        return quota_applications_create(registration=registration, client=client, config=config, actor=actor)
