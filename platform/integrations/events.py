"""The events webhooks send, read from the records the other apps keep in the same
transaction as their writes (quota.StatusChange, operations.BulkUpload, SettlementBatch,
SettlementItem): no app calls webhooks, and an event exists exactly when its write committed.

Each source is read from a cursor (WebhookCursor) with an overlap of SETTLE: a write whose
transaction commits a little later than its row's time is still found, and the event's
unique source key keeps it to one event. Status changes are read by id (the table's primary
key answers), the cursor moving only past rows older than SETTLE."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

from django.db.models import Count, Q, Sum
from django.utils import timezone

from integrations.models import WebhookEvent
from operations.models import BulkUpload, SettlementBatch, SettlementItem
from quota import catalogue
from quota.models import StatusChange

SETTLE = datetime.timedelta(minutes=5)
BATCH = 5000

# (type, source key, occurred at, data)
Found = tuple[str, str, datetime.datetime, dict[str, Any]]
# The partner's own references of some applications (integrations.selectors.references_of).
References = Callable[[list[int]], dict[int, str]]


def _iso(value: datetime.datetime | datetime.date | None) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime.datetime):
        return timezone.localtime(value).isoformat()
    return value.isoformat()


def _money(value: Decimal | None) -> str | None:
    return None if value is None else f"{value:.2f}"


def status_changes(after_id: int, references: References) -> tuple[list[Found], list[tuple[int, Any]]]:
    """Status changes with a larger id: the events, and (id, time) of each row read."""
    rows = list(
        StatusChange.objects.filter(pk__gt=after_id)
        .select_related("application__registration")
        .order_by("pk")[:BATCH]
    )
    refs = references([change.application_id for change in rows])
    found: list[Found] = []
    for change in rows:
        application = change.application
        found.append(
            (
                WebhookEvent.STATUS_CHANGED,
                f"status_change:{change.pk}",
                change.created_at,
                {
                    "application": {
                        "id": application.pk,
                        "sequence": application.registration.sequence,
                        "legislation_year": application.legislation_year,
                        "status": application.status,
                        "reference": refs.get(application.pk, ""),
                    },
                    "status": change.status,
                    "status_label": catalogue.CATALOGUE[change.status].title("de"),
                    "changed_at": _iso(change.created_at),
                },
            )
        )
    return found, [(change.pk, change.created_at) for change in rows]


def uploads_finished(since: datetime.datetime) -> Iterator[Found]:
    uploads = BulkUpload.objects.filter(finished_at__gte=since).annotate(
        accepted=Count("items", filter=Q(items__status="accepted")),
        refused=Count("items", filter=Q(items__status="refused")),
        duplicate=Count("items", filter=Q(items__status="duplicate")),
    )
    for upload in uploads:
        assert upload.finished_at is not None
        yield (
            WebhookEvent.UPLOAD_FINISHED,
            f"bulk_upload:{upload.pk}",
            upload.finished_at,
            {
                "bulk_upload": {
                    "id": upload.pk,
                    "uuid": str(upload.uuid),
                    "file_name": upload.file_name,
                    "status": upload.status,
                    "status_label": BulkUpload.Status(upload.status).label,
                    "file_count": upload.file_count,
                    "accepted": upload.accepted,  # type: ignore[attr-defined]
                    "refused": upload.refused,  # type: ignore[attr-defined]
                    "duplicate": upload.duplicate,  # type: ignore[attr-defined]
                    "finished_at": _iso(upload.finished_at),
                }
            },
        )


def payouts_paid(since: datetime.datetime, references: References) -> Iterator[Found]:
    batches = SettlementBatch.objects.filter(
        status=SettlementBatch.Status.SETTLED, paid_at__gte=since
    ).annotate(total=Sum("items__gross", filter=Q(items__status=SettlementItem.Status.PAID)))
    for batch in batches:
        assert batch.paid_at is not None
        items = list(batch.items.filter(status=SettlementItem.Status.PAID).order_by("pk"))
        refs = references([item.application_id for item in items if item.application_id])
        yield (
            WebhookEvent.PAYOUT_PAID,
            f"settlement_batch:{batch.pk}:paid",
            batch.paid_at,
            {
                "settlement_batch": {
                    "id": batch.pk,
                    "reference": batch.reference,
                    "execution_date": _iso(batch.execution_date),
                    "paid_at": _iso(batch.paid_at),
                    "total_gross": _money(batch.total),  # type: ignore[attr-defined]
                    "items": [
                        {
                            "application_id": item.application_id,
                            "sequence": item.sequence,
                            "legislation_year": item.legislation_year,
                            "reference": refs.get(item.application_id or 0, ""),
                            "method": item.method,
                            "gross": _money(item.gross),
                        }
                        for item in items
                    ],
                }
            },
        )


def payouts_failed(since: datetime.datetime, references: References) -> Iterator[Found]:
    for item in SettlementItem.objects.filter(failed_at__gte=since).select_related("batch"):
        assert item.failed_at is not None
        refs = references([item.application_id] if item.application_id else [])
        yield (
            WebhookEvent.PAYOUT_FAILED,
            f"settlement_item:{item.pk}:failed:{int(item.failed_at.timestamp())}",
            item.failed_at,
            {
                "payout": {
                    "settlement_batch_id": item.batch_id,
                    "settlement_batch_reference": item.batch.reference,
                    "application_id": item.application_id,
                    "sequence": item.sequence,
                    "legislation_year": item.legislation_year,
                    "reference": refs.get(item.application_id or 0, ""),
                    "gross": _money(item.gross),
                    "failed_at": _iso(item.failed_at),
                }
            },
        )
